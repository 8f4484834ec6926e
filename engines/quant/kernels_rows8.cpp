// kernels_rows8.cpp — the 8-row interleaved layout of kernels_q8.h: the
// in-place rewrite from the row layout and back, the portable scalar kernel
// on it (the reference the SIMD kernels are tested against, and the path on
// non-x86 builds), argument checks and dispatch.
//
// The scalar kernel computes each block's contribution as the SIMD kernels
// do — f = Σu·q·dx − o·s in one fused step, acc += sw·f in another — so for
// q4_0 and mxfp4 (and q8_0 without VNNI) the SIMD results equal it bit for
// bit.
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
  std::size_t group_block_bytes() const { return kRows8 * row_block_bytes; }
  std::size_t group_scale_bytes() const { return kRows8 * scale_bytes; }
};

const Rows8Format* rows8_format(std::string_view quant) {
  static const Rows8Format q4{2, 18, 2, true}, q8{8, 34, 2, false}, mx{39, 17, 1, true};
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

void matmul_rows8_scalar(const Rows8Format& f, const detail::Q8Args& a) {
  const Q8Activations& x = *a.x;
  const std::size_t nb = a.cols / kQ8Block, gb = f.group_block_bytes();
  const float offset = rows8_offset_value(f);
  for (std::size_t g = 0; g < a.rows / kRows8; ++g) {
    const u8* group = a.w + g * kRows8 * a.row_bytes;
    for (std::size_t b = 0; b < x.batch; ++b) {
      const std::int8_t* q = x.q.data() + b * x.cols;
      for (std::size_t r = 0; r < kRows8; ++r) {
        float acc = 0.0f;
        for (std::size_t k = 0; k < nb; ++k) {
          const u8* blk = group + k * gb;
          int sum = 0;
          for (std::size_t i = 0; i < kQ8Block; ++i) sum += rows8_value(f, blk, r, i) * q[k * kQ8Block + i];
          const float fk = std::fma(static_cast<float>(sum), x.d[b * nb + k], -(offset * x.s[b * nb + k]));
          const float sw = f.scale_bytes == 2 ? f16_at(blk + 2 * r) : e8m0_to_fp32_half(blk[r]);
          acc = std::fma(sw, fk, acc);
        }
        a.y[b * a.rows + g * kRows8 + r] = acc;
      }
    }
  }
}

}  // namespace

bool has_rows8_layout(std::string_view quant, std::size_t rows, std::size_t cols) {
  return rows8_format(quant) != nullptr && rows > 0 && rows % kRows8 == 0 && cols > 0 && cols % kQ8Block == 0;
}

Status interleave_rows8(std::string_view quant, void* w, std::size_t rows, std::size_t cols) {
  if (!has_rows8_layout(quant, rows, cols)) {
    return make_error("interleave_rows8: " + std::string(quant) + " " + std::to_string(rows) + "x" +
                      std::to_string(cols) + " has no 8-row layout (q4_0/q8_0, rows a multiple of 8, columns of 32)");
  }
  const Rows8Format& f = *rows8_format(quant);
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
  if (static_cast<int>(level) > static_cast<int>(best_simd_level())) {
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
  if (level != SimdLevel::kScalar && detail::matmul_rows8_avx2(args)) return Status::success();
#endif
  matmul_rows8_scalar(f, args);
  return Status::success();
}

}  // namespace moebench
