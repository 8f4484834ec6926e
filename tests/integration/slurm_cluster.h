// slurm_cluster.h — a real single-node Slurm cluster for one test: Debian's
// slurm-wlm (slurmctld, slurmd, sbatch, squeue, scancel) and munge, every
// file in a temporary directory — munge key, socket and logs; slurm.conf,
// state, spool and logs — on free TCP ports of 127.0.0.1; the daemons run
// in the foreground as the test's children and are stopped (SIGTERM, then
// SIGKILL) when the object goes. Client commands find the cluster through
// SLURM_CONF, which the object sets for the process and its children.
//
// No cgroups (proctrack/linuxproc, task/none), no accounting; the builtin
// scheduler starts a job as soon as CPUs are free. Skipped or failed like
// pg_server.h when the packages are missing.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "vocab/file_io.h"
#include "vocab/subprocess.h"

#include "pg_server.h"

namespace moebench::testing {

class SlurmCluster {
 public:
  static bool installed() {
    for (const char* p : {"slurmctld", "slurmd", "sbatch", "squeue", "scancel", "munged"}) {
      if (!find_program(p) && !std::filesystem::exists(std::string("/usr/sbin/") + p)) return false;
    }
    return true;
  }

  // "" when this system can run slurmd; else why not. Slurm 22.05's slurmd
  // initialises its cgroup plugin even with proctrack/linuxproc and
  // task/none, and exits without a cgroup filesystem at /sys/fs/cgroup (a
  // pbuilder-style chroot has none; a booted system or container has one).
  static std::string missing_facility() {
    auto mounts = read_file("/proc/self/mounts");
    if (!mounts) return "";  // cannot tell: let slurmd say
    std::istringstream in(*mounts);
    std::string dev, point, type, rest;
    while (in >> dev >> point >> type && std::getline(in, rest)) {
      if (point.rfind("/sys/fs/cgroup", 0) == 0 && (type == "cgroup" || type == "cgroup2")) return "";
    }
    return "no cgroup filesystem is mounted at /sys/fs/cgroup, and slurmd 22.05 exits without one (in a chroot: "
           "mount --rbind /sys/fs/cgroup CHROOT/sys/fs/cgroup)";
  }

  explicit SlurmCluster(const std::string& dir) : root_(dir + "/slurm") {
    namespace fs = std::filesystem;
    for (const char* d : {"", "/munge", "/state", "/spool", "/log"}) fs::create_directories(root_ + d);
    fs::permissions(root_ + "/munge", fs::perms::owner_all);
    // munge: a random key, a private socket.
    const std::string key = root_ + "/munge/munge.key";
    {
      auto bytes = read_random(1024);
      REQUIRE(write_file_atomic(key, bytes).ok());
      fs::permissions(key, fs::perms::owner_read | fs::perms::owner_write);
    }
    socket_ = root_ + "/munge/munge.socket";
    munged_ = spawn({sbin("munged"), "--foreground", "--force", "--key-file=" + key, "--socket=" + socket_,
                     "--pid-file=" + root_ + "/munge/munged.pid", "--log-file=" + root_ + "/munge/munged.log",
                     "--seed-file=" + root_ + "/munge/munged.seed", "--num-threads=2"},
                    root_ + "/log/munged.out");
    wait_for_path(socket_, 30);

    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    std::string short_host = host;
    if (auto dot = short_host.find('.'); dot != std::string::npos) short_host.resize(dot);
    const int cpus = static_cast<int>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
    const std::vector<int> ports = free_tcp_ports(2);
    REQUIRE(ports.size() == 2);
    conf_ = root_ + "/slurm.conf";
    const std::string text =
        "ClusterName=moebenchtest\n"
        "SlurmctldHost=" + short_host + "(127.0.0.1)\n"
        "SlurmUser=" + user_name() + "\n"
        "SlurmdUser=root\n"
        "SlurmctldPort=" + std::to_string(ports[0]) + "\n"
        "SlurmdPort=" + std::to_string(ports[1]) + "\n"
        "AuthType=auth/munge\n"
        "CredType=cred/munge\n"
        "AuthInfo=socket=" + socket_ + "\n"
        "StateSaveLocation=" + root_ + "/state\n"
        "SlurmdSpoolDir=" + root_ + "/spool\n"
        "SlurmctldPidFile=" + root_ + "/slurmctld.pid\n"
        "SlurmdPidFile=" + root_ + "/slurmd.pid\n"
        "SlurmctldLogFile=" + root_ + "/log/slurmctld.log\n"
        "SlurmdLogFile=" + root_ + "/log/slurmd.log\n"
        "ProctrackType=proctrack/linuxproc\n"
        "TaskPlugin=task/none\n"
        "JobAcctGatherType=jobacct_gather/none\n"
        "AccountingStorageType=accounting_storage/none\n"
        "JobCompType=jobcomp/none\n"
        "SchedulerType=sched/builtin\n"
        "SelectType=select/cons_tres\n"
        "SelectTypeParameters=CR_CPU\n"
        "MpiDefault=none\n"
        "ReturnToService=2\n"
        "MailProg=/bin/true\n"
        "KillWait=5\n"
        "MinJobAge=600\n"
        "NodeName=moebench1 NodeAddr=127.0.0.1 NodeHostname=" + short_host + " CPUs=" + std::to_string(cpus) +
        " State=UNKNOWN\n"
        "PartitionName=test Nodes=moebench1 Default=YES MaxTime=INFINITE State=UP\n";
    REQUIRE(write_file_atomic(conf_, text).ok());
    ::setenv("SLURM_CONF", conf_.c_str(), 1);
    ctld_ = spawn({sbin("slurmctld"), "-D", "-i", "-f", conf_}, root_ + "/log/slurmctld.out");
    slurmd_ = spawn({sbin("slurmd"), "-D", "-N", "moebench1", "-f", conf_}, root_ + "/log/slurmd.out");
    // Ready when the node is idle.
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::string state;
    while (std::chrono::steady_clock::now() < end) {
      auto r = run_process({"sinfo", "-h", "-N", "-o", "%T"}, ProcessOptions{});
      state = r && r->ok() ? r->out : (r ? r->err : r.error().message);
      if (state.rfind("idle", 0) == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    FAIL("the Slurm node did not become idle in 60 s (sinfo: " << state << ")\n" << logs());
  }

  ~SlurmCluster() {
    for (pid_t pid : {slurmd_, ctld_, munged_}) stop(pid);
    ::unsetenv("SLURM_CONF");
  }
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  // Waits until none of `jobs` (comma-separated ids) is pending or running.
  bool wait_idle(const std::string& jobs, double timeout_s) const {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < end) {
      auto r = run_process({"squeue", "-h", "-j", jobs, "-o", "%i %T"}, ProcessOptions{});
      if (r && r->ok() && r->out.find_first_not_of(" \n") == std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    return false;
  }

  // The daemons' logs, for failure messages.
  std::string logs() const {
    std::string out;
    for (const char* f : {"/log/slurmctld.log", "/log/slurmd.log", "/log/slurmctld.out", "/log/slurmd.out",
                          "/munge/munged.log", "/log/munged.out"}) {
      auto t = read_file(root_ + f);
      out += std::string("--- ") + f + "\n" + (t ? last_lines(*t, 15) : std::string("(none)\n"));
    }
    return out;
  }

 private:
  static std::string sbin(const std::string& name) {
    if (auto p = find_program(name)) return *p;
    return "/usr/sbin/" + name;
  }
  static std::string user_name() {
    const passwd* pw = ::getpwuid(::geteuid());
    return pw != nullptr ? pw->pw_name : "root";
  }
  static std::string read_random(std::size_t n) {
    std::string out(n, '\0');
    FILE* f = std::fopen("/dev/urandom", "rb");
    REQUIRE(f != nullptr);
    REQUIRE(std::fread(out.data(), 1, n, f) == n);
    std::fclose(f);
    return out;
  }
  static void wait_for_path(const std::string& path, double timeout_s) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (!std::filesystem::exists(path) && std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    REQUIRE(std::filesystem::exists(path));
  }
  static pid_t spawn(const std::vector<std::string>& argv, const std::string& log) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::setpgid(0, 0);
      FILE* f = std::freopen(log.c_str(), "w", stdout);
      if (f != nullptr) ::dup2(::fileno(stdout), 2);
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    return pid;
  }
  static void stop(pid_t pid) {
    if (pid <= 0) return;
    ::kill(pid, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      if (::waitpid(pid, nullptr, WNOHANG) == pid) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }

  std::string root_, socket_, conf_;
  pid_t munged_ = -1, ctld_ = -1, slurmd_ = -1;
};

}  // namespace moebench::testing
