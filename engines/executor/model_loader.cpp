// model_loader.cpp — see model_loader.h.
#include "engines/executor/model_loader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "vocab/file_io.h"
#include "vocab/units.h"

namespace moebench {

Expected<HugeArena> HugeArena::allocate(std::uint64_t bytes) {
  HugeArena a;
  if (bytes == 0) return a;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    return make_error("cannot map " + format_bytes(static_cast<double>(bytes)) + " of memory: " +
                      std::strerror(errno));
  }
#if defined(MADV_HUGEPAGE)
  (void)::madvise(p, bytes, MADV_HUGEPAGE);
#endif
  a.data_ = static_cast<std::uint8_t*>(p);
  a.size_ = bytes;
  return a;
}

HugeArena::HugeArena(HugeArena&& o) noexcept : data_(o.data_), size_(o.size_) {
  o.data_ = nullptr;
  o.size_ = 0;
}

HugeArena& HugeArena::operator=(HugeArena&& o) noexcept {
  if (this != &o) {
    if (data_) ::munmap(data_, size_);
    data_ = o.data_;
    size_ = o.size_;
    o.data_ = nullptr;
    o.size_ = 0;
  }
  return *this;
}

HugeArena::~HugeArena() {
  if (data_) ::munmap(data_, size_);
}

Expected<LoadedRange> load_range(const std::string& path, std::uint64_t begin, std::uint64_t end, bool try_mlock) {
  constexpr std::uint64_t kAlign = 4096;
  if (begin % kAlign != 0) return make_error(path + ": load range must start 4096-aligned");
  end = (end + kAlign - 1) / kAlign * kAlign;
  const auto t0 = std::chrono::steady_clock::now();
  bool direct = false;
  const int fd = open_read_uncached(path, direct);
  if (fd < 0) return make_error(path + ": cannot open: " + std::strerror(errno));
  const off_t file_size = ::lseek(fd, 0, SEEK_END);
  const std::uint64_t size = file_size > 0 ? static_cast<std::uint64_t>(file_size) : 0;
  if (begin >= end || begin >= size) {
    ::close(fd);
    return make_error(path + ": nothing to load in [" + std::to_string(begin) + ", " + std::to_string(end) + ")");
  }
  auto arena = HugeArena::allocate(end - begin);
  if (!arena) {
    ::close(fd);
    return arena.error();
  }
  LoadedRange r;
  r.arena = std::move(*arena);
  r.file_offset = begin;
  // Chunks of 32 MiB, four readers: enough in flight to keep an NVMe or
  // virtio queue busy; each reader takes the next chunk from a counter.
  constexpr std::uint64_t kChunk = 32u << 20;
  const std::uint64_t chunks = (end - begin + kChunk - 1) / kChunk;
  std::atomic<std::uint64_t> next{0};
  std::atomic<std::uint64_t> total{0};
  std::string error;
  std::atomic<bool> failed{false};
  std::mutex mu;
  auto reader = [&] {
    for (;;) {
      const std::uint64_t c = next.fetch_add(1);
      if (c >= chunks || failed.load()) return;
      const std::uint64_t off = begin + c * kChunk;
      const std::uint64_t want = std::min(kChunk, end - off);
      std::uint64_t got = 0;
      while (got < want) {
        const ssize_t n = ::pread(fd, r.arena.data() + (off - begin) + got, want - got, static_cast<off_t>(off + got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          // The file may end before the rounded-up end: zero the tail.
          if (n == 0 && off + got >= size) {
            std::memset(r.arena.data() + (off - begin) + got, 0, want - got);
            break;
          }
          std::lock_guard<std::mutex> lock(mu);
          if (error.empty()) {
            error = path + ": read at offset " + std::to_string(off + got) + " failed: " +
                    (n < 0 ? std::strerror(errno) : "unexpected end of file");
          }
          failed = true;
          return;
        }
        got += static_cast<std::uint64_t>(n);
      }
      total += got;
    }
  };
  std::vector<std::thread> readers;
  for (int i = 0; i < 4; ++i) readers.emplace_back(reader);
  for (std::thread& t : readers) t.join();
  ::close(fd);
  if (failed) return make_error(error);
  r.bytes_read = total.load();
  r.method = direct ? "O_DIRECT reads into anonymous memory (THP advised)" : "buffered reads (O_DIRECT refused)";
  if (try_mlock) {
    if (::mlock(r.arena.data(), r.arena.size()) == 0) {
      r.locked = true;
      r.method += ", mlocked";
    } else {
      r.method += std::string(", mlock refused (") + std::strerror(errno) + ")";
    }
  }
  r.load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

Expected<QuantFormat> format_of(const GgufTensorInfo& t) {
  for (const QuantFormat& f : quant_formats()) {
    if (f.ggml_type == t.ggml_type) return f;
  }
  return make_error("tensor " + t.name + " has ggml type " + std::to_string(t.ggml_type) +
                    ", which the executor has no kernel for");
}

Expected<TensorView> tensor_view(const GgufFile& g, const LoadedRange& r, const std::string& name) {
  const GgufTensorInfo* t = g.tensor(name);
  if (!t) return make_error(g.label + ": no tensor " + name + " (container made for another card?)");
  auto f = format_of(*t);
  if (!f) return f.error();
  const std::uint64_t start = g.data_offset + t->offset;
  if (start < r.file_offset || start + t->bytes > r.file_offset + r.arena.size()) {
    return make_error(g.label + ": tensor " + name + " lies outside the loaded range");
  }
  TensorView v;
  v.data = r.arena.data() + (start - r.file_offset);
  v.format = *f;
  v.row_len = t->ne.empty() ? 1 : t->ne[0];
  v.rows = t->ne.size() < 2 ? 1 : t->elements() / v.row_len;
  return v;
}

}  // namespace moebench
