// trunk_stream.h — the streaming engine's trunk streaming: where each layer's
// trunk tensors lie in the trunk file, and the TrunkSource that reads the
// unpinned layers' trunk from the drive every forward pass.
//
// Layout (container_plan.h): the trunk file holds blk.0.*, blk.1.*, …, then
// the model-level tensors (token_embd, output, output_norm), each tensor
// 4096-aligned. A layer's span is [its first tensor's offset, its last
// tensor's end rounded up to 4096): the layers' spans tile the front of the
// data section, so a pinned prefix of layers is one contiguous range, and a
// streamed layer is one O_DIRECT read of exactly its span. The bytes a
// streamed layer costs per pass are therefore its tensors' bytes, each
// rounded up to 4096 (the padding GGUF alignment puts between tensors).
//
// Reads (TrunkStreamer): per forward pass, the streamed layers
// (pinned..L−1) are read in order into staging buffers — two when two or
// more layers stream, one otherwise. The first read(s) go out when the pass
// begins (layer 0 asks for its weights), so they overlap the pinned layers'
// compute; when a streamed layer finishes, its buffer takes the read two
// layers ahead, so layer l+1's read overlaps layer l's compute. Every read
// of a pass is waited for within that pass, so the engine's read counters at
// token boundaries hold exactly that token's trunk bytes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engines/container/gguf.h"
#include "engines/executor/executor.h"
#include "engines/io/expert_io.h"
#include "vocab/model_card.h"

namespace moebench {

struct FileSpan {
  std::uint64_t offset = 0;  // file offset, 4096-aligned
  std::uint64_t bytes = 0;   // multiple of 4096
  std::uint64_t end() const { return offset + bytes; }
};

struct TrunkLayout {
  std::vector<FileSpan> layers;  // per layer (all layers), in order, contiguous
  FileSpan head;                 // embedding, lm_head, final norm
};

// The layout of a trunk file of `card`: an error when a layer's tensors are
// not one contiguous run, or the model-level tensors are not after them.
Expected<TrunkLayout> trunk_layout(const ModelCard& card, const GgufFile& trunk);

// The layer index of a trunk tensor name ("blk.12.attn_q.weight" → 12), or
// -1 for a model-level tensor.
int trunk_tensor_layer(const std::string& name);

class TrunkStreamer final : public TrunkSource {
 public:
  // Layers [pinned, layout.layers.size()) stream through `buffers` (the
  // second unused when one layer streams); views[b] is the trunk bound with
  // those layers' tensors in buffers[b]. `side_file`: the trunk file's index
  // in the ExpertIo's IoOptions::side_files.
  TrunkStreamer(ExpertIo& io, int side_file, const TrunkLayout& layout, int pinned,
                std::array<std::uint8_t*, 2> buffers, std::array<const TrunkWeights*, 2> views);
  Expected<const TrunkLayer*> layer_weights(int layer) override;
  void layer_done(int layer) override;

  int streamed_layers() const { return n_; }
  int buffers() const { return nbuf_; }
  std::uint64_t bytes_read() const { return bytes_read_; }  // trunk bytes of completed reads
  double io_wait_s = 0;  // compute blocked on trunk reads

 private:
  Status issue();  // the next ordinal of this pass into its buffer
  std::uint64_t tag(int ordinal) const { return kTagBase + pass_ * 1024ull * 1024ull + static_cast<std::uint64_t>(ordinal); }

  static constexpr std::uint64_t kTagBase = 1ull << 62;  // clear of the expert source's slot tags
  ExpertIo& io_;
  int side_file_;
  std::vector<FileSpan> spans_;  // streamed layers, by ordinal
  int pinned_, n_, nbuf_;
  std::array<std::uint8_t*, 2> buffers_;
  std::array<const TrunkWeights*, 2> views_;
  std::uint64_t pass_ = 0;
  int issued_ = 0, consumed_ = 0;
  Status deferred_ = Status::success();  // a submit that failed in layer_done
  std::uint64_t bytes_read_ = 0;
};

}  // namespace moebench
