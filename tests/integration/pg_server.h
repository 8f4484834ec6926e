// pg_server.h — a real PostgreSQL server for one test: Debian's postgresql
// binaries (initdb, pg_ctl from /usr/lib/postgresql/*/bin), a cluster in a
// temporary directory, run as an unprivileged user (the package's
// `postgres` account when the tests run as root: initdb refuses root),
// listening only on a Unix socket in that directory (no TCP port to race
// for) with trust authentication, stopped (immediate mode) and deleted when
// the object goes.
//
// When the binaries are missing the test is skipped with a warning saying
// so — unless MOEBENCH_REQUIRE_SERVERS is set (`make test` sets it after
// installing them), when it fails.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "vocab/subprocess.h"

namespace moebench::testing {

// `n` distinct TCP ports of 127.0.0.1 nobody listens on now (the kernel's
// choice; all held until all are chosen, so they differ). A daemon started
// later could still lose one to another process: the servers here that can
// use a Unix socket do.
inline std::vector<int> free_tcp_ports(int n) {
  std::vector<int> fds, ports;
  for (int i = 0; i < n; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t len = sizeof a;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
      ports.push_back(ntohs(a.sin_port));
    }
    fds.push_back(fd);
  }
  for (int fd : fds) ::close(fd);
  return ports;
}
inline int free_tcp_port() { return free_tcp_ports(1).front(); }

inline bool servers_required() {
  const char* v = std::getenv("MOEBENCH_REQUIRE_SERVERS");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

// Skips (WARN + return false) or fails when a server's programs are missing.
inline bool server_available(bool found, const std::string& what) {
  if (found) return true;
  if (servers_required()) {
    FAIL(what << " not installed, and MOEBENCH_REQUIRE_SERVERS is set: run `make deps` (or `make test`)");
  }
  WARN("SKIPPED: " << what << " not installed (`make test` installs it); this test did not run");
  return false;
}

// Runs argv as `user` (runuser) when we are root, else as ourselves.
inline std::vector<std::string> as_user(const std::string& user, std::vector<std::string> argv) {
  if (::geteuid() != 0) return argv;
  std::vector<std::string> out = {"runuser", "-u", user, "--"};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

class PgServer {
 public:
  // The directory holding initdb and pg_ctl, or "" when not installed.
  static std::string bindir() {
    std::error_code ec;
    std::vector<std::string> found;
    for (const auto& e : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
      if (std::filesystem::exists(e.path() / "bin" / "pg_ctl", ec)) found.push_back((e.path() / "bin").string());
    }
    std::sort(found.begin(), found.end());
    return found.empty() ? std::string() : found.back();
  }

  // Starts a cluster under `dir` (a TempDir's path). REQUIREs success.
  explicit PgServer(const std::string& dir) : bin_(bindir()) {
    user_ = ::geteuid() == 0 ? "postgres" : "";
    if (!user_.empty() && ::getpwnam(user_.c_str()) == nullptr) user_ = "nobody";
    root_ = dir + "/pg";
    std::filesystem::create_directories(root_);
    if (!user_.empty()) {
      const passwd* pw = ::getpwnam(user_.c_str());
      REQUIRE(pw != nullptr);
      REQUIRE(::chown(root_.c_str(), pw->pw_uid, pw->pw_gid) == 0);
      std::filesystem::permissions(dir, std::filesystem::perms::owner_all | std::filesystem::perms::group_exec |
                                            std::filesystem::perms::others_exec);
    }
    run({bin_ + "/initdb", "-D", root_ + "/data", "-U", "moebench", "-A", "trust", "-E", "UTF8", "--locale=C",
         "--no-sync"},
        60);
    run({bin_ + "/pg_ctl", "-D", root_ + "/data", "-l", root_ + "/log", "-w", "-t", "60", "-o",
         "-p " + std::to_string(port_) + " -k " + root_ + " -c listen_addresses= -c fsync=off", "start"},
        90);
    started_ = true;
  }
  ~PgServer() {
    if (!started_) return;
    ProcessOptions o;
    o.timeout_s = 60;
    (void)run_process(as_user(user_, {bin_ + "/pg_ctl", "-D", root_ + "/data", "-m", "immediate", "-w", "stop"}), o);
  }
  PgServer(const PgServer&) = delete;
  PgServer& operator=(const PgServer&) = delete;

  // libpq's URL for a Unix socket: the directory as the host parameter.
  std::string url(const std::string& database = "postgres") const {
    return "postgresql://moebench@/" + database + "?host=" + root_ + "&port=" + std::to_string(port_);
  }
  // psql -c SQL against `database`; REQUIREs success; returns stdout.
  std::string psql(const std::string& sql, const std::string& database = "postgres") const {
    return run({bin_ + "/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url(database), "-c", sql}, 60);
  }

 private:
  std::string run(const std::vector<std::string>& argv, double timeout_s) const {
    ProcessOptions o;
    o.timeout_s = timeout_s;
    auto r = run_process(as_user(user_, argv), o);
    REQUIRE(r);
    INFO(command_line(argv) << ": " << r->describe() << "\n" << r->out << r->err);
    REQUIRE(r->ok());
    return r->out;
  }

  std::string bin_, user_, root_;
  int port_ = 5432;  // names the socket file (.s.PGSQL.5432) in our own directory
  bool started_ = false;
};

}  // namespace moebench::testing
