// file_io.cpp — see file_io.h. POSIX only (Linux and macOS).
#include "vocab/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/vfs.h>
#else
#include <sys/mount.h>
#include <sys/param.h>
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "vocab/split_work.h"

namespace moebench {
namespace {

std::string errno_text() { return std::strerror(errno); }

// What to do about a failed write, by errno.
std::string write_hint(int err) {
  if (err == ENOSPC || err == EDQUOT) return " (the disk is full: free space, then try again)";
  if (err == EINVAL) return " (with O_DIRECT, offset, length and buffer must be 4096-aligned)";
  if (err == EROFS) return " (the filesystem is read-only)";
  return "";
}

Status write_all(int fd, std::string_view data, const std::string& path) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_error(path + ": write failed: " + errno_text() + " (disk full? check free space)");
    }
    done += static_cast<std::size_t>(n);
  }
  return Status::success();
}

std::string parent_dir(const std::string& file_path) {
  std::string dir = std::filesystem::path(file_path).parent_path().string();
  return dir.empty() ? "." : dir;
}

// Makes a rename in the directory of `file_path` durable. A directory that
// cannot be opened, or a filesystem without directory fsync, is let pass.
Status fsync_dir(const std::string& file_path) {
  const std::string dir = parent_dir(file_path);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::success();
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0 && err != EINVAL && err != EROFS) {
    return make_error(file_path + ": written and renamed into place, but fsync of its directory " + dir +
                      " failed: " + std::strerror(err) + " (the new file may not survive a crash; check the drive)");
  }
  return Status::success();
}

std::atomic<unsigned long> g_temp_counter{0};

}  // namespace

Status check_output_path(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::success();
    return make_error(path + ": cannot check the output path: " + errno_text());
  }
  if (S_ISREG(st.st_mode)) return Status::success();
  const char* why = S_ISLNK(st.st_mode)                         ? "a symlink"
                    : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device node"
                    : S_ISFIFO(st.st_mode)                       ? "a FIFO (named pipe)"
                    : S_ISSOCK(st.st_mode)                       ? "a socket"
                    : S_ISDIR(st.st_mode)                        ? "a directory"
                                                                 : "not a regular file";
  std::string because;
  if (S_ISLNK(st.st_mode)) {
    because = " (outputs are replaced by renaming a new file over the path, which would replace the link itself, "
              "not the file it points to)";
  } else if (!S_ISDIR(st.st_mode)) {
    because = " (outputs are replaced by renaming a new file over the path, which would replace the node itself)";
  }
  return make_error(path + " is " + why + "; give a regular file path" + because);
}

AtomicFile::~AtomicFile() { discard(); }

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)),
      temp_(std::move(other.temp_)),
      fd_(other.fd_),
      direct_(other.direct_),
      synced_(other.synced_),
      committed_(other.committed_),
      end_(other.end_),
      options_(std::move(other.options_)) {
  other.fd_ = -1;
  other.temp_.clear();
}

AtomicFile& AtomicFile::operator=(AtomicFile&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    temp_ = std::move(other.temp_);
    fd_ = other.fd_;
    direct_ = other.direct_;
    synced_ = other.synced_;
    committed_ = other.committed_;
    end_ = other.end_;
    options_ = std::move(other.options_);
    other.fd_ = -1;
    other.temp_.clear();
  }
  return *this;
}

Expected<AtomicFile> AtomicFile::create(const std::string& path, AtomicFileOptions options) {
  if (path.empty()) return make_error("an output path is empty; give a file path");
  if (Status st = check_output_path(path); !st) return st.error();
  const int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW;
  AtomicFile f;
  for (int attempt = 0;; ++attempt) {
    std::string tmp = path + "." + options.temp_tag;
    if (options.unique) {
      tmp += "." + std::to_string(::getpid()) + "." + std::to_string(g_temp_counter.fetch_add(1));
    } else {
      ::unlink(tmp.c_str());  // an interrupted earlier attempt's leftover (file or link)
    }
    const int fd = ::open(tmp.c_str(), flags, static_cast<mode_t>(options.mode));
    if (fd < 0) {
      if (errno == EEXIST && options.unique && attempt < 100) continue;
      return make_error(path + ": cannot create the temporary file " + tmp + ": " + errno_text() +
                        " (does the directory exist, and is it writable?)");
    }
    f.fd_ = fd;
    f.temp_ = std::move(tmp);
    break;
  }
  f.path_ = path;
  if (options.direct) {
#if defined(O_DIRECT)
    const int fl = ::fcntl(f.fd_, F_GETFL);
    f.direct_ = fl >= 0 && ::fcntl(f.fd_, F_SETFL, fl | O_DIRECT) == 0;  // EINVAL: refused (buffered)
#elif defined(F_NOCACHE)
    f.direct_ = ::fcntl(f.fd_, F_NOCACHE, 1) == 0;  // macOS
#endif
  }
  f.options_ = std::move(options);
  return f;
}

Status AtomicFile::pwrite_all(const void* data, std::size_t n, std::uint64_t offset) {
  if (fd_ < 0) return make_error(path_ + ": not open for writing (already committed or discarded)");
  const auto* p = static_cast<const unsigned char*>(data);
  std::size_t done = 0;
  while (done < n) {
    const off_t at = static_cast<off_t>(offset + done);
    const ssize_t w = options_.pwrite_fn ? options_.pwrite_fn(fd_, p + done, n - done, at)
                                         : ::pwrite(fd_, p + done, n - done, at);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int err = w < 0 ? errno : 0;
      return make_error(path_ + ": writing " + temp_ + " failed at byte " + std::to_string(offset + done) + ": " +
                        (w < 0 ? std::strerror(err) : "no progress") + write_hint(err));
    }
    done += static_cast<std::size_t>(w);
  }
  end_ = std::max(end_, offset + n);
  synced_ = false;
  return Status::success();
}

Status AtomicFile::write(std::string_view data) { return pwrite_all(data.data(), data.size(), end_); }

Status AtomicFile::sync() {
  if (fd_ < 0) return make_error(path_ + ": not open for writing (already committed or discarded)");
  if (synced_) return Status::success();
  const int rc = options_.fsync_fn ? options_.fsync_fn(fd_) : ::fsync(fd_);
  if (rc != 0) {
    const int err = errno;
    return make_error(path_ + ": fsync of " + temp_ + " failed: " + std::strerror(err) + write_hint(err));
  }
  synced_ = true;
  return Status::success();
}

Status AtomicFile::commit() {
  if (committed_) return make_error(path_ + ": already committed");
  if (Status st = sync(); !st) return st;
  const int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) return make_error(path_ + ": closing " + temp_ + " failed: " + errno_text());
  if (Status st = check_output_path(path_); !st) return st;  // a link or node put there meanwhile
  if (::rename(temp_.c_str(), path_.c_str()) != 0) {
    return make_error(path_ + ": cannot rename " + temp_ + " into place: " + errno_text());
  }
  committed_ = true;
  temp_.clear();
  return fsync_dir(path_);
}

void AtomicFile::discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
}

Status write_file_atomic(const std::string& path, std::string_view content, const AtomicFileOptions& options) {
  auto f = AtomicFile::create(path, options);
  if (!f) return f.error();
  if (Status st = f->write(content); !st) return st;
  return f->commit();
}

Status link_file_atomic(const std::string& existing, const std::string& path, const std::string& temp_tag) {
  if (Status st = check_output_path(path); !st) return st;
  std::string tmp;
  for (int attempt = 0;; ++attempt) {
    tmp = path + "." + temp_tag + "." + std::to_string(::getpid()) + "." + std::to_string(g_temp_counter.fetch_add(1));
    if (::link(existing.c_str(), tmp.c_str()) == 0) break;
    const int err = errno;
    if (err == EEXIST && attempt < 100) continue;
    return make_error(path + ": cannot hard-link " + existing + " as " + tmp + ": " + std::strerror(err) +
                      (err == EXDEV ? " (they are on different filesystems: copy instead)" : ""));
  }
  Status st = check_output_path(path);  // a link or node put there meanwhile
  if (st && ::rename(tmp.c_str(), path.c_str()) != 0) {
    st = make_error(path + ": cannot rename " + tmp + " into place: " + errno_text());
  }
  if (!st) {
    ::unlink(tmp.c_str());
    return st;
  }
  return fsync_dir(path);
}

namespace {

// One file of a set into its temporary: its text, or its pieces through a
// 1 MiB buffer (the first failure is kept; later pieces are dropped).
Status write_content(const FileContent& f, AtomicFile& t) {
  if (!f.stream) return t.write(f.content);
  std::string buffer;
  Status written = Status::success();
  auto flush = [&] {
    if (written && !buffer.empty()) written = t.write(buffer);
    buffer.clear();
  };
  f.stream([&](std::string_view piece) {
    buffer += piece;
    if (buffer.size() >= (std::size_t{1} << 20)) flush();
  });
  flush();
  return written;
}

}  // namespace

Status write_files_atomic(const std::vector<FileContent>& files, const AtomicFileOptions& options) {
  auto names = [&files](std::size_t from, std::size_t to) {
    std::string s;
    for (std::size_t i = from; i < to; ++i) s += (s.empty() ? "" : ", ") + files[i].path;
    return s;
  };
  const auto unchanged = [&](const Error& e) {
    if (files.size() < 2) return e;
    return make_error(e.message + "; no file of the set was replaced (" + names(0, files.size()) +
                      " keep their previous contents)");
  };
  std::vector<AtomicFile> temps;
  temps.reserve(files.size());
  for (const FileContent& f : files) {  // phase 1: every temporary made, in order
    auto t = AtomicFile::create(f.path, options);
    if (!t) return unchanged(t.error());
    temps.push_back(std::move(*t));
  }
  // ... then written and on the disk. The files are written two at a time
  // (a results set is four files, results.json of 10^5 rows 700 MB): each
  // file's writer touches only its own temporary and status. Under the
  // fault-injection seams they are written one after another, in order, so
  // that a test can say which write fails.
  std::vector<Status> written(files.size(), Status::success());
  auto write_one = [&files, &temps, &written](std::size_t i) {
    written[i] = write_content(files[i], temps[i]);
    if (written[i]) written[i] = temps[i].sync();
  };
  // After a failure the set is not replaced: no further file is started.
  std::atomic<bool> failed{false};
  auto write_range = [&write_one, &written, &failed](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to && !failed.load(); ++i) {
      write_one(i);
      if (!written[i]) failed.store(true);
    }
  };
  if (options.pwrite_fn || options.fsync_fn) {
    write_range(0, files.size());
  } else {
    share_work(files.size(), 1, write_range);
  }
  for (const Status& st : written) {
    if (!st) return unchanged(st.error());
  }
  // Phase 2: the renames. After phase 1 they fail only when the filesystem
  // does (EIO, remounted read-only) or a link or node was put in place.
  Status late = Status::success();
  for (std::size_t i = 0; i < temps.size(); ++i) {
    Status st = temps[i].commit();
    if (st) continue;
    if (temps[i].committed()) {  // renamed; only the directory fsync failed
      if (late) late = st;
      continue;
    }
    if (files.size() < 2) return st;
    return make_error(st.error().message + (i > 0 ? "; already replaced: " + names(0, i) : std::string()) +
                      "; not replaced: " + names(i, temps.size()));
  }
  return late;
}

namespace {

struct FsMagic {
  std::uint32_t magic;
  const char* name;
  bool in_ram;
};

// Linux statfs f_type values (linux/magic.h and the filesystems' sources).
constexpr FsMagic kFsMagics[] = {
    {0xEF53, "ext4", false},  // ext2, ext3 and ext4 share it; the ext4 driver mounts all three
    {0x58465342, "xfs", false},
    {0x9123683E, "btrfs", false},
    {0xCA451A4E, "bcachefs", false},
    {0xF2F52010, "f2fs", false},
    {0x2FC12FC1, "zfs", false},
    {0x01021994, "tmpfs", true},
    {0x858458F6, "ramfs", true},
    {0x958458F6, "hugetlbfs", true},
    {0x794C7630, "overlay", false},
    {0x65735546, "fuse", false},
    {0x6969, "nfs", false},
    {0xFF534D42, "cifs", false},
    {0xFE534D42, "smb2", false},
    {0x00C36400, "ceph", false},
    {0x01021997, "9p", false},
    {0x0BD00BD0, "lustre", false},
    {0x01161970, "gfs2", false},
    {0x7461636F, "ocfs2", false},
    {0x3153464A, "jfs", false},
    {0x52654973, "reiserfs", false},
    {0x5346544E, "ntfs", false},
    {0x7366746E, "ntfs3", false},
    {0x4D44, "vfat", false},
    {0x2011BAB0, "exfat", false},
    {0x482B, "hfsplus", false},
    {0x73717368, "squashfs", false},
    {0xE0F5E1E2, "erofs", false},
    {0x9660, "iso9660", false},
    {0x9FA0, "proc", false},
    {0x62656572, "sysfs", false},
    {0x63677270, "cgroup2", false},
};

}  // namespace

std::string filesystem_name_for_magic(std::uint64_t magic) {
  for (const FsMagic& m : kFsMagics) {
    if (m.magic == static_cast<std::uint32_t>(magic)) return m.name;
  }
  return "";
}

bool filesystem_magic_in_ram(std::uint64_t magic) {
  for (const FsMagic& m : kFsMagics) {
    if (m.magic == static_cast<std::uint32_t>(magic)) return m.in_ram;
  }
  return false;
}

Expected<FilesystemKind> filesystem_kind(const std::string& path) {
  struct statfs sfs {};
  if (::statfs(path.c_str(), &sfs) != 0) return make_error(path + ": statfs failed: " + errno_text());
  FilesystemKind k;
#if defined(__linux__)
  k.magic = static_cast<std::uint32_t>(sfs.f_type);
  k.name = filesystem_name_for_magic(k.magic);
  k.in_ram = filesystem_magic_in_ram(k.magic);
#else
  k.name = sfs.f_fstypename;  // macOS and the BSDs name it
#endif
  return k;
}

std::string reads_bypass_drive(const std::string& dir) {
  auto kind = filesystem_kind(dir);
  if (!kind) return "";
  const std::string magic = fmt::format("0x{:x}", static_cast<unsigned long long>(kind->magic));
  const std::string fs = kind->name.empty() ? std::string("a filesystem of statfs type ") + magic : kind->name;
  if (kind->in_ram) {
    return dir + " is on " + fs + ", which keeps its files in RAM: reads from it never reach a drive, so the " +
           "figures measure memory, not storage; put the drive directory on a disk-backed filesystem (ext4, xfs, " +
           "btrfs, ...), or use the resident engine to measure weights held in RAM";
  }
#if defined(O_DIRECT)
  // O_DIRECT is a property of the filesystem: try it on a scratch file.
  const std::string probe = (std::filesystem::path(dir) / (".moebench-direct-probe." + std::to_string(::getpid()) +
                                                            "." + std::to_string(g_temp_counter.fetch_add(1))))
                                .string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return "";  // read-only or not writable: cannot tell
  const int fl = ::fcntl(fd, F_GETFL);
  const bool refused = fl >= 0 && ::fcntl(fd, F_SETFL, fl | O_DIRECT) != 0 && errno == EINVAL;
  ::close(fd);
  ::unlink(probe.c_str());
  if (refused) {
    return dir + " is on " + fs + ", which refuses O_DIRECT: reads go through the page cache and may come from " +
           "RAM, not the drive; put the drive directory on a filesystem that honours O_DIRECT (ext4, xfs, btrfs)";
  }
#endif
  return "";
}

AlignedBytes aligned_bytes(std::size_t n) {
  const std::size_t rounded = (std::max<std::size_t>(n, 1) + 4095) / 4096 * 4096;
  return AlignedBytes(static_cast<unsigned char*>(std::aligned_alloc(4096, rounded)));
}

int open_read_uncached(const std::string& path, bool& direct) {
#ifdef O_DIRECT
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd >= 0) {
    direct = true;
    return fd;
  }
#endif
  direct = false;
  const int plain = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
#ifdef F_NOCACHE
  if (plain >= 0 && fcntl(plain, F_NOCACHE, 1) == 0) direct = true;  // macOS
#endif
  return plain;
}

Status ensure_directory(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return make_error(path + ": cannot create directory: " + ec.message());
  return Status::success();
}

Status refuse_non_regular_file(const std::string& path, std::string_view what) {
  // Opening a FIFO blocks until a writer comes; a directory "opens" and reads
  // nothing: refuse anything but a regular file before opening it.
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) {
    return make_error(path + ": not a regular file (a directory, FIFO, socket or device): give " + std::string(what));
  }
  return Status::success();
}

Status drop_file_cache(const std::string& path) {
#if defined(POSIX_FADV_DONTNEED)
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(path + ": cannot open to drop its cached pages: " + std::strerror(errno));
  (void)::fdatasync(fd);  // dirty pages cannot be dropped: write them first
  const int rc = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
  if (rc != 0) return make_error(path + ": posix_fadvise(DONTNEED) failed: " + std::strerror(rc));
#else
  (void)path;
#endif
  return Status::success();
}

Expected<std::string> read_file(const std::string& path) {
  if (auto st = refuse_non_regular_file(path, "a file"); !st) return st.error();
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot open file: " + errno_text());
  // Read straight into one string (a stringstream would hold the text twice).
  std::string text;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec) text.reserve(static_cast<std::size_t>(size));
  char block[1 << 16];
  while (in.read(block, sizeof block) || in.gcount() > 0) text.append(block, static_cast<std::size_t>(in.gcount()));
  if (in.bad()) return make_error(path + ": read error: " + errno_text());
  return text;
}

DurableAppender::~DurableAppender() {
  if (fd_ >= 0) ::close(fd_);
}

DurableAppender::DurableAppender(DurableAppender&& other) noexcept
    : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

DurableAppender& DurableAppender::operator=(DurableAppender&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

Expected<DurableAppender> DurableAppender::open(const std::string& path, std::uint64_t keep_bytes,
                                                bool truncate_all) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (truncate_all ? O_TRUNC : 0), 0644);
  if (fd < 0) return make_error(path + ": cannot open for writing: " + errno_text());
  if (!truncate_all && ::ftruncate(fd, static_cast<off_t>(keep_bytes)) != 0) {
    ::close(fd);
    return make_error(path + ": cannot truncate the torn last line: " + errno_text());
  }
  if (::lseek(fd, 0, SEEK_END) < 0) {
    ::close(fd);
    return make_error(path + ": seek failed: " + errno_text());
  }
  DurableAppender a;
  a.fd_ = fd;
  a.path_ = path;
  return a;
}

Status DurableAppender::append(std::string_view data) {
  if (fd_ < 0) return make_error("journal is not open");
  Status st = write_all(fd_, data, path_);
  if (!st) return st;
  if (::fsync(fd_) != 0) return make_error(path_ + ": fsync failed: " + errno_text());
  return Status::success();
}

Expected<std::uint64_t> free_bytes(const std::string& dir) {
  struct statvfs vfs {};
  if (statvfs(dir.c_str(), &vfs) != 0) {
    return make_error(dir + ": cannot read free space: " + std::strerror(errno));
  }
  return static_cast<std::uint64_t>(vfs.f_bavail) * static_cast<std::uint64_t>(vfs.f_frsize);
}

}  // namespace moebench
