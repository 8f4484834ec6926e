// file_io.h — the one place that writes files. Every output is replaced
// atomically through AtomicFile: a temporary file in the same directory,
// written, fsynced, renamed over the output, then the directory fsynced, so
// a crash or a full disk leaves either the old file or the new one, never
// half of one. An output path must be a regular file or not exist: a
// symlink, device node, FIFO, socket or directory is refused (renaming over
// it would replace the link or the node, not write to what it names).
// write_files_atomic replaces several files as one set (every temporary
// written and fsynced before the first rename). Appends for the journal are
// single write() calls followed by fsync. Also here: what filesystem a path
// is on (statfs), and whether reads there reach a drive at all.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vocab/expected.h"

namespace moebench {

// How AtomicFile::create makes the temporary file.
struct AtomicFileOptions {
  // Try O_DIRECT on the temporary file; where the filesystem refuses it the
  // file is opened buffered and AtomicFile::direct() is false. With O_DIRECT
  // every write must be 4096-aligned in offset, length and address
  // (aligned_bytes() buffers).
  bool direct = false;
  // Temporary name: "<path>.<temp_tag>.<pid>.<n>", created with O_EXCL
  // (unique: concurrent writers of one path never share a temporary). With
  // unique = false it is "<path>.<temp_tag>", and a leftover of that name
  // (an interrupted earlier attempt) is removed first: for multi-GB files,
  // whose stale temporaries must not pile up; two concurrent writers of the
  // same path then collide.
  std::string temp_tag = "tmp";
  bool unique = true;
  unsigned mode = 0644;
  // Fault injection for tests: stand-ins for pwrite(2) and fsync(2) with
  // their contract (-1 and errno on failure). Empty: the system calls.
  std::function<ssize_t(int fd, const void* data, std::size_t n, off_t offset)> pwrite_fn;
  std::function<int(int fd)> fsync_fn;
};

// Success when `path` may be replaced by an output (a regular file, or
// nothing there yet), else why not: "PATH is a symlink; give a regular file
// path ...".
Status check_output_path(const std::string& path);

// A file written under a temporary name and moved over `path` by commit().
// Destroyed (or discarded) without a commit, the temporary is removed and
// `path` is untouched.
class AtomicFile {
 public:
  static Expected<AtomicFile> create(const std::string& path, AtomicFileOptions options = {});
  AtomicFile() = default;
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&& other) noexcept;

  int fd() const { return fd_; }              // the temporary, open for writing (-1 after commit)
  bool direct() const { return direct_; }     // opened with O_DIRECT
  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_; }
  std::uint64_t size() const { return end_; }  // end of the furthest byte written through this object
  bool committed() const { return committed_; }  // renamed into place

  Status write(std::string_view data);  // appends at size()
  Status pwrite_all(const void* data, std::size_t n, std::uint64_t offset);
  Status sync();     // fsync the temporary (once; commit() does it when not done)
  Status commit();   // sync, close, check `path` again, rename over it, fsync the directory
  void discard();    // close and remove the temporary now

 private:
  std::string path_, temp_;
  int fd_ = -1;
  bool direct_ = false, synced_ = false, committed_ = false;
  std::uint64_t end_ = 0;
  AtomicFileOptions options_;
};

Status write_file_atomic(const std::string& path, std::string_view content,
                         const AtomicFileOptions& options = {});

// Makes `path` a hard link to `existing` (same filesystem) the same way: a
// link under a temporary name beside `path`, the output-path check, rename,
// directory fsync. For replicas that share one inode on one filesystem.
Status link_file_atomic(const std::string& existing, const std::string& path, const std::string& temp_tag = "tmp");

// Receives a text piece by piece.
using TextSink = std::function<void(std::string_view)>;

// Several files replaced as one set: every temporary is written and fsynced
// first; only when all succeeded are they renamed, in order. On a failure
// before the renames every temporary is removed and every file keeps its
// previous content; the message names the file and says so.
struct FileContent {
  std::string path;
  std::string content;
  // When set, produces the content as this file's turn comes, piece by
  // piece, written through a 1 MiB buffer: a large file (results.json of
  // 10^5 rows is 700 MB) never sits in memory whole.
  std::function<void(const TextSink& emit)> stream = {};
};
Status write_files_atomic(const std::vector<FileContent>& files, const AtomicFileOptions& options = {});

// Buffers for O_DIRECT I/O: 4096-aligned, size rounded up to 4096, freed
// with std::free. Their pages are not touched here.
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using AlignedBytes = std::unique_ptr<unsigned char[], FreeDeleter>;
AlignedBytes aligned_bytes(std::size_t n);

// Opens `path` for reading past the page cache: O_DIRECT where the
// filesystem honours it, F_NOCACHE on macOS, else a plain open (direct is
// then false, and the caller's figures may include cached reads). -1 on error
// with errno set.
int open_read_uncached(const std::string& path, bool& direct);
Expected<std::string> read_file(const std::string& path);
// Asks the kernel to drop `path`'s clean pages from the page cache
// (posix_fadvise DONTNEED; pages another process has mapped stay), so the
// next reader starts cold. Where the call does not exist it does nothing.
Status drop_file_cache(const std::string& path);
// An error when `path` exists but is not a regular file (a directory, FIFO,
// socket or device: opening a FIFO would block); success otherwise, missing
// paths included. `what` names what to give instead ("a file").
Status refuse_non_regular_file(const std::string& path, std::string_view what);
Status ensure_directory(const std::string& path);

// The filesystem holding `path`, from statfs(2).
struct FilesystemKind {
  std::uint64_t magic = 0;  // f_type (Linux); 0 elsewhere
  std::string name;         // "ext4", "xfs", "tmpfs", ...; "" when not known to moebench
  bool in_ram = false;      // tmpfs, ramfs, hugetlbfs: its files live in memory
};
Expected<FilesystemKind> filesystem_kind(const std::string& path);
// The name of a Linux statfs f_type magic ("" when unknown).
std::string filesystem_name_for_magic(std::uint64_t magic);
bool filesystem_magic_in_ram(std::uint64_t magic);

// Why reads of files in directory `dir` do not measure a drive — its
// filesystem keeps files in RAM (tmpfs, ramfs), or it refuses O_DIRECT, so
// reads go through the page cache — with what to do; "" when they reach the
// drive (or when this cannot be told).
std::string reads_bypass_drive(const std::string& dir);

// An append-only file whose every append reaches the disk before returning.
class DurableAppender {
 public:
  DurableAppender() = default;
  ~DurableAppender();
  DurableAppender(const DurableAppender&) = delete;
  DurableAppender& operator=(const DurableAppender&) = delete;
  DurableAppender(DurableAppender&& other) noexcept;
  DurableAppender& operator=(DurableAppender&& other) noexcept;

  // Opens for appending after truncating to `keep_bytes` (drops a torn
  // trailing line left by a crash); creates the file if missing.
  static Expected<DurableAppender> open(const std::string& path, std::uint64_t keep_bytes,
                                        bool truncate_all);
  Status append(std::string_view data);  // write fully, then fsync
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// Bytes an unprivileged writer may still use on the filesystem holding `dir`
// (statvfs f_bavail); an error names the directory.
Expected<std::uint64_t> free_bytes(const std::string& dir);

}  // namespace moebench
