// expert_io.h — the streaming engine's read path: O_DIRECT reads of expert
// records from a drive set, through io_uring with registered (fixed) buffers,
// or a pread thread pool when io_uring is missing or refused. The path taken
// is reported (backend()) and goes into every row.
//
// One file per drive (the container's copy or stripe on that drive). A
// request names a drive, or kAnyDrive for replicated data: the read then goes
// to the drive with the fewest bytes in flight (ties: lowest index). Reads
// are asynchronous: submit() queues (beyond the queue depth they wait in a
// FIFO inside), wait(tag) blocks until that read has landed, collecting other
// completions on the way, done(tag) asks without blocking.
//
// Throttle (what-if runs, drive-count scaling on one physical disk): with
// throttle_bytes_s set, each drive behaves as a server of that bandwidth — a
// read of n bytes finishes no earlier than max(submit time, the drive's
// previous throttled finish) + n / rate, and no earlier than the real
// device completes it. Real bytes are still read.
//
// Faults: a FaultPlan makes the nth read (1-based, counting every read
// submitted) return EIO or come back short, as a failing or truncated disk
// would; real short reads are retried for the rest, and a read that still
// comes back short (end of file) is an error naming drive, file and offset.
//
// Single-threaded interface: one engine thread calls it (the compute
// threads never do). Offsets, lengths and destination addresses must be
// multiples of 4096 (O_DIRECT); anything else is an error, not a silent
// buffered read. When IoOptions::buffers is non-empty, a destination range
// must lie inside one of them (else submit() fails: it catches reads into
// stray memory); an empty list allows any aligned destination. A
// destination inside a registered 1 GiB piece uses a fixed-buffer read;
// one straddling two pieces (or registration refused) a plain read.
//
// io_uring batching: submit() queues the SQE and hands the whole queue to
// the kernel at once when the device has nothing else in flight (a lone
// read never waits), or when a batch (queue depth / 4, 1..8) has gathered;
// done(), wait() and drain() hand over whatever is queued. So while the
// device is already busy, the tail of a burst of submits can sit in the
// queue until the engine thread's next done()/wait().
//
// Recording (IoOptions::record_reads): every read submit() accepts is kept,
// in order, with the file it went to (after the drive was chosen) and its
// range, so another tool can replay the same reads (fio_read_iolog: fio's
// iolog format, `fio --read_iolog`).
//
// Counters: reads/bytes count reads that completed successfully (at the
// time they became visible); failed reads count nowhere. Faults count reads
// accepted by submit() since open(); reset_counters() does not restart it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vocab/expected.h"

namespace moebench {

enum class IoBackend { kAuto, kIoUring, kPread };
const char* to_string(IoBackend b);

struct FaultPlan {
  enum class Kind { kNone, kEio, kShort };
  Kind kind = Kind::kNone;
  std::uint64_t nth_read = 0;  // 1-based; 0 = never
};
// Parses "eio@N" or "short@N" (engine option `fault=`); "" = none.
Expected<FaultPlan> parse_fault_plan(const std::string& text);

struct IoOptions {
  std::vector<std::string> paths;              // one file per drive
  // Further files on a drive (the streaming engine's trunk file on drive 0):
  // read with ReadRequest::file, counted, throttled and balanced as reads of
  // that drive.
  struct SideFile {
    int drive = 0;
    std::string path;
  };
  std::vector<SideFile> side_files;
  std::optional<double> throttle_bytes_s;      // per drive
  int queue_depth = 32;                        // reads in flight, all drives together
  IoBackend backend = IoBackend::kAuto;
  // Memory the reads land in (the expert cache's slot arena, the staging
  // buffers): registered with io_uring as fixed buffers when allowed.
  std::vector<std::pair<void*, std::size_t>> buffers;
  FaultPlan fault;
  bool record_reads = false;  // keep every accepted read (recorded())
};

// One read as submit() accepted it: `file` indexes ExpertIo::file_paths().
struct RecordedRead {
  int file = 0;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
};

// fio's iolog (version 2) of reads [begin, end) of `reads`: each file added
// and opened once, the reads in order, the files closed. `fio --read_iolog`
// replays it, issuing the same reads at the job's depth. Paths are made
// absolute; one with white space, or longer than the 256 characters fio's
// iolog reader takes, is an error.
Expected<std::string> fio_read_iolog(const std::vector<std::string>& paths, const std::vector<RecordedRead>& reads,
                                     std::size_t begin, std::size_t end);

inline constexpr int kAnyDrive = -1;

struct ReadRequest {
  std::uint64_t tag = 0;     // caller's id, unique among reads in flight
  int drive = kAnyDrive;     // or a drive index (stripe: the expert's home)
  std::uint64_t offset = 0;  // file offset, multiple of 4096
  std::uint64_t bytes = 0;   // multiple of 4096
  void* dest = nullptr;      // 4096-aligned, inside one of IoOptions::buffers
  int file = -1;             // -1: the drive's file; i >= 0: IoOptions::side_files[i] (its drive; `drive` ignored)
};

struct IoCounters {
  std::uint64_t reads = 0;
  std::uint64_t bytes = 0;                   // bytes delivered by completed reads
  std::vector<std::uint64_t> bytes_by_drive;
  std::uint64_t retries = 0;                 // real short reads resubmitted
  // Seconds during which at least one read was outstanding (submitted and
  // not yet visibly complete): bytes / busy_s is the bandwidth the read path
  // achieved while it had work, independent of compute between reads.
  double busy_s = 0;
  // Throttled reads only (IoOptions::throttle_bytes_s), per drive: the
  // modelled server's span, from the first throttled submit after open or
  // reset_counters() to the modelled finish of the last one. A drive that
  // serves n bytes at rate r has a span of at least n / r; the schedule, not
  // the wall clock, so tests can check the throttle without timing it.
  std::vector<double> throttle_span_s_by_drive;
};

class ExpertIo {
 public:
  static Expected<std::unique_ptr<ExpertIo>> open(const IoOptions& options);
  virtual ~ExpertIo() = default;

  // "io_uring (fixed buffers)", "io_uring (buffers not registered: …)",
  // "pread threads (io_uring: …)" (why io_uring was not used),
  // "pread threads (requested)".
  virtual std::string backend() const = 0;
  virtual bool direct() const = 0;  // every file opened with O_DIRECT
  virtual int drives() const = 0;

  virtual Status submit(const ReadRequest& request) = 0;
  // Blocks until read `tag` has completed; its error if it failed. A tag
  // that was never submitted (or was already waited for) is an error.
  virtual Status wait(std::uint64_t tag) = 0;
  // True once read `tag` has completed (successfully or not); reaps
  // completions without blocking. An unknown tag is "done" (there is
  // nothing to wait for; wait() then reports it).
  virtual bool done(std::uint64_t tag) = 0;
  // Hands every queued read to the device now (call after a burst of
  // submits, before computing, so no read waits for the next done()/wait()).
  virtual void flush() = 0;
  // Waits for every read in flight, throttled finish times included (errors
  // of reads nobody waited for are dropped: the caller has stopped caring
  // about them). Afterwards every tag is forgotten: wait(tag) is an error.
  virtual void drain() = 0;

  virtual const IoCounters& counters() const = 0;
  virtual void reset_counters() = 0;
  // The reads accepted since open() when IoOptions::record_reads is set
  // (else empty), and the files they index: each drive's, then the side files.
  virtual const std::vector<RecordedRead>& recorded() const = 0;
  virtual void clear_recorded() = 0;  // forget what was recorded so far (recording goes on)
  virtual std::vector<std::string> file_paths() const = 0;
};

}  // namespace moebench
