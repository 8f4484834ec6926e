// expert_io.cpp — ExpertIo's bookkeeping, the same whichever backend moves
// the bytes (read_queue.h): request validation, drive choice (fewest bytes in
// flight for replicated data), the FIFO beyond the queue depth, short-read
// retries, injected faults, the per-drive throttle (a read becomes visible
// only once both the real read and the modelled drive are done) and the
// counters. Also opens the files and picks the backend (io_uring, falling
// back to pread threads with the reason in backend()).
#include "engines/io/expert_io.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <deque>
#include <filesystem>
#include <unordered_map>

#include <fmt/format.h>

#include "engines/io/read_queue.h"
#include "vocab/file_io.h"

namespace moebench {

const char* to_string(IoBackend b) {
  switch (b) {
    case IoBackend::kAuto: return "auto";
    case IoBackend::kIoUring: return "io_uring";
    case IoBackend::kPread: return "pread";
  }
  return "?";
}

Expected<std::string> fio_read_iolog(const std::vector<std::string>& paths, const std::vector<RecordedRead>& reads,
                                     std::size_t begin, std::size_t end) {
  end = std::min(end, reads.size());
  std::vector<bool> used(paths.size(), false);
  for (std::size_t i = begin; i < end; ++i) {
    if (reads[i].file >= 0 && static_cast<std::size_t>(reads[i].file) < paths.size()) used[static_cast<std::size_t>(reads[i].file)] = true;
  }
  // Absolute paths: fio may run from another directory than the engine.
  // fio splits a line at spaces, so a path with one cannot be written.
  std::vector<std::string> names(paths.size());
  for (std::size_t f = 0; f < paths.size(); ++f) {
    std::error_code ec;
    const std::filesystem::path a = std::filesystem::absolute(paths[f], ec);
    names[f] = ec ? paths[f] : a.string();
    if (used[f] && names[f].find_first_of(" \t\n") != std::string::npos) {
      return make_error("fio iolog: the path \"" + names[f] + "\" has white space, which fio's iolog lines cannot hold; "
                        "put the drives in directories without it");
    }
    if (used[f] && names[f].size() > 256) {
      return make_error("fio iolog: the path \"" + names[f] + "\" is " + std::to_string(names[f].size()) +
                        " characters; fio's iolog reader takes at most 256: use a shorter drive directory");
    }
  }
  std::string out = "fio version 2 iolog\n";
  for (std::size_t f = 0; f < paths.size(); ++f) {
    if (used[f]) out += names[f] + " add\n";
  }
  for (std::size_t f = 0; f < paths.size(); ++f) {
    if (used[f]) out += names[f] + " open\n";
  }
  for (std::size_t i = begin; i < end; ++i) {
    const RecordedRead& r = reads[i];
    if (r.file < 0 || static_cast<std::size_t>(r.file) >= paths.size()) continue;
    out += fmt::format("{} read {} {}\n", names[static_cast<std::size_t>(r.file)], r.offset, r.bytes);
  }
  for (std::size_t f = 0; f < paths.size(); ++f) {
    if (used[f]) out += names[f] + " close\n";
  }
  return out;
}

Expected<FaultPlan> parse_fault_plan(const std::string& text) {
  FaultPlan plan;
  if (text.empty()) return plan;
  const auto bad = [&] {
    return make_error("fault '" + text + "': expected eio@N or short@N (N >= 1: the Nth read submitted fails)");
  };
  const std::size_t at = text.find('@');
  if (at == std::string::npos) return bad();
  const std::string kind = text.substr(0, at);
  if (kind == "eio") {
    plan.kind = FaultPlan::Kind::kEio;
  } else if (kind == "short") {
    plan.kind = FaultPlan::Kind::kShort;
  } else {
    return bad();
  }
  const char* first = text.data() + at + 1;
  const char* last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(first, last, plan.nth_read);
  if (first == last || ec != std::errc() || end != last || plan.nth_read == 0) return bad();
  return plan;
}

namespace {

using io_detail::IoClock;
using io_detail::Landed;
using io_detail::Piece;

constexpr std::uint64_t kAlignBytes = 4096;
constexpr std::uint64_t kMaxPieceBytes = 1ull << 30;  // one SQE / pread call at most
constexpr int kMaxTransientRetries = 64;             // EINTR/EAGAIN from the device

std::string hex(const void* p) { return fmt::format("{:#x}", reinterpret_cast<std::uintptr_t>(p)); }

struct Drive {
  std::string path;
  int fd = -1;
  std::uint64_t bytes_in_flight = 0;  // submitted, not yet visibly complete
  IoClock::time_point throttle_free{};  // the modelled server's previous finish
  IoClock::time_point throttle_first{};  // first throttled submit since open/reset
  bool throttle_started = false;
};

struct Op {
  ReadRequest req;               // drive resolved
  std::uint64_t got = 0;         // bytes landed so far (contiguous from offset)
  std::uint64_t piece_from = 0;  // where the current piece starts, relative to offset
  std::uint64_t piece_bytes = 0;
  IoClock::time_point due{};     // throttled finish (epoch when unthrottled)
  FaultPlan::Kind fault = FaultPlan::Kind::kNone;
  int transient_retries = 0;
  bool landed = false;    // the real read is over (ok or failed)
  bool complete = false;  // visible: landed and due
  std::string error;      // empty = ok
};

class ExpertIoImpl final : public ExpertIo {
 public:
  ExpertIoImpl(const IoOptions& options, std::vector<Drive> drives, std::vector<int> side_fds, bool direct,
               std::unique_ptr<io_detail::ReadQueue> queue)
      : options_(options), drives_(std::move(drives)), side_fds_(std::move(side_fds)), direct_(direct),
        queue_(std::move(queue)) {
    counters_.bytes_by_drive.assign(drives_.size(), 0);
    counters_.throttle_span_s_by_drive.assign(drives_.size(), 0.0);
  }
  ~ExpertIoImpl() override {
    // Never start more; let the device finish writing into the caller's
    // buffers before the files and the queue go away.
    backlog_.clear();
    while (!active_.empty()) pump(IoClock::time_point::max());
    queue_.reset();
    for (Drive& d : drives_) ::close(d.fd);
    for (int fd : side_fds_) ::close(fd);
  }
  ExpertIoImpl(const ExpertIoImpl&) = delete;
  ExpertIoImpl& operator=(const ExpertIoImpl&) = delete;

  std::string backend() const override { return queue_->describe(); }
  bool direct() const override { return direct_; }
  int drives() const override { return static_cast<int>(drives_.size()); }
  const IoCounters& counters() const override { return counters_; }
  const std::vector<RecordedRead>& recorded() const override { return recorded_; }
  void clear_recorded() override { recorded_.clear(); }
  std::vector<std::string> file_paths() const override {
    std::vector<std::string> out = options_.paths;
    for (const IoOptions::SideFile& s : options_.side_files) out.push_back(s.path);
    return out;
  }
  void reset_counters() override {
    counters_ = IoCounters{};
    counters_.bytes_by_drive.assign(drives_.size(), 0);
    counters_.throttle_span_s_by_drive.assign(drives_.size(), 0.0);
    for (Drive& d : drives_) d.throttle_started = false;
  }

  Status submit(const ReadRequest& request) override {
    Status st = validate(request);
    if (!st.ok()) return st;
    // Fresh bytes-in-flight figures; queued SQEs stay queued (batching).
    pump(IoClock::time_point::min(), /*flush=*/false);
    Op op;
    op.req = request;
    op.req.drive = request.file >= 0 ? options_.side_files[static_cast<std::size_t>(request.file)].drive
                   : request.drive == kAnyDrive ? least_loaded_drive()
                                                : request.drive;
    Drive& d = drives_[static_cast<std::size_t>(op.req.drive)];
    const auto now = IoClock::now();
    if (options_.throttle_bytes_s) {
      const auto service = std::chrono::duration_cast<IoClock::duration>(
          std::chrono::duration<double>(static_cast<double>(request.bytes) / *options_.throttle_bytes_s));
      op.due = std::max(now, d.throttle_free) + service;
      d.throttle_free = op.due;
      if (!d.throttle_started) {
        d.throttle_started = true;
        d.throttle_first = now;
      }
      counters_.throttle_span_s_by_drive[static_cast<std::size_t>(op.req.drive)] =
          std::chrono::duration<double>(op.due - d.throttle_first).count();
    }
    ++reads_submitted_;
    if (options_.record_reads) {
      const int file = request.file >= 0 ? static_cast<int>(drives_.size()) + request.file : op.req.drive;
      recorded_.push_back({file, request.offset, request.bytes});
    }
    if (outstanding_++ == 0) busy_since_ = now;
    if (options_.fault.kind != FaultPlan::Kind::kNone && reads_submitted_ == options_.fault.nth_read) {
      op.fault = options_.fault.kind;
    }
    d.bytes_in_flight += request.bytes;
    Op& stored = ops_.emplace(request.tag, std::move(op)).first->second;
    if (active_.size() < static_cast<std::size_t>(options_.queue_depth)) {
      start_piece(request.tag, stored);
    } else {
      backlog_.push_back(request.tag);
    }
    return Status::success();
  }

  Status wait(std::uint64_t tag) override {
    auto it = ops_.find(tag);
    if (it == ops_.end()) {
      return make_error("wait(tag " + std::to_string(tag) +
                        "): no read with this tag in flight (never submitted, already waited for, or "
                        "dropped by drain())");
    }
    Op& op = it->second;  // stays valid: unordered_map nodes do not move
    pump(IoClock::time_point::min());
    while (!op.complete) {
      if (op.landed) {
        pump(op.due);  // sleeps precisely until the throttled finish, reaping on the way
      } else if (active_.empty()) {
        return make_error("internal: read tag " + std::to_string(tag) + " is neither queued nor in flight");
      } else {
        pump(IoClock::time_point::max());
      }
    }
    Status result = op.error.empty() ? Status::success() : Status(make_error(op.error));
    ops_.erase(it);
    return result;
  }

  void flush() override { pump(IoClock::time_point::min()); }
  bool done(std::uint64_t tag) override {
    pump(IoClock::time_point::min());
    auto it = ops_.find(tag);
    return it == ops_.end() || it->second.complete;  // unknown: nothing to wait for (wait() says so)
  }

  void drain() override {
    pump(IoClock::time_point::min());
    for (;;) {
      bool real_pending = false;
      bool any_pending = false;
      IoClock::time_point next_due = IoClock::time_point::max();
      for (const auto& [tag, op] : ops_) {
        if (op.complete) continue;
        any_pending = true;
        if (!op.landed) real_pending = true;
        else next_due = std::min(next_due, op.due);
      }
      if (!any_pending) break;
      if (real_pending && active_.empty()) break;  // cannot happen; never hang on it
      pump(real_pending ? IoClock::time_point::max() : next_due);
    }
    ops_.clear();
    landed_.clear();
  }

 private:
  Status validate(const ReadRequest& r) const {
    const std::string what = "read tag " + std::to_string(r.tag) + ": ";
    const std::string why = " (O_DIRECT needs offset, length and destination aligned to 4096 bytes)";
    if (r.drive != kAnyDrive && (r.drive < 0 || r.drive >= drives())) {
      return make_error(what + "drive " + std::to_string(r.drive) + " out of range (" +
                        std::to_string(drives()) + " drive(s): 0.." + std::to_string(drives() - 1) +
                        ", or kAnyDrive)");
    }
    if (r.file >= static_cast<int>(options_.side_files.size())) {
      return make_error(what + "side file " + std::to_string(r.file) + " out of range (" +
                        std::to_string(options_.side_files.size()) + " given)");
    }
    if (r.bytes == 0) return make_error(what + "length is 0 bytes");
    if (r.offset % kAlignBytes != 0) {
      return make_error(what + "offset " + std::to_string(r.offset) + " is not a multiple of 4096" + why);
    }
    if (r.bytes % kAlignBytes != 0) {
      return make_error(what + "length " + std::to_string(r.bytes) + " bytes is not a multiple of 4096" + why);
    }
    if (r.dest == nullptr) return make_error(what + "destination is null");
    if (reinterpret_cast<std::uintptr_t>(r.dest) % kAlignBytes != 0) {
      return make_error(what + "destination " + hex(r.dest) + " is not 4096-aligned" + why);
    }
    if (!options_.buffers.empty() && !inside_buffers(r.dest, r.bytes)) {
      return make_error(what + "destination [" + hex(r.dest) + ", +" + std::to_string(r.bytes) +
                        " bytes) is not inside any of the " + std::to_string(options_.buffers.size()) +
                        " buffer(s) given in IoOptions::buffers");
    }
    if (ops_.count(r.tag) != 0) {
      return make_error(what + "a read with this tag is already in flight (tags must stay unique until "
                        "waited for)");
    }
    return Status::success();
  }

  bool inside_buffers(const void* dest, std::uint64_t bytes) const {
    const auto b = reinterpret_cast<std::uintptr_t>(dest);
    for (const auto& [base, size] : options_.buffers) {
      const auto lo = reinterpret_cast<std::uintptr_t>(base);
      if (b >= lo && b - lo <= size && bytes <= size - (b - lo)) return true;
    }
    return false;
  }

  int least_loaded_drive() const {
    std::size_t best = 0;
    for (std::size_t i = 1; i < drives_.size(); ++i) {
      if (drives_[i].bytes_in_flight < drives_[best].bytes_in_flight) best = i;
    }
    return static_cast<int>(best);
  }

  // Starts the next piece of `op`: from `got`, rounded down to 4096 so that
  // a retry after an unaligned short read stays a valid O_DIRECT request.
  void start_piece(std::uint64_t tag, Op& op) {
    op.piece_from = op.got / kAlignBytes * kAlignBytes;
    op.piece_bytes = std::min(op.req.bytes - op.piece_from, kMaxPieceBytes);
    Piece p;
    p.id = next_piece_id_++;
    p.fd = op.req.file >= 0 ? side_fds_[static_cast<std::size_t>(op.req.file)]
                            : drives_[static_cast<std::size_t>(op.req.drive)].fd;
    p.dest = static_cast<unsigned char*>(op.req.dest) + op.piece_from;
    p.bytes = op.piece_bytes;
    p.offset = op.req.offset + op.piece_from;
    active_.emplace(p.id, tag);
    queue_->start(p);
  }

  std::string where(const Op& op) const {
    const Drive& d = drives_[static_cast<std::size_t>(op.req.drive)];
    const std::string& path = op.req.file >= 0 ? options_.side_files[static_cast<std::size_t>(op.req.file)].path : d.path;
    return "drive " + std::to_string(op.req.drive) + " (" + path + "): ";
  }
  std::string short_read_text(const Op& op, std::uint64_t got) const {
    return where(op) + "short read at offset " + std::to_string(op.req.offset) + ": got " + std::to_string(got) +
           " of " + std::to_string(op.req.bytes) + " bytes (file truncated?)";
  }
  std::string failed_text(const Op& op, int err) const {
    return where(op) + "read of " + std::to_string(op.req.bytes) + " bytes at offset " +
           std::to_string(op.req.offset) + " failed: " + std::strerror(err);
  }

  // One landed piece: retry, continue, or finish the real read.
  void handle(const Landed& l) {
    auto a = active_.find(l.id);
    if (a == active_.end()) return;  // stale (cannot happen; harmless)
    const std::uint64_t tag = a->second;
    active_.erase(a);
    auto it = ops_.find(tag);
    if (it == ops_.end()) return;
    Op& op = it->second;
    if (op.fault != FaultPlan::Kind::kNone) {
      const FaultPlan::Kind fault = op.fault;
      op.fault = FaultPlan::Kind::kNone;
      if (fault == FaultPlan::Kind::kEio) {
        finish_real(op, failed_text(op, EIO) + " (injected fault)");
      } else {
        finish_real(op, short_read_text(op, op.req.bytes / 2) + " (injected fault)");
      }
      return;
    }
    if (l.result < 0) {
      const int err = static_cast<int>(-l.result);
      if ((err == EINTR || err == EAGAIN) && op.transient_retries < kMaxTransientRetries) {
        ++op.transient_retries;
        ++counters_.retries;
        start_piece(tag, op);
        return;
      }
      finish_real(op, failed_text(op, err));
      return;
    }
    const std::uint64_t reached = op.piece_from + static_cast<std::uint64_t>(l.result);
    if (reached >= op.req.bytes) {
      op.got = op.req.bytes;
      finish_real(op, "");
      return;
    }
    if (reached <= op.got) {  // no progress: end of file
      finish_real(op, short_read_text(op, op.got));
      return;
    }
    const bool whole_piece = static_cast<std::uint64_t>(l.result) == op.piece_bytes;
    op.got = reached;
    if (!whole_piece) ++counters_.retries;  // a real short read; the rest is resubmitted
    start_piece(tag, op);
  }

  void finish_real(Op& op, std::string error) {
    op.landed = true;
    op.error = std::move(error);
    landed_.push_back(op.req.tag);
    while (!backlog_.empty() && active_.size() < static_cast<std::size_t>(options_.queue_depth)) {
      const std::uint64_t next = backlog_.front();
      backlog_.pop_front();
      start_piece(next, ops_.at(next));
    }
  }

  // Landed reads whose throttled finish has passed become visible.
  void sweep(IoClock::time_point now) {
    std::size_t keep = 0;
    for (const std::uint64_t tag : landed_) {
      Op& op = ops_.at(tag);
      if (op.due > now) {
        landed_[keep++] = tag;
        continue;
      }
      op.complete = true;
      if (outstanding_ > 0 && --outstanding_ == 0) {
        counters_.busy_s += std::chrono::duration<double>(now - busy_since_).count();
      }
      Drive& d = drives_[static_cast<std::size_t>(op.req.drive)];
      d.bytes_in_flight -= op.req.bytes;
      if (op.error.empty()) {
        ++counters_.reads;
        counters_.bytes += op.req.bytes;
        counters_.bytes_by_drive[static_cast<std::size_t>(op.req.drive)] += op.req.bytes;
      }
    }
    landed_.resize(keep);
  }

  // Hands queued pieces to the device (unless `flush` is false), collects
  // what landed (waiting until `until` if nothing has), updates visibility.
  void pump(IoClock::time_point until, bool flush = true) {
    if (flush) queue_->flush();
    scratch_.clear();
    if (!active_.empty() || until != IoClock::time_point::max()) queue_->reap(scratch_, until);
    for (const Landed& l : scratch_) handle(l);
    sweep(IoClock::now());
  }

  IoOptions options_;
  std::vector<Drive> drives_;
  std::vector<int> side_fds_;  // IoOptions::side_files, opened
  bool direct_ = true;
  std::unique_ptr<io_detail::ReadQueue> queue_;
  std::unordered_map<std::uint64_t, Op> ops_;             // by tag, until waited for
  std::unordered_map<std::uint64_t, std::uint64_t> active_;  // piece id -> tag, at the device
  std::size_t outstanding_ = 0;        // submitted reads not yet visibly complete
  IoClock::time_point busy_since_{};   // when outstanding_ last rose from 0
  std::deque<std::uint64_t> backlog_;                     // tags beyond the queue depth, FIFO
  std::vector<std::uint64_t> landed_;                     // tags landed, not yet visible
  std::vector<Landed> scratch_;
  std::uint64_t next_piece_id_ = 1;
  std::uint64_t reads_submitted_ = 0;
  std::vector<RecordedRead> recorded_;
  IoCounters counters_;
};

}  // namespace

Expected<std::unique_ptr<ExpertIo>> ExpertIo::open(const IoOptions& options) {
  if (options.paths.empty()) return make_error("expert io: no drive files given");
  if (options.queue_depth < 1 || options.queue_depth > 4096) {
    return make_error("expert io: queue depth " + std::to_string(options.queue_depth) + " is not in 1..4096");
  }
  if (options.throttle_bytes_s && !(*options.throttle_bytes_s > 0)) {
    return make_error("expert io: throttle must be a positive number of bytes/s");
  }
  for (const auto& [base, size] : options.buffers) {
    if (base == nullptr || size == 0) return make_error("expert io: a buffer in IoOptions::buffers is null or empty");
  }
  std::vector<Drive> drives;
  bool direct = true;
  const auto close_all = [&drives] {
    for (Drive& d : drives) ::close(d.fd);
  };
  for (std::size_t i = 0; i < options.paths.size(); ++i) {
    bool d_direct = false;
    const int fd = open_read_uncached(options.paths[i], d_direct);
    if (fd < 0) {
      const std::string err = std::strerror(errno);
      close_all();
      return make_error("drive " + std::to_string(i) + " (" + options.paths[i] + "): cannot open: " + err);
    }
    direct = direct && d_direct;
    drives.push_back(Drive{options.paths[i], fd, 0, {}});
  }
  std::vector<int> side_fds;
  for (const IoOptions::SideFile& f : options.side_files) {
    bool f_direct = false;
    const int fd = f.drive >= 0 && f.drive < static_cast<int>(drives.size()) ? open_read_uncached(f.path, f_direct) : -1;
    if (fd < 0) {
      const std::string err = f.drive >= 0 && f.drive < static_cast<int>(drives.size()) ? std::strerror(errno)
                                                                                          : "no such drive";
      close_all();
      for (int s : side_fds) ::close(s);
      return make_error("drive " + std::to_string(f.drive) + " (" + f.path + "): cannot open: " + err);
    }
    direct = direct && f_direct;
    side_fds.push_back(fd);
  }
  std::unique_ptr<io_detail::ReadQueue> queue;
  if (options.backend == IoBackend::kPread) {
    queue = io_detail::make_pread_queue(options.queue_depth, "requested");
  } else {
    auto uring = io_detail::make_uring_queue(options.queue_depth, options.buffers);
    if (uring.ok()) {
      queue = std::move(uring).value();
    } else {
      queue = io_detail::make_pread_queue(options.queue_depth, "io_uring: " + uring.error().message);
    }
  }
  return std::unique_ptr<ExpertIo>(
      std::make_unique<ExpertIoImpl>(options, std::move(drives), std::move(side_fds), direct, std::move(queue)));
}

}  // namespace moebench
