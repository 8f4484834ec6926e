// container_make.cpp — writing containers (see container.h): plan the
// drive's tensors, lay out the GGUF header with placeholder checksums, stream
// generated-and-quantized tensor data behind it, then rewrite the header
// with the real checksums (same length), fsync and rename into place. File
// names, identities and planned headers are in container_names.cpp.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <deque>
#include <future>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <filesystem>
#include <memory>

#include "engines/container/container.h"
#include "engines/container/container_make_internal.h"
#include "engines/container/container_plan.h"
#include "engines/container/gguf_writer.h"
#include "engines/container/weight_gen.h"
#include "vocab/quant_format.h"
#include "engines/quant/kernels_q8.h"
#include "engines/quant/quantize.h"
#include "vocab/file_io.h"
#include "vocab/file_lock.h"
#include "vocab/hash.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {
namespace {

using container_internal::already_made;
using container_internal::Checksums;
using container_internal::metadata;
using container_internal::placeholder_sums;
using container_internal::plan_layout;
using container_internal::record_checksum;


// Appends bytes at increasing offsets through a ring of large 4096-aligned
// buffers: while up to kBuffers - 1 of them are written in the background,
// the caller fills the next, so generation and the disk overlap and the
// disk sees several writes at once (a virtio or NVMe disk writes 16 MiB at
// queue depth 3 far faster than at depth 1). Every write is a multiple of
// 4096 at a 4096-aligned offset (tensors are aligned and the file ends
// aligned), so the file can be opened O_DIRECT: a container is written once
// and read later, the page cache gains nothing.
class SequentialWriter {
 public:
  SequentialWriter(int fd, std::uint64_t start) : fd_(fd), offset_(start) {
    for (auto& b : bufs_) b = aligned_bytes(kBuffer);
  }
  ~SequentialWriter() {
    for (auto& f : inflight_) {
      if (f.valid()) f.wait();
    }
  }
  Status write(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    while (n > 0) {
      const std::size_t take = std::min(n, kBuffer - used_);
      std::memcpy(bufs_[cur_].get() + used_, p, take);
      used_ += take;
      p += take;
      n -= take;
      if (used_ == kBuffer) {
        if (Status st = submit(); !st) return st;
      }
    }
    return Status::success();
  }
  Status pad_to(std::uint64_t file_offset) {
    static const unsigned char zeros[4096] = {};
    while (position() < file_offset) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof zeros, file_offset - position()));
      if (Status st = write(zeros, n); !st) return st;
    }
    return Status::success();
  }
  // Writes everything buffered and waits for all of it.
  Status flush() {
    if (Status st = submit(); !st) return st;
    Status result = Status::success();
    for (int i = 0; i < kBuffers; ++i) {
      if (Status st = wait(i); !st && result) result = st;
    }
    return result;
  }
  std::uint64_t position() const { return offset_ + used_; }

 private:
  Status wait(int i) {
    if (!inflight_[i].valid()) return Status::success();
    std::string err = inflight_[i].get();
    if (!err.empty()) return make_error(err);
    return Status::success();
  }
  // Hands the current buffer to a background write and moves to the next
  // buffer, waiting until that one's earlier write has finished.
  Status submit() {
    if (used_ > 0) {
      unsigned char* data = bufs_[cur_].get();
      const std::size_t len = used_;
      const std::uint64_t at = offset_;
      const int fd = fd_;
      inflight_[cur_] = std::async(std::launch::async, [data, len, at, fd]() -> std::string {
        std::size_t done = 0;
        while (done < len) {
          const ssize_t w = ::pwrite(fd, data + done, len - done, static_cast<off_t>(at + done));
          if (w <= 0) return std::string("write failed: ") + std::strerror(errno) + " (disk full?)";
          done += static_cast<std::size_t>(w);
        }
        return std::string();
      });
      offset_ += used_;
      used_ = 0;
      cur_ = (cur_ + 1) % kBuffers;
    }
    return wait(cur_);  // the buffer about to be filled is free again
  }

  static constexpr std::size_t kBuffer = 16u << 20;
  static constexpr int kBuffers = 4;
  int fd_;
  std::uint64_t offset_;
  AlignedBytes bufs_[kBuffers];
  std::future<std::string> inflight_[kBuffers];
  int cur_ = 0;
  std::size_t used_ = 0;
};

// A regular file at `path` that is not the one to write is removed before
// the new one is written (it would be replaced anyway): its blocks are free
// for the new file, so an outdated container does not double the need.
void remove_outdated(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(path.c_str());
}

Status check_space(const std::string& dir, std::uint64_t bytes, const std::string& what) {
  auto avail = free_bytes(dir);
  if (!avail) return avail.error();
  if (*avail < bytes + kContainerHeadroomBytes) {
    return make_error(dir + ": the " + what + " needs " + format_bytes(static_cast<double>(bytes)) + " (+ " +
                      format_bytes(static_cast<double>(kContainerHeadroomBytes)) + " kept free) but only " +
                      format_bytes(static_cast<double>(*avail)) + " is free; free space, scale the card down "
                      "(--scale) or pick another drive directory");
  }
  return Status::success();
}

// Reserves the whole file up front: a full disk fails now rather than
// hours in, and writes into allocated blocks do not extend the file, so
// ext4 lets several O_DIRECT writes be in flight at once (file-extending
// direct writes are serialised). Filesystems without fallocate just skip it.
Status preallocate(int fd, std::uint64_t bytes) {
  if (::fallocate(fd, 0, 0, static_cast<off_t>(bytes)) == 0) return Status::success();
  if (errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL) return Status::success();
  return make_error(std::string("cannot reserve ") + format_bytes(static_cast<double>(bytes)) + ": " +
                    std::strerror(errno) + " (free space on the drive directory)");
}
// A run of rows from one generator stream: a trunk tensor, or one expert's
// slice of one matrix.
struct RowSegment {
  std::uint64_t tid = 0;
  std::uint64_t rows = 0;
  std::uint64_t row_len = 0;
  bool norm = false;
  bool rows8 = false;  // emitted in the 8-row interleaved layout (kernels_q8.h)
};

// Runs produce(i, slot) for i = 0..n−1 on one worker per core, in order,
// into a ring of kWindow slots, while this thread runs consume(i, slot) in
// order; in-order work keeps the slot this thread waits for at the front of
// the queue. A failed consume stops the workers; its Status is returned.
template <typename Slot, typename Produce, typename Consume>
Status in_order_parallel(std::size_t n, Produce&& produce, Consume&& consume) {
  constexpr std::size_t kWindow = 96;
  std::vector<Slot> ring(kWindow);
  std::vector<char> ready(kWindow, 0);
  std::mutex mu;
  std::condition_variable cv;
  std::size_t next = 0, consumed = 0;
  bool abort = false;
  const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w) {
    pool.emplace_back([&] {
      for (;;) {
        std::size_t i = 0;
        {
          std::unique_lock<std::mutex> lock(mu);
          cv.wait(lock, [&] { return abort || next >= n || next < consumed + kWindow; });
          if (abort || next >= n) return;
          i = next++;
        }
        produce(i, ring[i % kWindow]);
        {
          std::lock_guard<std::mutex> lock(mu);
          ready[i % kWindow] = 1;
        }
        cv.notify_all();
      }
    });
  }
  Status result = Status::success();
  for (std::size_t i = 0; i < n && result; ++i) {
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return ready[i % kWindow] != 0; });
    }
    result = consume(i, ring[i % kWindow]);
    {
      std::lock_guard<std::mutex> lock(mu);
      ready[i % kWindow] = 0;
      consumed = i + 1;
      if (!result) abort = true;
    }
    cv.notify_all();
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    abort = true;
  }
  cv.notify_all();
  for (std::thread& th : pool) th.join();
  return result;
}

// Generates every segment's rows in `quant` and feeds the bytes to
// sink(segment, data, n, segment_done) in order. Rows are produced in chunks
// of about 1 MiB (whole groups of 8 rows for rows8 segments, interleaved
// by the worker) by one worker per core (up to 96 chunks ahead, across
// segment boundaries) while the caller hashes and writes the chunks before.
template <typename Sink>
Status emit_segments(const WeightGenerator& gen, const std::vector<RowSegment>& segments, const std::string& quant,
                     QuantSearch search,
                     Sink&& sink) {
  const QuantFormat f = *find_quant(quant);
  for (const RowSegment& seg : segments) {
    if (seg.rows8 && !has_rows8_layout(quant, static_cast<std::size_t>(seg.rows), static_cast<std::size_t>(seg.row_len))) {
      return make_error("internal error: a " + quant + " segment of " + std::to_string(seg.rows) + "x" +
                        std::to_string(seg.row_len) + " has no 8-row layout");
    }
  }
  struct Task {
    std::size_t segment;
    std::uint64_t r0, r1;
    bool last;
  };
  std::vector<Task> tasks;
  for (std::size_t s = 0; s < segments.size(); ++s) {
    const std::uint64_t row_bytes = f.bytes_for(segments[s].row_len);
    std::uint64_t per = std::max<std::uint64_t>(1, (1u << 20) / std::max<std::uint64_t>(row_bytes, 1));
    if (segments[s].rows8) per = std::max<std::uint64_t>(kRows8, per / kRows8 * kRows8);
    for (std::uint64_t r0 = 0; r0 < segments[s].rows; r0 += per) {
      const std::uint64_t r1 = std::min(segments[s].rows, r0 + per);
      tasks.push_back({s, r0, r1, r1 == segments[s].rows});
    }
  }
  struct Chunk {
    std::vector<unsigned char> bytes;  // reused: fresh pages cost first-touch faults
    std::string error;
  };
  auto produce = [&](std::size_t i, Chunk& out) {
    const Task& t = tasks[i];
    out.error.clear();
    const RowSegment& seg = segments[t.segment];
    const std::uint64_t row_bytes = f.bytes_for(seg.row_len);
    out.bytes.resize((t.r1 - t.r0) * row_bytes);
    std::vector<float> fbuf(seg.row_len);
    for (std::uint64_t r = t.r0; r < t.r1; ++r) {
      if (seg.norm) {
        gen.fill_norm(seg.tid + r, fbuf.data(), seg.row_len);
      } else {
        gen.fill_row(seg.tid, r, fbuf.data(), seg.row_len);
      }
      if (Status st = quantize(quant, fbuf.data(), out.bytes.data() + (r - t.r0) * row_bytes, seg.row_len,
                               best_simd_level(), search);
          !st) {
        out.error = st.error().message;
        return;
      }
    }
    if (seg.rows8) {
      if (Status st = interleave_rows8(quant, out.bytes.data(), static_cast<std::size_t>(t.r1 - t.r0),
                                       static_cast<std::size_t>(seg.row_len));
          !st) {
        out.error = st.error().message;
      }
    }
  };
  auto consume = [&](std::size_t i, Chunk& c) -> Status {
    if (!c.error.empty()) return make_error(c.error);
    return sink(tasks[i].segment, c.bytes.data(), c.bytes.size(), tasks[i].last);
  };
  return in_order_parallel<Chunk>(tasks.size(), produce, consume);
}

// Writes planned tensors through one writer, each tensor's bytes generated
// and quantized in order, and fills in their checksums: a trunk tensor's
// XXH64 of its bytes; an expert tensor's XXH64 of its slices' XXH64s in
// file order (the bytes are hashed once, per slice), and each held
// expert's record checksum.
struct TensorEmitter {
  using ToFile = std::function<Status(const void*, std::size_t)>;
  const ContainerSpec& spec;
  const WeightGenerator& gen;
  QuantSearch search;
  SequentialWriter& w;
  const std::vector<int>& held;
  Checksums& sums;
  std::vector<std::array<std::uint64_t, 3>> slice_digests = {};  // split experts: per held expert, gate/up/down

  Status emit(const PlannedTensor& p) {
    const bool expert_tensor = p.kind == PlannedTensor::Kind::kExperts || p.kind == PlannedTensor::Kind::kPacked;
    Xxh64 tensor_hash;
    std::vector<std::uint64_t> slice_list;
    const ToFile to_file = [&](const void* d, std::size_t n) {
      if (!expert_tensor) tensor_hash.update(d, n);
      return w.write(d, n);
    };
    Status st = p.kind == PlannedTensor::Kind::kExperts ? emit_split(p, to_file, slice_list)
                : p.kind == PlannedTensor::Kind::kPacked ? emit_packed(p, to_file, slice_list)
                                                         : emit_trunk(p, to_file);
    if (!st) return st;
    sums.tensors[p.info.name] =
        hex64(expert_tensor ? xxh64(slice_list.data(), slice_list.size() * 8) : tensor_hash.digest());
    return Status::success();
  }

  Status emit_trunk(const PlannedTensor& p, const ToFile& to_file) {
    return emit_segments(gen, {{tensor_id(p.info.name), p.rows, p.row_len, p.kind == PlannedTensor::Kind::kNorm}},
                         p.quant, search, [&](std::size_t, const void* d, std::size_t n, bool) { return to_file(d, n); });
  }

  // One matrix (gate, up or down) of every held expert; after the down
  // matrix, the layer's record checksums.
  Status emit_split(const PlannedTensor& p, const ToFile& to_file, std::vector<std::uint64_t>& slice_list) {
    if (p.matrix == 0) slice_digests.assign(held.size(), {0, 0, 0});
    std::vector<RowSegment> segs;
    const bool rows8 =
        spec.rows8 && has_rows8_layout(p.quant, static_cast<std::size_t>(p.rows), static_cast<std::size_t>(p.row_len));
    for (int e : held) segs.push_back({tensor_id(p.info.name, static_cast<std::uint64_t>(e)), p.rows, p.row_len, false, rows8});
    Xxh64 slice;
    Status st = emit_segments(gen, segs, p.quant, search, [&](std::size_t j, const void* d, std::size_t n, bool last) {
      slice.update(d, n);
      if (last) {
        slice_digests[j][static_cast<std::size_t>(p.matrix)] = slice.digest();
        slice_list.push_back(slice.digest());
        slice = Xxh64();
      }
      return to_file(d, n);
    });
    if (p.matrix == 2) {
      Json& list = sums.records[std::to_string(p.layer)];
      for (std::size_t j = 0; j < held.size(); ++j) list[j] = record_checksum(slice_digests[j].data());
    }
    return st;
  }

  // Packed: gate‖up‖down per expert, padded to 4096; the same values as split.
  Status emit_packed(const PlannedTensor& p, const ToFile& to_file, std::vector<std::uint64_t>& slice_list) {
    const std::uint64_t ed = static_cast<std::uint64_t>(spec.card.moe.expert_dim);
    const std::uint64_t inter = static_cast<std::uint64_t>(spec.card.moe.expert_intermediate);
    Json& list = sums.records[std::to_string(p.layer)];
    const std::uint64_t pad = padded_record_bytes(spec) - expert_record_bytes(spec);
    const std::vector<unsigned char> zeros(pad, 0);
    std::vector<RowSegment> segs;
    for (int e : held) {
      for (int m = 0; m < 3; ++m) {
        const std::uint64_t rows = m == 2 ? ed : inter, len = m == 2 ? inter : ed;
        const bool rows8 = spec.rows8 && has_rows8_layout(p.quant, static_cast<std::size_t>(rows), static_cast<std::size_t>(len));
        segs.push_back({tensor_id(expert_tensor_name(p.layer, m), static_cast<std::uint64_t>(e)), rows, len, false, rows8});
      }
    }
    Xxh64 slice;
    std::uint64_t digests[3] = {0, 0, 0};
    return emit_segments(gen, segs, p.quant, search, [&](std::size_t k, const void* d, std::size_t n, bool last) {
      slice.update(d, n);
      Status written = to_file(d, n);
      if (last) {
        digests[k % 3] = slice.digest();
        slice_list.push_back(digests[k % 3]);
        slice = Xxh64();
        if (k % 3 == 2) {  // record complete: its checksum, then the padding
          list[k / 3] = record_checksum(digests);
          if (written && pad > 0) written = to_file(zeros.data(), zeros.size());
        }
      }
      return written;
    });
  }
};

// Writes (or reuses) the trunk file, or drive `drive`'s expert file, which
// records `trunk_checksum` (the trunk it pairs with).
Expected<ContainerFile> make_one(const ContainerSpec& spec, ContainerPart part, int drive,
                                 const std::string& trunk_checksum, Progress& progress) {
  ContainerFile out;
  out.drive = drive;
  out.part = part;
  out.path = part == ContainerPart::kTrunk ? trunk_file_path(spec) : expert_file_path(spec, drive);
  std::vector<PlannedTensor> plan = plan_part(spec, part, drive);
  const std::vector<int> held = part == ContainerPart::kTrunk ? std::vector<int>{} : experts_on_drive(spec, drive);
  Checksums sums = placeholder_sums(plan, held.size());
  std::vector<GgufTensorInfo> infos;
  auto layout = plan_layout(spec, part, drive, plan, infos);
  if (!layout) return layout.error();
  const std::uint64_t total = layout->data_offset + layout->data_bytes;
  out.bytes = total;

  if (already_made(out.path, total, spec, part, drive, trunk_checksum)) {
    out.reused = true;
    return out;
  }
  remove_outdated(out.path);
  const std::string what = part == ContainerPart::kTrunk ? "trunk file" : "expert file";
  if (Status st = check_space(spec.drive_dirs[static_cast<std::size_t>(drive)], total, what); !st) {
    return st.error();
  }
  AtomicFileOptions fo;
  fo.direct = true;          // a container is written once and read later: the page cache gains nothing
  fo.temp_tag = "partial";   // one fixed temporary: an interrupted make's leftover is replaced, never piled up
  fo.unique = false;
  auto file = AtomicFile::create(out.path, fo);
  if (!file) return file.error();
  const int fd = file->fd();
  auto fail = [&](const std::string& why) {
    file->discard();
    return make_error(out.path + ": " + why);
  };
  if (Status st = preallocate(fd, total); !st) return fail(st.error().message);
  const auto t0 = std::chrono::steady_clock::now();
  SequentialWriter w(fd, layout->data_offset);
  const WeightGenerator gen(spec.seed);
  TensorEmitter emitter{spec, gen, spec.quantizer == "ggml" ? QuantSearch::kGgml : QuantSearch::kFast, w, held, sums};
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const PlannedTensor& p = plan[i];
    if (Status st = w.pad_to(layout->data_offset + infos[i].offset); !st) return fail(st.error().message);
    progress.phase((part == ContainerPart::kTrunk ? std::string("trunk: ") : "drive " + std::to_string(drive) + ": ") +
                       p.info.name,
                   static_cast<double>(w.position()) / static_cast<double>(total));
    if (Status st = emitter.emit(p); !st) return fail(st.error().message);
  }
  if (Status st = w.pad_to(total); !st) return fail(st.error().message);
  if (Status st = w.flush(); !st) return fail(st.error().message);
  // The real checksums: same length as the placeholders, so the header size is unchanged.
  std::vector<GgufTensorInfo> infos2;
  for (const PlannedTensor& p : plan) infos2.push_back(p.info);
  auto final_layout = gguf_layout(metadata(spec, part, drive, sums, trunk_checksum), infos2, kContainerAlignment);
  if (!final_layout || final_layout->header.size() != layout->header.size()) {
    return fail("internal error: the header changed size when checksums were filled in");
  }
  const AlignedBytes header = aligned_bytes(final_layout->header.size());
  std::memcpy(header.get(), final_layout->header.data(), final_layout->header.size());
  if (Status st = file->pwrite_all(header.get(), final_layout->header.size(), 0); !st) {
    return fail("writing the header failed: " + st.error().message);
  }
  if (Status st = file->commit(); !st) return fail(st.error().message);
  out.write_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

// A replica is a byte copy of drive 0's file (temporary name, fsync, rename).
Expected<ContainerFile> copy_replica(const ContainerFile& first, const ContainerSpec& spec, int drive,
                                     const std::string& trunk_checksum, Progress& progress) {
  ContainerFile out = first;
  out.drive = drive;
  out.reused = false;
  out.path = expert_file_path(spec, drive);
  const auto t0 = std::chrono::steady_clock::now();
  // Two drive directories on one filesystem are one device: a second copy
  // there would double the disk used and read the same device. The replica
  // is then a hard link to drive 0's file (one inode, the row says so).
  struct stat first_st {}, dir_st {};
  if (::stat(first.path.c_str(), &first_st) == 0 &&
      ::stat(spec.drive_dirs[static_cast<std::size_t>(drive)].c_str(), &dir_st) == 0 && first_st.st_dev == dir_st.st_dev) {
    out.hard_link_of = first.path;
    struct stat out_st {};
    if (::stat(out.path.c_str(), &out_st) == 0 && out_st.st_ino == first_st.st_ino && out_st.st_dev == first_st.st_dev) {
      out.reused = true;
      return out;
    }
    remove_outdated(out.path);
    if (Status st = link_file_atomic(first.path, out.path, "partial"); !st) return st.error();
    out.write_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
  }
  if (already_made(out.path, first.bytes, spec, ContainerPart::kExperts, drive, trunk_checksum)) {
    out.reused = true;
    return out;
  }
  remove_outdated(out.path);
  if (Status st = check_space(spec.drive_dirs[static_cast<std::size_t>(drive)], first.bytes, "replica"); !st) {
    return st.error();
  }
  // O_DIRECT both ways where allowed (container files are 4096-aligned in
  // size): a copy through the page cache only evicts what engines keep there.
  bool direct = false;
  const int in = open_read_uncached(first.path, direct);
  if (in < 0) return make_error(first.path + ": cannot read it to copy the replica: " + std::strerror(errno));
  AtomicFileOptions fo;
  fo.direct = true;
  fo.temp_tag = "partial";
  fo.unique = false;
  auto file = AtomicFile::create(out.path, fo);
  if (!file) {
    ::close(in);
    return file.error();
  }
  constexpr std::size_t kCopyBuffer = 16u << 20;
  const AlignedBytes buf = aligned_bytes(kCopyBuffer);
  std::uint64_t done = 0;
  Status st = Status::success();
  while (done < first.bytes && st) {
    const ssize_t r = ::pread(in, buf.get(), kCopyBuffer, static_cast<off_t>(done));
    if (r <= 0) {
      st = make_error(first.path + ": read failed while copying");
      break;
    }
    st = file->pwrite_all(buf.get(), static_cast<std::size_t>(r), done);
    done += static_cast<std::uint64_t>(r);
    progress.phase("drive " + std::to_string(drive) + ": copying the replica",
                   static_cast<double>(done) / static_cast<double>(first.bytes));
  }
  ::close(in);
  if (st) st = file->commit();
  if (!st) return st.error();  // the temporary is removed with `file`
  out.write_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace

namespace {

bool every_part_present(const ContainerSpec& spec) {
  if (!container_part_present(trunk_file_path(spec), spec, ContainerPart::kTrunk, 0)) return false;
  for (int d = 0; d < static_cast<int>(spec.drive_dirs.size()); ++d) {
    if (!container_part_present(expert_file_path(spec, d), spec, ContainerPart::kExperts, d)) return false;
  }
  return true;
}

}  // namespace

Expected<ContainerFiles> make_container(const ContainerSpec& spec, Progress& progress) {
  constexpr const char* kMakeLockName = ".moebench-make.lock";
  if (spec.drive_dirs.empty()) return make_error("container make: give at least one --drive directory");
  if (spec.drive_layout != "replicate" && spec.drive_layout != "stripe") {
    return make_error("container make: unknown layout \"" + spec.drive_layout + "\"; use replicate or stripe");
  }
  if (!find_quant(spec.quant)) return make_error("container make: unknown quant \"" + spec.quant + "\"");
  if (!find_quant(spec.card.trunk_quant)) {
    return make_error("container make: the card's trunk_quant \"" + spec.card.trunk_quant + "\" is not a known quant");
  }
  if (const std::string fit = quant_fits_card(spec.card, spec.quant); !fit.empty()) return make_error(fit);
  for (const std::string& dir : spec.drive_dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
      return make_error(dir + ": drive directory does not exist (create it first)");
    }
  }
  // Another process may be making these files now (a shard of the same
  // sweep, here or on a machine sharing the directory): one maker per drive
  // directory at a time (the lock file .moebench-make.lock beside them);
  // the next finds the files made and reuses them.
  // A directory that refuses the lock file (read-only) but already holds
  // every file is used as it is: there is nothing to make.
  auto lock = FileLock::acquire((std::filesystem::path(spec.drive_dirs.front()) / kMakeLockName).string());
  if (!lock && !every_part_present(spec)) return make_error("container make: " + lock.error().message);
  ContainerFiles files;
  // The trunk first (drive 0): every expert file records its checksum table.
  auto trunk = make_one(spec, ContainerPart::kTrunk, 0, "", progress);
  if (!trunk) return trunk.error();
  files.trunk = *trunk;
  auto trunk_header = read_gguf(files.trunk.path);
  if (!trunk_header) return trunk_header.error();
  const std::string trunk_sum = trunk_checksum_of(*trunk_header);
  if (trunk_sum.empty()) return make_error(files.trunk.path + ": the trunk file has no moebench.checksums");
  for (int d = 0; d < static_cast<int>(spec.drive_dirs.size()); ++d) {
    if (spec.drive_layout == "replicate" && d > 0) {
      auto f = copy_replica(files.experts[0], spec, d, trunk_sum, progress);
      if (!f) return f.error();
      files.experts.push_back(*f);
      continue;
    }
    auto f = make_one(spec, ContainerPart::kExperts, d, trunk_sum, progress);
    if (!f) return f.error();
    files.experts.push_back(*f);
  }
  return files;
}

}  // namespace moebench
