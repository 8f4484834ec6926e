// kernels_rows8.cpp — the 8-row interleaved layout of kernels_q8.h: the
// in-place rewrite from the row layout and back, the portable scalar kernel
// on it (the reference the SIMD kernels are tested against, and the path on
// non-x86 builds), argument checks and dispatch.
//
// The scalar kernel computes each block's contribution as the SIMD kernels
// do — f = Σu·q·dx − o·s in one fused step, acc += sw·f in another (q4_k:
// acc += d·sc·(Σu·q·dx), then acc −= dmin·m·s) — so for q4_0, mxfp4 and
// q4_k (and q8_0 without VNNI) the SIMD results equal it bit for bit.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "engines/quant/dequantize.h"
#include "engines/quant/kernels_q8.h"
#include "vocab/quant_format.h"

namespace moebench {
namespace {

using u8 = std::uint8_t;

// Per 32-column block: the row layout's bytes and the rows8 group's bytes.
struct Rows8Format {
  std::uint32_t ggml_type;
  std::size_t row_block_bytes;  // 18, 34, 17
  std::size_t scale_bytes;      // per row: fp16 (2) or e8m0 (1)
  bool nibbles;                 // 4-bit values (q4_0, mxfp4), low nibbles columns 0..15, high 16..31
  bool super = false;           // q4_k: 256-column super-blocks of their own layout (below)
  std::size_t group_block_bytes() const { return kRows8 * row_block_bytes; }
  std::size_t group_scale_bytes() const { return kRows8 * scale_bytes; }
};

const Rows8Format* rows8_format(std::string_view quant) {
  static const Rows8Format q4{2, 18, 2, true}, q8{8, 34, 2, false}, mx{39, 17, 1, true}, q4k{12, 18, 0, true, true};
  if (quant == "q4_k") return &q4k;
  if (quant == "q4_0") return &q4;
  if (quant == "q8_0") return &q8;
  if (quant == "mxfp4") return &mx;
  return nullptr;
}

// Where column i of row r sits in a rows8 group block: byte offset, and for
// nibble formats whether it is the high nibble.
std::size_t rows8_offset(const Rows8Format& f, std::size_t r, std::size_t i, bool& high) {
  if (f.nibbles) {
    const std::size_t c = i / 8, j = i % 8;
    high = j >= 4;
    return f.group_scale_bytes() + 32 * c + 4 * r + (j & 3);
  }
  high = false;
  return f.group_scale_bytes() + 32 * (i / 4) + 4 * r + (i % 4);
}

// The stored value (nibble or signed byte) of row r, column i.
int rows8_stored(const Rows8Format& f, const u8* gblock, std::size_t r, std::size_t i) {
  bool high = false;
  const u8 b = gblock[rows8_offset(f, r, i, high)];
  if (f.nibbles) return high ? b >> 4 : b & 0x0F;
  return static_cast<std::int8_t>(b);
}

constexpr int kMxfp4DoubledPlus12[16] = {12, 13, 14, 15, 16, 18, 20, 24, 12, 11, 10, 9, 8, 6, 4, 0};

// The kernels' integer u, scale and offset: w = sw·(u − offset).
int rows8_value(const Rows8Format& f, const u8* gblock, std::size_t r, std::size_t i) {
  const int v = rows8_stored(f, gblock, r, i);
  return f.ggml_type == 39 ? kMxfp4DoubledPlus12[v] : v;
}
float rows8_offset_value(const Rows8Format& f) { return f.ggml_type == 2 ? 8.0f : f.ggml_type == 39 ? 12.0f : 0.0f; }

float f16_at(const u8* p) {
  std::uint16_t v;
  std::memcpy(&v, p, 2);
  return fp16_to_fp32(v);
}

// ---- q4_k: 256-column super-blocks ------------------------------------------
// A group super-block (8 × 144 = 1152 bytes): the 8 rows' fp16 d (16 bytes),
// their fp16 dmin (16), their 12 packed 6-bit scale/min bytes as three
// 32-byte arrays of 8 rows' 4 bytes (bytes 0-3, 4-7, 8-11 of each row: one
// load gives a byte quadruple of every row), then 8 sub-blocks of 128 bytes
// laid out as a q4_0 group block's nibble chunks (sub-block j: columns
// 32j..32j+31).
constexpr std::size_t kQ4kRowBytes = 144, kQ4kGroupBytes = kRows8 * kQ4kRowBytes, kQ4kHead = 128;

// The 4-bit value of column i (0..255) of a row-layout q4_k super-block.
int q4k_row_value(const u8* sb, std::size_t i) {
  const std::size_t j = i / 32, l = i % 32;
  const u8 b = sb[16 + 32 * (j >> 1) + l];
  return (j & 1) ? b >> 4 : b & 0x0F;
}

std::size_t q4k_rows8_offset(std::size_t r, std::size_t i, bool& high) {
  const std::size_t j = i / 32, c = (i % 32) / 8, jj = i % 8;
  high = jj >= 4;
  return kQ4kHead + 128 * j + 32 * c + 4 * r + (jj & 3);
}

int q4k_rows8_value(const u8* gsb, std::size_t r, std::size_t i) {
  bool high = false;
  const u8 b = gsb[q4k_rows8_offset(r, i, high)];
  return high ? b >> 4 : b & 0x0F;
}

void interleave_q4k(u8* w, std::size_t rows, std::size_t cols) {
  const std::size_t nsb = cols / 256, row_bytes = nsb * kQ4kRowBytes;
  std::vector<u8> src(kRows8 * row_bytes);
  for (std::size_t g = 0; g < rows / kRows8; ++g) {
    u8* group = w + g * kRows8 * row_bytes;
    std::memcpy(src.data(), group, src.size());
    std::memset(group, 0, src.size());
    for (std::size_t k = 0; k < nsb; ++k) {
      u8* out = group + k * kQ4kGroupBytes;
      for (std::size_t r = 0; r < kRows8; ++r) {
        const u8* sb = src.data() + r * row_bytes + k * kQ4kRowBytes;
        std::memcpy(out + 2 * r, sb, 2);                 // d
        std::memcpy(out + 16 + 2 * r, sb + 2, 2);        // dmin
        for (std::size_t i = 0; i < 3; ++i) std::memcpy(out + 32 + 32 * i + 4 * r, sb + 4 + 4 * i, 4);  // scales, mins
        for (std::size_t i = 0; i < 256; ++i) {
          bool high = false;
          u8& b = out[q4k_rows8_offset(r, i, high)];
          const int v = q4k_row_value(sb, i);
          b = static_cast<u8>(b | (high ? v << 4 : v));
        }
      }
    }
  }
}

void deinterleave_q4k(const u8* w, std::size_t r, std::size_t cols, u8* out) {
  const std::size_t nsb = cols / 256, row_bytes = nsb * kQ4kRowBytes, rr = r % kRows8;
  const u8* group = w + (r / kRows8) * kRows8 * row_bytes;
  for (std::size_t k = 0; k < nsb; ++k) {
    const u8* gsb = group + k * kQ4kGroupBytes;
    u8* sb = out + k * kQ4kRowBytes;
    std::memcpy(sb, gsb + 2 * rr, 2);
    std::memcpy(sb + 2, gsb + 16 + 2 * rr, 2);
    for (std::size_t i = 0; i < 3; ++i) std::memcpy(sb + 4 + 4 * i, gsb + 32 + 32 * i + 4 * rr, 4);
    for (std::size_t j = 0; j < 8; j += 2) {
      for (std::size_t l = 0; l < 32; ++l) {
        sb[16 + 16 * j + l] = static_cast<u8>(q4k_rows8_value(gsb, rr, 32 * j + l) |
                                              (q4k_rows8_value(gsb, rr, 32 * (j + 1) + l) << 4));
      }
    }
  }
}

// Row r's sum over one 32-column block k of a group (x̂ = activation row
// `b`), added to acc as the SIMD kernels add it: q4_0/q8_0/mxfp4 f =
// Σu·q·dx − o·s fused, acc += sw·f; q4_k (sub-block j of super-block k/8)
// f = Σu·q·dx, acc += d·sc_j·f, then acc −= dmin·m_j·s.
float add_block(const Rows8Format& f, const u8* group, std::size_t r, std::size_t k, const Q8Activations& x,
                std::size_t b, float acc) {
  const std::size_t nb = x.blocks();
  const std::int8_t* q = x.q.data() + b * x.cols + k * kQ8Block;
  const float dx = x.d[b * nb + k], s = x.s[b * nb + k];
  int sum = 0;
  if (f.super) {
    const u8* gsb = group + (k / 8) * kQ4kGroupBytes;
    const std::size_t j = k % 8;
    for (std::size_t i = 0; i < kQ8Block; ++i) sum += q4k_rows8_value(gsb, r, 32 * j + i) * q[i];
    std::uint8_t packed[12];  // the row's 12 scale/min bytes, as stored in the row layout
    for (std::size_t w = 0; w < 3; ++w) std::memcpy(packed + 4 * w, gsb + 32 + 32 * w + 4 * r, 4);
    std::uint8_t sc, m;
    get_scale_min_k4(static_cast<int>(j), packed, sc, m);
    acc = std::fma(f16_at(gsb + 2 * r) * static_cast<float>(sc), static_cast<float>(sum) * dx, acc);
    return std::fma(-(f16_at(gsb + 16 + 2 * r) * static_cast<float>(m)), s, acc);
  }
  const u8* blk = group + k * f.group_block_bytes();
  for (std::size_t i = 0; i < kQ8Block; ++i) sum += rows8_value(f, blk, r, i) * q[i];
  const float fk = std::fma(static_cast<float>(sum), dx, -(rows8_offset_value(f) * s));
  const float sw = f.scale_bytes == 2 ? f16_at(blk + 2 * r) : e8m0_to_fp32_half(blk[r]);
  return std::fma(sw, fk, acc);
}

void matmul_rows8_scalar(const Rows8Format& f, const detail::Q8Args& a) {
  const Q8Activations& x = *a.x;
  for (std::size_t g = 0; g < a.rows / kRows8; ++g) {
    const u8* group = a.w + g * kRows8 * a.row_bytes;
    for (std::size_t b = 0; b < x.batch; ++b) {
      for (std::size_t r = 0; r < kRows8; ++r) {
        float acc = 0.0f;
        for (std::size_t k = 0; k < x.blocks(); ++k) acc = add_block(f, group, r, k, x, b, acc);
        a.y[b * a.rows + g * kRows8 + r] = acc;
      }
    }
  }
}

}  // namespace

bool has_rows8_layout(std::string_view quant, std::size_t rows, std::size_t cols) {
  const Rows8Format* f = rows8_format(quant);
  return f != nullptr && rows > 0 && rows % kRows8 == 0 && cols > 0 && cols % (f->super ? 256 : kQ8Block) == 0;
}

Status interleave_rows8(std::string_view quant, void* w, std::size_t rows, std::size_t cols) {
  if (!has_rows8_layout(quant, rows, cols)) {
    return make_error("interleave_rows8: " + std::string(quant) + " " + std::to_string(rows) + "x" +
                      std::to_string(cols) + " has no 8-row layout (q4_0/q8_0/mxfp4/q4_k, rows a multiple of 8, "
                      "columns of 32, 256 for q4_k)");
  }
  const Rows8Format& f = *rows8_format(quant);
  if (f.super) {
    interleave_q4k(static_cast<u8*>(w), rows, cols);
    return Status::success();
  }
  const std::size_t nb = cols / kQ8Block, row_bytes = nb * f.row_block_bytes, gb = f.group_block_bytes();
  std::vector<u8> src(kRows8 * row_bytes);
  for (std::size_t g = 0; g < rows / kRows8; ++g) {
    u8* group = static_cast<u8*>(w) + g * kRows8 * row_bytes;
    std::memcpy(src.data(), group, src.size());
    for (std::size_t k = 0; k < nb; ++k) {
      u8* out = group + k * gb;
      for (std::size_t r = 0; r < kRows8; ++r) {
        const u8* block = src.data() + r * row_bytes + k * f.row_block_bytes;
        std::memcpy(out + f.scale_bytes * r, block, f.scale_bytes);  // the row's block scale
        const u8* qs = block + f.scale_bytes;
        const std::size_t front = f.group_scale_bytes();
        if (f.nibbles) {
          // chunk c holds columns 8c..8c+7: low nibbles of qs[8c..] for
          // c < 2, high nibbles of qs[8c − 16..] for c ≥ 2 (rows8_offset)
          for (std::size_t c = 0; c < 4; ++c) {
            u8* o = out + front + 32 * c + 4 * r;
            for (std::size_t j = 0; j < 4; ++j) {
              o[j] = c < 2 ? static_cast<u8>((qs[8 * c + j] & 0x0F) | ((qs[8 * c + 4 + j] & 0x0F) << 4))
                           : static_cast<u8>((qs[8 * c - 16 + j] >> 4) | (qs[8 * c - 12 + j] & 0xF0));
            }
          }
        } else {
          for (std::size_t c = 0; c < 8; ++c) std::memcpy(out + front + 32 * c + 4 * r, qs + 4 * c, 4);
        }
      }
    }
  }
  return Status::success();
}

void deinterleave_row(std::string_view quant, const void* w, std::size_t r, std::size_t cols, void* out) {
  const Rows8Format* f = rows8_format(quant);
  if (f == nullptr) return;
  if (f->super) {
    deinterleave_q4k(static_cast<const u8*>(w), r, cols, static_cast<u8*>(out));
    return;
  }
  const std::size_t nb = cols / kQ8Block, row_bytes = nb * f->row_block_bytes, gb = f->group_block_bytes();
  const u8* group = static_cast<const u8*>(w) + (r / kRows8) * kRows8 * row_bytes;
  const std::size_t rr = r % kRows8;
  u8* o = static_cast<u8*>(out);
  for (std::size_t k = 0; k < nb; ++k) {
    const u8* blk = group + k * gb;
    u8* block = o + k * f->row_block_bytes;
    std::memcpy(block, blk + f->scale_bytes * rr, f->scale_bytes);
    u8* qs = block + f->scale_bytes;
    if (f->nibbles) {
      for (std::size_t i = 0; i < 16; ++i) {
        qs[i] = static_cast<u8>(rows8_stored(*f, blk, rr, i) | (rows8_stored(*f, blk, rr, i + 16) << 4));
      }
    } else {
      for (std::size_t i = 0; i < kQ8Block; ++i) qs[i] = static_cast<u8>(rows8_stored(*f, blk, rr, i));
    }
  }
}

Status matmul_q8_rows8(std::string_view quant, const void* w, std::size_t rows, std::size_t cols,
                       const Q8Activations& x, float* y, SimdLevel level) {
  if (!has_rows8_layout(quant, rows, cols)) {
    return make_error("matmul_q8_rows8: " + std::string(quant) + " " + std::to_string(rows) + "x" +
                      std::to_string(cols) + " has no 8-row layout");
  }
  if (cols != x.cols) {
    return make_error("matmul_q8_rows8: weights have " + std::to_string(cols) + " columns, activations " +
                      std::to_string(x.cols));
  }
  if (!simd_level_available(level)) {
    return make_error(std::string("matmul_q8_rows8: SIMD level ") + to_string(level) + " is not available on this CPU");
  }
  if (x.batch == 0) return Status::success();
  if (w == nullptr || y == nullptr) return make_error("matmul_q8_rows8: null weights or output");
  const Rows8Format& f = *rows8_format(quant);
  const detail::Q8Args args{f.ggml_type, static_cast<const unsigned char*>(w), rows, cols,
                            (cols / kQ8Block) * f.row_block_bytes, &x, y};
#if defined(MOEBENCH_X86_SIMD)
  if (level == SimdLevel::kAvx512 && detail::cpu_has_avx512_vnni() && detail::matmul_rows8_vnni(args)) {
    return Status::success();
  }
  if ((level == SimdLevel::kAvx2 || level == SimdLevel::kAvx512) && detail::matmul_rows8_avx2(args)) {
    return Status::success();
  }
#endif
#if defined(MOEBENCH_ARM_SIMD)
  // neon-i8mm runs the SDOT tile: the 8-row layout has no 8-column row pairs for SMMLA.
  if ((level == SimdLevel::kNeonDotprod || level == SimdLevel::kNeonI8mm) && detail::matmul_rows8_dotprod(args)) {
    return Status::success();
  }
  if (level == SimdLevel::kNeon && detail::matmul_rows8_neon(args)) return Status::success();
#endif
  matmul_rows8_scalar(f, args);
  return Status::success();
}

}  // namespace moebench
