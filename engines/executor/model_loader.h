// model_loader.h — brings a byte range of a container file into RAM for the
// executor: the whole file (resident engine) or the trunk tensors at its
// front (streaming engine), and names the tensors in it.
//
// Memory is anonymous, advised for transparent huge pages (first touch of
// 4 KiB pages costs more than the disk read on small VMs), and filled with
// O_DIRECT reads, several in flight, so the page cache neither doubles the
// footprint nor flatters the next run. How it was loaded is reported
// (`method`) and goes into the row. mlock is attempted when asked and
// allowed; its outcome is reported, never assumed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "engines/container/gguf.h"
#include "engines/executor/tensor_ops.h"
#include "vocab/expected.h"

namespace moebench {

// Anonymous memory of a fixed size, released on destruction.
class HugeArena {
 public:
  HugeArena() = default;
  static Expected<HugeArena> allocate(std::uint64_t bytes);
  HugeArena(HugeArena&& o) noexcept;
  HugeArena& operator=(HugeArena&& o) noexcept;
  HugeArena(const HugeArena&) = delete;
  HugeArena& operator=(const HugeArena&) = delete;
  ~HugeArena();
  std::uint8_t* data() const { return data_; }
  std::uint64_t size() const { return size_; }

 private:
  std::uint8_t* data_ = nullptr;
  std::uint64_t size_ = 0;
};

struct LoadedRange {
  HugeArena arena;
  std::uint64_t file_offset = 0;  // file offset of arena.data()[0]
  std::uint64_t bytes_read = 0;
  double load_s = 0;
  std::string method;             // "O_DIRECT reads into anonymous memory (THP)", "+ mlock" ...
  bool locked = false;
};

// Reads [begin, end) of `path` (begin a multiple of 4096; end rounded up).
Expected<LoadedRange> load_range(const std::string& path, std::uint64_t begin, std::uint64_t end, bool try_mlock);

// The view of tensor `name` in a loaded range (which must hold all of it).
Expected<TensorView> tensor_view(const GgufFile& g, const LoadedRange& r, const std::string& name);

// The format of a GGUF tensor (by ggml type); error for types we have no
// kernel for.
Expected<QuantFormat> format_of(const GgufTensorInfo& t);

}  // namespace moebench
