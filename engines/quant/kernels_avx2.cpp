// kernels_avx2.cpp — AVX2 (+FMA, F16C) fused dequant·dot kernels for all
// nine formats; reached only through kernels.cpp after a runtime CPU check
// (this file is compiled with -mavx2 -mfma -mf16c).
//
// Same structure as kernels_avx512.cpp with 8-float vectors: each format is
// a "unit" decoder handing its weights to a callback vector by vector; 4-bit
// codes are mapped with pshufb on bytes (16-entry int8 tables) and then
// widened. matvec FMAs in registers (formats with one scale per 32 weights
// sum raw products and scale once) with a software prefetch 8 KiB ahead;
// matmul repacks X tile-major, decodes a 4-row × ≤ 256-column tile once into
// an on-stack buffer and runs the whole batch against it, 4 rows × 3
// activation rows per register tile (all 16 ymm registers).
//
// Nothing here may instantiate inline functions or templates from shared
// headers (std::vector, std::min, QuantFormat::bytes_for, ...): the linker
// could keep this file's AVX2 copy for code that runs on any CPU. Only
// intrinsics, builtins and this file's internal-linkage helpers are used.
#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <new>

#include "engines/quant/dequantize.h"
#include "engines/quant/kernels.h"

namespace moebench::detail {
namespace {

using u8 = std::uint8_t;
using V = __m256;
constexpr std::size_t kTile = 256;  // weights per decoded tile (matmul)
constexpr int kRows = 4;            // rows per register tile
constexpr int kBatch = 3;           // activation rows per register tile

struct Ctx {
  const float* f16;   // fp16 bits → float (block scales: memory broadcasts)
  const float* e8m0;  // e8m0 → 2^(e-128)
};
inline float f16s(const Ctx& c, const u8* p) {
  std::uint16_t v;
  std::memcpy(&v, p, 2);
  return c.f16[v];
}

inline float h2f(const u8* p) {
  std::uint16_t v;
  std::memcpy(&v, p, 2);
  return _cvtsh_ss(v);
}
inline __m128i load16(const u8* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline __m128i nib_lo(__m128i v) { return _mm_and_si128(v, _mm_set1_epi8(0x0F)); }
inline __m128i nib_hi(__m128i v) { return _mm_and_si128(_mm_srli_epi16(v, 4), _mm_set1_epi8(0x0F)); }
// int8 lanes 0..7 / 8..15 of v as floats
inline V s8_lo(__m128i v) { return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)); }
inline V s8_hi(__m128i v) { return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(v, 8))); }
inline V u8_lo(__m128i v) { return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v)); }
inline V u8_hi(__m128i v) { return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(v, 8))); }

// ---- unit decoders: for_each(ctx, p, fn) calls fn(i, v) with weights
// [8i, 8i + 8) of the unit ---------------------------------------------------

struct F32 {
  static constexpr int kW = 32, kB = 128;
  template <class Fn>
  static void for_each(const Ctx&, const u8* p, Fn&& fn) {
    for (int i = 0; i < 4; ++i) fn(i, _mm256_loadu_ps(reinterpret_cast<const float*>(p + 32 * i)));
  }
  static float one(const u8* p) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
};

struct F16 {
  static constexpr int kW = 32, kB = 64;
  template <class Fn>
  static void for_each(const Ctx&, const u8* p, Fn&& fn) {
    for (int i = 0; i < 4; ++i) fn(i, _mm256_cvtph_ps(load16(p + 16 * i)));
  }
  static float one(const u8* p) { return h2f(p); }
};

struct Bf16 {
  static constexpr int kW = 32, kB = 64;
  template <class Fn>
  static void for_each(const Ctx&, const u8* p, Fn&& fn) {
    for (int i = 0; i < 4; ++i) {
      const __m256i v = _mm256_cvtepu16_epi32(load16(p + 16 * i));
      fn(i, _mm256_castsi256_ps(_mm256_slli_epi32(v, 16)));
    }
  }
  static float one(const u8* p) {
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    return bf16_to_fp32(h);
  }
};

// Formats with one scale per 32 weights also offer scale() and
// for_each_raw() (unscaled values): matvec then sums raw products per block
// and applies the scale once, 4 multiplies fewer per block.
template <class Raw>
struct Scaled {
  template <class Fn>
  static void for_each(const Ctx& c, const u8* p, Fn&& fn) {
    const V d = _mm256_set1_ps(Raw::scale(c, p));
    Raw::for_each_raw(c, p, [&](int i, V v) { fn(i, _mm256_mul_ps(v, d)); });
  }
};

struct Q8_0 : Scaled<Q8_0> {
  static constexpr int kW = 32, kB = 34;
  static float scale(const Ctx& c, const u8* p) { return f16s(c, p); }
  template <class Fn>
  static void for_each_raw(const Ctx&, const u8* p, Fn&& fn) {
    const __m128i q0 = load16(p + 2), q1 = load16(p + 18);
    fn(0, s8_lo(q0));
    fn(1, s8_hi(q0));
    fn(2, s8_lo(q1));
    fn(3, s8_hi(q1));
  }
};

struct Q4_0 : Scaled<Q4_0> {
  static constexpr int kW = 32, kB = 18;
  static float scale(const Ctx& c, const u8* p) { return f16s(c, p); }
  template <class Fn>
  static void for_each_raw(const Ctx&, const u8* p, Fn&& fn) {
    const __m128i q = load16(p + 2), eight = _mm_set1_epi8(8);
    const __m128i lo = _mm_sub_epi8(nib_lo(q), eight), hi = _mm_sub_epi8(nib_hi(q), eight);
    fn(0, s8_lo(lo));
    fn(1, s8_hi(lo));
    fn(2, s8_lo(hi));
    fn(3, s8_hi(hi));
  }
};

struct Mxfp4 : Scaled<Mxfp4> {
  static constexpr int kW = 32, kB = 17;
  static float scale(const Ctx& c, const u8* p) { return c.e8m0[p[0]]; }
  template <class Fn>
  static void for_each_raw(const Ctx&, const u8* p, Fn&& fn) {
    const __m128i kvalues = _mm_setr_epi8(0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12);
    const __m128i q = load16(p + 1);
    const __m128i lo = _mm_shuffle_epi8(kvalues, nib_lo(q)), hi = _mm_shuffle_epi8(kvalues, nib_hi(q));
    fn(0, s8_lo(lo));
    fn(1, s8_hi(lo));
    fn(2, s8_lo(hi));
    fn(3, s8_hi(hi));
  }
};

// q4_K's eight 6-bit (scale, min) pairs from scales[12] (16 readable bytes at
// s), as dl[j] = d·sc_j and ml[j] = dmin·m_j — 8 lanes at once, the products
// rounded as dequantize does.
inline void q4k_scales(const u8* s, float d, float dmin, float* dl, float* ml) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
  auto lanes = [v](__m128i idx) { return _mm256_cvtepu8_epi32(_mm_shuffle_epi8(v, idx)); };
  const __m256i P = lanes(_mm_setr_epi8(0, 1, 2, 3, 8, 9, 10, 11, -1, -1, -1, -1, -1, -1, -1, -1));
  const __m256i Q = lanes(_mm_setr_epi8(4, 5, 6, 7, 0, 1, 2, 3, -1, -1, -1, -1, -1, -1, -1, -1));
  const __m256i R = lanes(_mm_setr_epi8(4, 5, 6, 7, 4, 5, 6, 7, -1, -1, -1, -1, -1, -1, -1, -1));
  const __m256i c63 = _mm256_set1_epi32(63), c15 = _mm256_set1_epi32(15);
  const __m256i sc_hi = _mm256_or_si256(_mm256_and_si256(P, c15), _mm256_slli_epi32(_mm256_srli_epi32(Q, 6), 4));
  const __m256i m_hi = _mm256_or_si256(_mm256_srli_epi32(P, 4), _mm256_slli_epi32(_mm256_srli_epi32(R, 6), 4));
  const __m256i sc = _mm256_blend_epi32(sc_hi, _mm256_and_si256(P, c63), 0x0F);  // j < 4: low 6 bits
  const __m256i m = _mm256_blend_epi32(m_hi, _mm256_and_si256(R, c63), 0x0F);
  _mm256_storeu_ps(dl, _mm256_mul_ps(_mm256_cvtepi32_ps(sc), _mm256_set1_ps(d)));
  _mm256_storeu_ps(ml, _mm256_mul_ps(_mm256_cvtepi32_ps(m), _mm256_set1_ps(dmin)));
}

inline V scale_sub(V q, float d, float m) { return _mm256_sub_ps(_mm256_mul_ps(q, _mm256_set1_ps(d)), _mm256_set1_ps(m)); }

struct Q4_K {
  static constexpr int kW = 256, kB = 144;
  template <class Fn>
  static void for_each(const Ctx& c, const u8* p, Fn&& fn) {
    const float d = f16s(c, p), dmin = f16s(c, p + 2);
    alignas(32) float dl[8], ml[8];  // per sub-block d·sc and dmin·m, broadcast from memory below
    q4k_scales(p + 4, d, dmin, dl, ml);
    const u8* q = p + 16;
    for (int j = 0; j < 4; ++j, q += 32) {
      const V d1 = _mm256_set1_ps(dl[2 * j]), m1 = _mm256_set1_ps(ml[2 * j]);
      const V d2 = _mm256_set1_ps(dl[2 * j + 1]), m2 = _mm256_set1_ps(ml[2 * j + 1]);
      for (int h = 0; h < 2; ++h) {
        const __m128i v = load16(q + 16 * h);
        const __m128i lo = nib_lo(v), hi = nib_hi(v);
        fn(8 * j + 2 * h, _mm256_fmsub_ps(u8_lo(lo), d1, m1));
        fn(8 * j + 2 * h + 1, _mm256_fmsub_ps(u8_hi(lo), d1, m1));
        fn(8 * j + 4 + 2 * h, _mm256_fmsub_ps(u8_lo(hi), d2, m2));
        fn(8 * j + 5 + 2 * h, _mm256_fmsub_ps(u8_hi(hi), d2, m2));
      }
    }
  }
};

// 2-bit field of every byte of v at bit `shift`.
inline __m128i bits2(__m128i v, int shift) {
  return _mm_and_si128(_mm_srl_epi16(v, _mm_cvtsi32_si128(shift)), _mm_set1_epi8(3));
}

struct Q3_K {  // value = d·(sc − 32)·(low2 + 4·hbit − 4)
  static constexpr int kW = 256, kB = 110;
  template <class Fn>
  static void for_each(const Ctx&, const u8* p, Fn&& fn) {
    const u8* s = p + 96;
    const float d_all = h2f(p + 108);
    const __m128i hm[2] = {load16(p), load16(p + 16)};
    const __m128i one = _mm_set1_epi8(1), four = _mm_set1_epi8(4);
    for (int half = 0; half < 2; ++half) {
      const __m128i qv[2] = {load16(p + 32 + 32 * half), load16(p + 48 + 32 * half)};
      for (int j = 0; j < 4; ++j) {
        const int bit = 4 * half + j;
        for (int part = 0; part < 2; ++part) {
          const int is = 8 * half + 2 * j + part;
          const int lo = is < 8 ? s[is] & 0xF : s[is - 8] >> 4;
          const int sc = (lo | (((s[8 + is % 4] >> (2 * (is / 4))) & 3) << 4)) - 32;
          const V dl = _mm256_set1_ps(d_all * static_cast<float>(sc));
          const __m128i h = _mm_and_si128(_mm_srl_epi16(hm[part], _mm_cvtsi32_si128(bit)), one);
          const __m128i v = _mm_sub_epi8(_mm_or_si128(bits2(qv[part], 2 * j), _mm_slli_epi16(h, 2)), four);
          fn(2 * is, _mm256_mul_ps(s8_lo(v), dl));
          fn(2 * is + 1, _mm256_mul_ps(s8_hi(v), dl));
        }
      }
    }
  }
};

struct Q2_K {
  static constexpr int kW = 256, kB = 84;
  template <class Fn>
  static void for_each(const Ctx&, const u8* p, Fn&& fn) {
    const float d = h2f(p + 80), dmin = h2f(p + 82);
    int is = 0;
    for (int half = 0; half < 2; ++half) {
      const __m128i qv[2] = {load16(p + 16 + 32 * half), load16(p + 32 + 32 * half)};
      for (int j = 0; j < 4; ++j) {
        for (int part = 0; part < 2; ++part, ++is) {
          const float dl = d * static_cast<float>(p[is] & 0xF), ml = dmin * static_cast<float>(p[is] >> 4);
          const __m128i v = bits2(qv[part], 2 * j);
          fn(2 * is, scale_sub(u8_lo(v), dl, ml));
          fn(2 * is + 1, scale_sub(u8_hi(v), dl, ml));
        }
      }
    }
  }
};

// ---- drivers ---------------------------------------------------------------

inline float hsum(V v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

template <class F>
float tail_one(const u8* p) {
  if constexpr (requires { F::one(p); }) {
    return F::one(p);
  } else {
    return 0.f;  // block formats have no tail: cols is a multiple of kW
  }
}

// Software prefetch running kPrefetchBytes ahead of the weight stream, one
// prefetch per cache line: rows are read once, front to back, and the
// hardware prefetchers alone leave DRAM bandwidth unused.
constexpr std::uintptr_t kPrefetchBytes = 8192;
struct Prefetcher {
  std::uintptr_t next, end;
  Prefetcher(const u8* w, std::size_t bytes)
      : next(reinterpret_cast<std::uintptr_t>(w) & ~std::uintptr_t{63}), end(reinterpret_cast<std::uintptr_t>(w) + bytes) {}
  void upto(const u8* p) {
    const std::uintptr_t want = reinterpret_cast<std::uintptr_t>(p) + kPrefetchBytes;
    for (; next < want && next < end; next += 64) _mm_prefetch(reinterpret_cast<const char*>(next), _MM_HINT_T0);
  }
};

// Batch 1: decode into registers, FMA with x, four accumulator chains
// (formats with a per-block scale: raw block sums, scaled once).
template <class F>
void matvec(const Ctx& c, const MatmulArgs& a, std::size_t row_bytes) {
  const std::size_t units = a.cols / F::kW, tail = a.cols % F::kW;
  constexpr std::size_t kElemBytes = F::kB / F::kW;
  Prefetcher pf(a.w, a.rows * row_bytes);
  for (std::size_t r = 0; r < a.rows; ++r) {
    const u8* p = a.w + r * row_bytes;
    V acc0 = _mm256_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    for (std::size_t u = 0; u < units; ++u) {
      pf.upto(p + u * F::kB);
      const float* x = a.x + u * F::kW;
      if constexpr (requires { F::scale(c, p); }) {
        V s0 = _mm256_setzero_ps(), s1 = s0;
        F::for_each_raw(c, p + u * F::kB, [&](int i, V v) {
          if (i & 1) s1 = _mm256_fmadd_ps(v, _mm256_loadu_ps(x + 8 * i), s1);
          else s0 = _mm256_fmadd_ps(v, _mm256_loadu_ps(x + 8 * i), s0);
        });
        const V d = _mm256_set1_ps(F::scale(c, p + u * F::kB));
        if (u & 1) acc1 = _mm256_fmadd_ps(_mm256_add_ps(s0, s1), d, acc1);
        else acc0 = _mm256_fmadd_ps(_mm256_add_ps(s0, s1), d, acc0);
      } else {
        F::for_each(c, p + u * F::kB, [&](int i, V v) {
          const V xv = _mm256_loadu_ps(x + 8 * i);
          switch (i & 3) {
            case 0: acc0 = _mm256_fmadd_ps(v, xv, acc0); break;
            case 1: acc1 = _mm256_fmadd_ps(v, xv, acc1); break;
            case 2: acc2 = _mm256_fmadd_ps(v, xv, acc2); break;
            default: acc3 = _mm256_fmadd_ps(v, xv, acc3); break;
          }
        });
      }
    }
    float s = hsum(_mm256_add_ps(_mm256_add_ps(acc0, acc1), _mm256_add_ps(acc2, acc3)));
    for (std::size_t t = 0; t < tail; ++t) {
      s += tail_one<F>(p + units * F::kB + t * kElemBytes) * a.x[units * F::kW + t];
    }
    a.y[r] = s;
  }
}

// acc[b][r] += wbuf[r] · xs[b] over `len` weights (a multiple of 8: wbuf
// and the packed activations are zero-padded).
template <int NB>
void tile(const float* wbuf, const float* xs, std::size_t len, float* acc) {
  V s[NB][kRows];
  for (int b = 0; b < NB; ++b) {
    for (int r = 0; r < kRows; ++r) s[b][r] = _mm256_loadu_ps(acc + 8 * (kRows * b + r));
  }
  for (std::size_t c = 0; c < len; c += 8) {
    V xv[NB];
    for (int b = 0; b < NB; ++b) xv[b] = _mm256_load_ps(xs + b * kTile + c);
    for (int r = 0; r < kRows; ++r) {
      V w = _mm256_load_ps(wbuf + r * kTile + c);
      __asm__("" : "+v"(w));  // keep w in a register: one load, NB uses (GCC would re-load it per FMA)
      for (int b = 0; b < NB; ++b) s[b][r] = _mm256_fmadd_ps(w, xv[b], s[b][r]);
    }
  }
  for (int b = 0; b < NB; ++b) {
    for (int r = 0; r < kRows; ++r) _mm256_storeu_ps(acc + 8 * (kRows * b + r), s[b][r]);
  }
}

struct FloatArray {  // heap buffer without std:: templates (see file comment)
  explicit FloatArray(std::size_t n) : p(new (std::align_val_t{64}) float[n]) {}
  ~FloatArray() { ::operator delete[](p, std::align_val_t{64}); }
  FloatArray(const FloatArray&) = delete;
  FloatArray& operator=(const FloatArray&) = delete;
  float* p;
};

// Batch > 1. X is first repacked tile-major (tile t, row b → 256
// contiguous floats, zero-padded): activation rows cols·4 bytes apart would
// map to the same L1 sets whenever that is a multiple of 4 KiB (3072 columns
// is). Then per group of kRows rows and tile of ≤ 256 columns, the weights are
// decoded once into wbuf and every activation row runs against them.
template <class F>
void matmul(const Ctx& c, const MatmulArgs& a, std::size_t row_bytes) {
  alignas(32) float wbuf[kRows * kTile];
  const std::size_t tiles = (a.cols + kTile - 1) / kTile;
  FloatArray xp(tiles * a.batch * kTile);
  for (std::size_t t = 0; t < tiles; ++t) {
    const std::size_t c0 = t * kTile, len = a.cols - c0 < kTile ? a.cols - c0 : kTile;
    for (std::size_t b = 0; b < a.batch; ++b) {
      float* dst = xp.p + (t * a.batch + b) * kTile;
      std::memcpy(dst, a.x + b * a.cols + c0, len * sizeof(float));
      std::memset(dst + len, 0, (kTile - len) * sizeof(float));
    }
  }
  const std::size_t acc_len = a.batch * kRows * 8;
  FloatArray acc(acc_len);
  constexpr std::size_t kElemBytes = F::kB / F::kW;
  for (std::size_t r0 = 0; r0 < a.rows; r0 += kRows) {
    const std::size_t nr = a.rows - r0 < kRows ? a.rows - r0 : kRows;
    if (nr < kRows) std::memset(wbuf + nr * kTile, 0, (kRows - nr) * kTile * sizeof(float));
    std::memset(acc.p, 0, acc_len * sizeof(float));
    for (std::size_t t = 0; t < tiles; ++t) {
      const std::size_t c0 = t * kTile, len = a.cols - c0 < kTile ? a.cols - c0 : kTile;
      const std::size_t units = len / F::kW, tail = len % F::kW;
      for (std::size_t r = 0; r < nr; ++r) {
        const u8* p = a.w + (r0 + r) * row_bytes + c0 / F::kW * F::kB;
        float* out = wbuf + r * kTile;
        for (std::size_t u = 0; u < units; ++u) {
          float* o = out + u * F::kW;
          F::for_each(c, p + u * F::kB, [o](int i, V v) { _mm256_store_ps(o + 8 * i, v); });
        }
        if (tail != 0) {
          for (std::size_t k = 0; k < tail; ++k) out[units * F::kW + k] = tail_one<F>(p + units * F::kB + k * kElemBytes);
          for (std::size_t k = len; k % 8 != 0; ++k) out[k] = 0.f;
        }
      }
      const std::size_t len_v = (len + 7) / 8 * 8;
      std::size_t b0 = 0;
      for (; b0 + kBatch <= a.batch; b0 += kBatch) {
        tile<kBatch>(wbuf, xp.p + (t * a.batch + b0) * kTile, len_v, acc.p + b0 * kRows * 8);
      }
      const float* xs = xp.p + (t * a.batch + b0) * kTile;
      float* accb = acc.p + b0 * kRows * 8;
      switch (a.batch - b0) {
        case 2: tile<2>(wbuf, xs, len, accb); break;
        case 1: tile<1>(wbuf, xs, len, accb); break;
        default: break;
      }
    }
    for (std::size_t b = 0; b < a.batch; ++b) {
      for (std::size_t r = 0; r < nr; ++r) a.y[b * a.rows + r0 + r] = hsum(_mm256_loadu_ps(acc.p + 8 * (kRows * b + r)));
    }
  }
}

template <class F>
bool run(const MatmulArgs& a) {
  const Ctx c{fp16_table(), e8m0_half_table()};
  const std::size_t row_bytes = a.cols / a.fmt.block_weights * a.fmt.block_bytes;
  if (a.batch == 1) {
    matvec<F>(c, a, row_bytes);
  } else {
    matmul<F>(c, a, row_bytes);
  }
  return true;
}

}  // namespace

bool matmul_avx2(const MatmulArgs& a) {
  switch (a.fmt.ggml_type) {  // ids as in quant_format.cpp
    case 0: return run<F32>(a);
    case 1: return run<F16>(a);
    case 30: return run<Bf16>(a);
    case 8: return run<Q8_0>(a);
    case 2: return run<Q4_0>(a);
    case 39: return run<Mxfp4>(a);
    case 12: return run<Q4_K>(a);
    case 11: return run<Q3_K>(a);
    case 10: return run<Q2_K>(a);
    default: return false;
  }
}

}  // namespace moebench::detail
