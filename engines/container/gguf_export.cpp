// gguf_export.cpp — see gguf_export.h.
#include "engines/container/gguf_export.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <numeric>

#include "engines/container/container_plan.h"
#include "engines/container/gguf.h"
#include "engines/container/gguf_writer.h"
#include "engines/quant/dequantize.h"
#include "engines/quant/quantize.h"
#include "vocab/file_io.h"
#include "vocab/quant_format.h"

namespace moebench {
namespace {

constexpr std::uint64_t kExportAlignment = 32;  // llama.cpp's default; mmap needs no more
constexpr std::size_t kCopyChunk = 8u << 20;
constexpr std::uint32_t kGgmlF32 = 0;

std::string blk(int layer, const std::string& suffix) { return "blk." + std::to_string(layer) + "." + suffix; }

// A container file opened for reading tensor bytes.
struct Source {
  std::string path;
  GgufFile header;
  int fd = -1;
  ~Source() {
    if (fd >= 0) ::close(fd);
  }
  Status read(std::uint64_t offset, void* dst, std::size_t n) const {
    auto* p = static_cast<unsigned char*>(dst);
    while (n > 0) {
      const ssize_t got = ::pread(fd, p, n, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        return make_error(path + ": read of " + std::to_string(n) + " bytes at offset " + std::to_string(offset) +
                          " failed: " + (got < 0 ? std::strerror(errno) : "end of file"));
      }
      p += got;
      n -= static_cast<std::size_t>(got);
      offset += static_cast<std::uint64_t>(got);
    }
    return Status::success();
  }
};

Status open_source(const std::string& path, Source& s) {
  auto g = read_gguf(path);
  if (!g) return g.error();
  s.path = path;
  s.header = std::move(*g);
  s.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (s.fd < 0) return make_error(path + ": cannot open: " + std::strerror(errno));
  return Status::success();
}

// One output tensor: its table entry and how its bytes are produced.
struct Planned {
  GgufTensorInfo info;
  bool converted = false;
  std::function<Status(std::string& out)> bytes;  // appends exactly info.bytes
};

std::string quant_of_type(std::uint32_t ggml_type) {
  for (const QuantFormat& f : quant_formats()) {
    if (f.ggml_type == ggml_type) return std::string(f.name);
  }
  return "";
}

class Exporter {
 public:
  Exporter(const ContainerSpec& spec, const Source& trunk, const Source& experts)
      : card_(spec.card), trunk_(trunk), experts_(experts) {}

  Status plan() {
    if (Status st = copy("token_embd.weight"); !st) return st;
    if (Status st = to_f32("output_norm.weight"); !st) return st;
    if (!card_.tied_embeddings) {
      if (Status st = copy("output.weight"); !st) return st;
    }
    int layer = 0;
    for (const LayerGroup& g : card_.layers) {
      for (int k = 0; k < g.count; ++k, ++layer) {
        if (Status st = plan_layer(layer, g); !st) return st;
      }
    }
    return Status::success();
  }

  std::vector<Planned>& tensors() { return out_; }
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  Status plan_layer(int l, const LayerGroup& g) {
    Status st = to_f32(blk(l, "attn_norm.weight"));
    if (st) st = to_f32(blk(l, "ffn_norm.weight"));
    if (!st) return st;
    if (g.attention == AttentionKind::kGqa) {
      for (const char* n : {"attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_output.weight"}) {
        if (Status s = copy(blk(l, n)); !s) return s;
      }
      const std::uint64_t hd = static_cast<std::uint64_t>(card_.gqa->head_dim);
      ones(blk(l, "attn_q_norm.weight"), hd);
      ones(blk(l, "attn_k_norm.weight"), hd);
      note("attn_q_norm / attn_k_norm: qwen3moe normalizes each query and key head; moebench's GQA has no such "
           "gains, so they are written as ones (" + std::to_string(hd) + " floats per layer each)");
    } else {  // MLA (llama_architecture_for refused the rest)
      const MlaParams& m = *card_.mla;
      if (m.q_lora_rank > 0) {
        if (Status s = copy(blk(l, "attn_q_a.weight")); !s) return s;
        if (Status s = to_f32(blk(l, "attn_q_a_norm.weight")); !s) return s;
        if (Status s = copy(blk(l, "attn_q_b.weight")); !s) return s;
      } else if (Status s = copy(blk(l, "attn_q.weight")); !s) {
        return s;
      }
      if (Status s = copy(blk(l, "attn_kv_a_mqa.weight")); !s) return s;
      if (Status s = to_f32(blk(l, "attn_kv_a_norm.weight")); !s) return s;
      if (Status s = split_kv_b(l, m); !s) return s;
      if (Status s = copy(blk(l, "attn_output.weight")); !s) return s;
    }
    if (g.ffn == FfnKind::kDense) {
      for (const char* n : {"ffn_gate.weight", "ffn_up.weight", "ffn_down.weight"}) {
        if (Status s = copy(blk(l, n)); !s) return s;
      }
      return Status::success();
    }
    if (Status s = copy(blk(l, "ffn_gate_inp.weight")); !s) return s;
    if (card_.moe.shared > 0) {
      for (const char* n : {"ffn_gate_shexp.weight", "ffn_up_shexp.weight", "ffn_down_shexp.weight"}) {
        if (Status s = copy(blk(l, n)); !s) return s;
      }
    }
    for (const char* n : {"ffn_gate_exps.weight", "ffn_up_exps.weight", "ffn_down_exps.weight"}) {
      if (Status s = copy(blk(l, n), &experts_); !s) return s;
    }
    return Status::success();
  }

  void note(const std::string& n) {
    for (const std::string& have : notes_) {
      if (have == n) return;
    }
    notes_.push_back(n);
  }

  Expected<const GgufTensorInfo*> find(const Source& src, const std::string& name) {
    const GgufTensorInfo* t = src.header.tensor(name);
    if (t == nullptr) {
      return make_error(src.path + ": tensor " + name + " is missing; remake the container (moebench container make)");
    }
    return t;
  }

  // Copies a tensor's bytes (type and shape as they are).
  Status copy(const std::string& name, const Source* from = nullptr) {
    const Source& src = from ? *from : trunk_;
    auto t = find(src, name);
    if (!t) return t.error();
    Planned p;
    p.info.name = name;
    p.info.ne = (*t)->ne;
    p.info.ggml_type = (*t)->ggml_type;
    const std::uint64_t at = src.header.data_offset + (*t)->offset, n = (*t)->bytes;
    p.bytes = [&src, at, n](std::string& out) {
      const std::size_t base = out.size();
      out.resize(base + n);
      return src.read(at, out.data() + base, n);
    };
    out_.push_back(std::move(p));
    return Status::success();
  }

  // A 1-D tensor (a norm's gains) as f32.
  Status to_f32(const std::string& name) {
    auto t = find(trunk_, name);
    if (!t) return t.error();
    const std::string q = quant_of_type((*t)->ggml_type);
    if (q.empty()) return make_error(trunk_.path + ": tensor " + name + " has a type moebench cannot decode");
    Planned p;
    p.info.name = name;
    p.info.ne = {(*t)->elements()};
    p.info.ggml_type = kGgmlF32;
    p.converted = (*t)->ggml_type != kGgmlF32;
    const std::uint64_t at = trunk_.header.data_offset + (*t)->offset, n = (*t)->bytes, count = (*t)->elements();
    const Source& src = trunk_;
    p.bytes = [&src, at, n, count, q](std::string& out) {
      std::string raw(n, '\0');
      if (Status st = src.read(at, raw.data(), n); !st) return st;
      const std::size_t base = out.size();
      out.resize(base + count * 4);
      return dequantize(q, raw.data(), reinterpret_cast<float*>(out.data() + base), count);
    };
    if (p.converted) note("norms: " + q + " in the container, f32 in the export (exact)");
    out_.push_back(std::move(p));
    return Status::success();
  }

  void ones(const std::string& name, std::uint64_t n) {
    Planned p;
    p.info.name = name;
    p.info.ne = {n};
    p.info.ggml_type = kGgmlF32;
    p.converted = true;
    p.bytes = [n](std::string& out) {
      const float one = 1.0f;
      for (std::uint64_t i = 0; i < n; ++i) out.append(reinterpret_cast<const char*>(&one), 4);
      return Status::success();
    };
    out_.push_back(std::move(p));
  }

  // attn_kv_b (rows: per head, nope key rows then v value rows; each kv_lora
  // long) → attn_k_b {nope, kv_lora, heads} (transposed per head) and
  // attn_v_b {kv_lora, v, heads} (the value rows as they are).
  Status split_kv_b(int l, const MlaParams& m) {
    const std::string name = blk(l, "attn_kv_b.weight");
    auto t = find(trunk_, name);
    if (!t) return t.error();
    const std::string q = quant_of_type((*t)->ggml_type);
    const auto fmt = find_quant(q);
    if (!fmt) return make_error(trunk_.path + ": tensor " + name + " has a type moebench cannot decode");
    const std::uint64_t heads = static_cast<std::uint64_t>(m.heads), nope = static_cast<std::uint64_t>(m.qk_nope_head_dim);
    const std::uint64_t vd = static_cast<std::uint64_t>(m.v_head_dim), kv = static_cast<std::uint64_t>(m.kv_lora_rank);
    const std::uint64_t row_bytes = fmt->bytes_for(kv);
    const std::uint64_t at = trunk_.header.data_offset + (*t)->offset;
    const Source& src = trunk_;
    // k_b: the trunk quant if its block divides the nope width, else q8_0.
    std::string kq = q;
    if (!fmt->divides(nope)) {
      kq = "q8_0";
      note("attn_k_b: " + std::to_string(nope) + "-wide rows are not a multiple of " + q + "'s block of " +
           std::to_string(fmt->block_weights) + ", so they are written as q8_0 (llama-quantize does the same)");
    }
    const auto kfmt = find_quant(kq);
    Planned k;
    k.info.name = blk(l, "attn_k_b.weight");
    k.info.ne = {nope, kv, heads};
    k.info.ggml_type = kfmt->ggml_type;
    k.converted = true;
    k.bytes = [&src, at, q, kq, heads, nope, vd, kv, row_bytes, kfmt](std::string& out) {
      std::string raw(nope * row_bytes, '\0');
      std::vector<float> rows(nope * kv), tr(kv * nope);
      std::string packed(kv * kfmt->bytes_for(nope), '\0');
      for (std::uint64_t h = 0; h < heads; ++h) {
        if (Status st = src.read(at + h * (nope + vd) * row_bytes, raw.data(), raw.size()); !st) return st;
        if (Status st = dequantize(q, raw.data(), rows.data(), rows.size()); !st) return st;
        for (std::uint64_t d = 0; d < nope; ++d) {
          for (std::uint64_t c = 0; c < kv; ++c) tr[c * nope + d] = rows[d * kv + c];
        }
        if (Status st = quantize(kq, tr.data(), packed.data(), tr.size()); !st) return st;
        out += packed;
      }
      return Status::success();
    };
    out_.push_back(std::move(k));
    note("attn_kv_b: split into attn_k_b (each head's key rows transposed, dequantized and re-quantized) and "
         "attn_v_b (value rows copied), the layout llama.cpp's MLA expects");
    Planned v;
    v.info.name = blk(l, "attn_v_b.weight");
    v.info.ne = {kv, vd, heads};
    v.info.ggml_type = fmt->ggml_type;
    v.bytes = [&src, at, heads, nope, vd, row_bytes](std::string& out) {
      for (std::uint64_t h = 0; h < heads; ++h) {
        const std::size_t base = out.size();
        out.resize(base + vd * row_bytes);
        if (Status st = src.read(at + (h * (nope + vd) + nope) * row_bytes, out.data() + base, vd * row_bytes); !st) {
          return st;
        }
      }
      return Status::success();
    };
    out_.push_back(std::move(v));
    return Status::success();
  }

  const ModelCard& card_;
  const Source& trunk_;
  const Source& experts_;
  std::vector<Planned> out_;
  std::vector<std::string> notes_;
};

// A SentencePiece-style vocabulary of `n` tokens: <unk>, <s>, </s>, the 256
// byte-fallback tokens, then synthetic pieces.
void add_vocabulary(std::vector<GgufKv>& kv, int n) {
  Json tokens = Json::array(), scores = Json::array(), types = Json::array();
  const char* specials[] = {"<unk>", "<s>", "</s>"};
  for (int i = 0; i < n; ++i) {
    if (i < 3) {
      tokens.push_back(specials[i]);
      types.push_back(i == 0 ? 2 : 3);  // UNKNOWN, CONTROL
      scores.push_back(0.0);
    } else if (i < 259) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "<0x%02X>", i - 3);
      tokens.push_back(buf);
      types.push_back(6);  // BYTE
      scores.push_back(0.0);
    } else {
      tokens.push_back("\xE2\x96\x81t" + std::to_string(i));  // "▁t<i>"
      types.push_back(1);  // NORMAL
      scores.push_back(-static_cast<double>(i - 258));
    }
  }
  kv.push_back(gguf_kv("tokenizer.ggml.model", GgufType::kString, "llama"));
  kv.push_back(gguf_kv("tokenizer.ggml.tokens", GgufType::kArray, std::move(tokens), GgufType::kString));
  kv.push_back(gguf_kv("tokenizer.ggml.scores", GgufType::kArray, std::move(scores), GgufType::kF32));
  kv.push_back(gguf_kv("tokenizer.ggml.token_type", GgufType::kArray, std::move(types), GgufType::kI32));
  kv.push_back(gguf_kv("tokenizer.ggml.bos_token_id", GgufType::kU32, 1));
  kv.push_back(gguf_kv("tokenizer.ggml.eos_token_id", GgufType::kU32, 2));
  kv.push_back(gguf_kv("tokenizer.ggml.unknown_token_id", GgufType::kU32, 0));
}

std::vector<GgufKv> metadata(const ContainerSpec& spec, const std::string& arch) {
  const ModelCard& c = spec.card;
  auto u32 = [&arch](const std::string& k, std::uint64_t v) { return gguf_kv(arch + "." + k, GgufType::kU32, v); };
  auto f32 = [&arch](const std::string& k, double v) { return gguf_kv(arch + "." + k, GgufType::kF32, v); };
  std::vector<GgufKv> kv = {gguf_kv("general.architecture", GgufType::kString, arch),
                            gguf_kv("general.name", GgufType::kString, "moebench-export-" + c.name),
                            gguf_kv("general.quantization_version", GgufType::kU32, 2),
                            gguf_kv("general.file_type", GgufType::kU32, llama_file_type_for(spec.quant))};
  kv.push_back(u32("context_length", 32768));
  kv.push_back(u32("embedding_length", static_cast<std::uint64_t>(c.hidden_size)));
  kv.push_back(u32("block_count", static_cast<std::uint64_t>(c.total_layers())));
  kv.push_back(u32("vocab_size", static_cast<std::uint64_t>(c.vocab_size)));
  kv.push_back(f32("attention.layer_norm_rms_epsilon", 1e-6));
  kv.push_back(u32("expert_count", static_cast<std::uint64_t>(c.moe.experts)));
  kv.push_back(u32("expert_used_count", static_cast<std::uint64_t>(c.moe.active)));
  kv.push_back(u32("expert_feed_forward_length", static_cast<std::uint64_t>(c.moe.expert_intermediate)));
  if (arch == "qwen3moe") {
    const GqaParams& g = *c.gqa;
    kv.push_back(u32("feed_forward_length", static_cast<std::uint64_t>(c.moe.expert_intermediate)));
    kv.push_back(u32("attention.head_count", static_cast<std::uint64_t>(g.heads)));
    kv.push_back(u32("attention.head_count_kv", static_cast<std::uint64_t>(g.kv_heads)));
    kv.push_back(u32("attention.key_length", static_cast<std::uint64_t>(g.head_dim)));
    kv.push_back(u32("attention.value_length", static_cast<std::uint64_t>(g.head_dim)));
    kv.push_back(f32("rope.freq_base", 1000000.0));
  } else {
    const MlaParams& m = *c.mla;
    int dense_lead = 0;
    for (const LayerGroup& g : c.layers) {
      if (g.ffn != FfnKind::kDense) break;
      dense_lead += g.count;
    }
    kv.push_back(u32("feed_forward_length",
                     static_cast<std::uint64_t>(c.dense_ffn ? c.dense_ffn->intermediate : c.moe.expert_intermediate)));
    kv.push_back(u32("leading_dense_block_count", static_cast<std::uint64_t>(dense_lead)));
    kv.push_back(u32("attention.head_count", static_cast<std::uint64_t>(m.heads)));
    kv.push_back(u32("attention.head_count_kv", 1));  // MLA caches one latent "head" per token: MQA to llama.cpp
    if (m.q_lora_rank > 0) kv.push_back(u32("attention.q_lora_rank", static_cast<std::uint64_t>(m.q_lora_rank)));
    kv.push_back(u32("attention.kv_lora_rank", static_cast<std::uint64_t>(m.kv_lora_rank)));
    kv.push_back(u32("attention.key_length", static_cast<std::uint64_t>(m.kv_lora_rank + m.qk_rope_head_dim)));
    kv.push_back(u32("attention.value_length", static_cast<std::uint64_t>(m.kv_lora_rank)));
    kv.push_back(u32("attention.key_length_mla", static_cast<std::uint64_t>(m.qk_nope_head_dim + m.qk_rope_head_dim)));
    kv.push_back(u32("attention.value_length_mla", static_cast<std::uint64_t>(m.v_head_dim)));
    kv.push_back(u32("rope.dimension_count", static_cast<std::uint64_t>(m.qk_rope_head_dim)));
    kv.push_back(f32("rope.freq_base", 10000.0));
    kv.push_back(u32("expert_shared_count", static_cast<std::uint64_t>(c.moe.shared)));
    kv.push_back(f32("expert_weights_scale", 1.0));
    kv.push_back(u32("expert_gating_func", 1));  // softmax, as moebench's router
  }
  add_vocabulary(kv, c.vocab_size);
  kv.push_back(gguf_kv("moebench.export_of", GgufType::kString, trunk_identity(spec)));
  kv.push_back(gguf_kv("moebench.quant", GgufType::kString, spec.quant));
  return kv;
}

}  // namespace

std::uint32_t llama_file_type_for(const std::string& quant) {
  if (quant == "f32") return 0;
  if (quant == "f16") return 1;
  if (quant == "q4_0") return 2;
  if (quant == "q8_0") return 7;
  if (quant == "q2_k") return 10;
  if (quant == "q3_k") return 12;
  if (quant == "q4_k") return 15;
  if (quant == "bf16") return 32;
  if (quant == "mxfp4") return 38;
  return 0;
}

Expected<std::string> llama_architecture_for(const ModelCard& card) {
  const std::string who = "card " + card.name + ": ";
  bool gqa = false, mla = false, dense = false, dense_after_moe = false, seen_moe = false;
  for (const LayerGroup& g : card.layers) {
    if (g.attention == AttentionKind::kLinear) {
      return make_error(who + "it has linear / delta attention layers (Kimi Delta Attention); llama.cpp has no "
                              "architecture for them, so there is no GGUF llama.cpp could run");
    }
    gqa = gqa || g.attention == AttentionKind::kGqa;
    mla = mla || g.attention == AttentionKind::kMla;
    if (g.ffn == FfnKind::kDense) {
      dense = true;
      dense_after_moe = dense_after_moe || seen_moe;
    } else {
      seen_moe = true;
    }
  }
  if (gqa && mla) return make_error(who + "it mixes GQA and MLA layers; no llama.cpp architecture has both");
  if (card.moe.experts <= 0 || !seen_moe) return make_error(who + "it has no routed experts");
  if (card.moe.expert_dim != card.hidden_size) {
    return make_error(who + "its experts work in a latent width (" + std::to_string(card.moe.expert_dim) +
                      " of hidden " + std::to_string(card.hidden_size) + "); llama.cpp has no latent-MoE architecture");
  }
  if (card.vocab_size < 259) {
    return make_error(who + "vocab_size " + std::to_string(card.vocab_size) +
                      " is below the 259 tokens of the exported SentencePiece vocabulary (3 specials + 256 bytes)");
  }
  if (gqa) {
    if (card.moe.shared > 0) return make_error(who + "qwen3moe (llama.cpp's GQA MoE) has no shared experts");
    if (dense) return make_error(who + "qwen3moe (llama.cpp's GQA MoE) has no dense layers");
    return std::string("qwen3moe");
  }
  if (card.mla->output_gate) {
    return make_error(who + "its MLA has an output gate (Kimi K3); llama.cpp's deepseek2 has none");
  }
  if (dense_after_moe) return make_error(who + "deepseek2 allows dense layers only before the first MoE layer");
  if (card.moe.shared > 0 && card.moe.shared_intermediate != card.moe.expert_intermediate) {
    return make_error(who + "deepseek2 sizes its shared experts like the routed ones (expert_feed_forward_length); "
                            "this card's shared width " + std::to_string(card.moe.shared_intermediate) + " differs from " +
                      std::to_string(card.moe.expert_intermediate));
  }
  return std::string("deepseek2");
}

Expected<ExportReport> export_llama_gguf(const ContainerSpec& spec, const std::string& out_path) {
  auto arch = llama_architecture_for(spec.card);
  if (!arch) return arch.error();
  if (spec.drive_dirs.size() != 1 || spec.drive_layout != "replicate" || spec.packed) {
    return make_error("export reads a container on one drive directory, replicate layout, split expert tensors");
  }
  if (Status st = check_output_path(out_path); !st) return st.error();
  Source trunk, experts;
  if (Status st = open_source(trunk_file_path(spec), trunk); !st) return st.error();
  if (Status st = open_source(expert_file_path(spec, 0), experts); !st) return st.error();
  if (Status st = check_tensor_table(trunk.header, spec, ContainerPart::kTrunk, 0); !st) return st.error();
  if (Status st = check_tensor_table(experts.header, spec, ContainerPart::kExperts, 0); !st) return st.error();
  if (Status st = check_trunk_pairing(experts.header, trunk.header); !st) return st.error();
  Exporter ex(spec, trunk, experts);
  if (Status st = ex.plan(); !st) return st.error();
  std::vector<GgufTensorInfo> infos;
  for (const Planned& p : ex.tensors()) infos.push_back(p.info);
  auto layout = gguf_layout(metadata(spec, *arch), infos, kExportAlignment);
  if (!layout) return layout.error();
  auto file = AtomicFile::create(out_path);
  if (!file) return file.error();
  ExportReport rep;
  rep.path = out_path;
  rep.architecture = *arch;
  rep.tensors = static_cast<int>(infos.size());
  rep.notes = ex.notes();
  std::string buf = layout->header;
  auto flush = [&](bool all) -> Status {
    if (buf.size() < kCopyChunk && !all) return Status::success();
    Status st = file->write(buf);
    buf.clear();
    return st;
  };
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const std::uint64_t at = layout->data_offset + infos[i].offset;
    const std::uint64_t written = file->size() + buf.size();
    if (written < at) buf.append(static_cast<std::size_t>(at - written), '\0');
    const std::size_t before = buf.size();
    if (Status st = ex.tensors()[i].bytes(buf); !st) return st.error();
    if (buf.size() - before != infos[i].bytes) {
      return make_error("export: tensor " + infos[i].name + " produced " + std::to_string(buf.size() - before) +
                        " bytes, expected " + std::to_string(infos[i].bytes));
    }
    (ex.tensors()[i].converted ? rep.converted_bytes : rep.copied_bytes) += infos[i].bytes;
    if (Status st = flush(false); !st) return st.error();
  }
  const std::uint64_t end = layout->data_offset + layout->data_bytes;
  const std::uint64_t written = file->size() + buf.size();
  if (written < end) buf.append(static_cast<std::size_t>(end - written), '\0');
  if (Status st = flush(true); !st) return st.error();
  if (Status st = file->commit(); !st) return st.error();
  rep.file_bytes = end;
  return rep;
}

Expected<LlamaExport> ensure_llama_export(const ContainerSpec& spec) {
  LlamaExport out;
  std::string stem = container_file_name(spec, 0);
  if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".gguf") == 0) stem.resize(stem.size() - 5);
  out.path = spec.drive_dirs.front() + "/" + stem + ".llama.gguf";
  if (auto g = read_gguf(out.path)) {
    const auto of = g->get_string("moebench.export_of");
    const auto q = g->get_string("moebench.quant");
    if (of && *of == trunk_identity(spec) && q && *q == spec.quant) {
      out.reused = true;
      return out;
    }
  }
  auto rep = export_llama_gguf(spec, out.path);
  if (!rep) return rep.error();
  out.report = std::move(*rep);
  return out;
}

}  // namespace moebench
