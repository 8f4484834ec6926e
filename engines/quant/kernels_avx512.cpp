// kernels_avx512.cpp — AVX-512 (F/BW/VL/DQ + FMA + F16C) fused dequant·dot
// kernels for all nine formats; reached only through kernels.cpp after a
// runtime CPU check (this file is compiled with -mavx512f ... flags).
//
// Each format is a "unit" decoder (kW weights in kB bytes) that hands its
// weights to a callback as 16-float vectors, in order. 4-bit codes go
// through a 16-entry float table (vpermps), so the table holds the
// dequantized values themselves. matvec (batch 1) FMAs the vectors with x in
// registers while a software prefetch runs 8 KiB ahead of the weights.
// matmul repacks X tile-major, decodes a tile of 8 rows × ≤ 256 columns into
// an on-stack buffer once and runs the whole batch against it, 8 rows × 3
// activation rows per register tile (24 zmm accumulators).
//
// Nothing here may instantiate inline functions or templates from shared
// headers (std::vector, std::min, QuantFormat::bytes_for, ...): the linker
// could keep this file's AVX-512 copy for code that runs on any CPU. Only
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
using V = __m512;
constexpr std::size_t kTile = 256;  // weights per decoded tile (matmul)
constexpr int kRows = 8;            // rows per register tile
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
inline __m512i bytes16(const u8* p) { return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
inline V iota() { return _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); }
// table[idx & 15] per lane: vpermps reads only the low 4 index bits, so a
// nibble needs no masking.
inline V lut(__m512i idx, V table) { return _mm512_permutexvar_ps(idx, table); }

// ---- unit decoders: for_each(ctx, p, fn) calls fn(i, v) with weights
// [16i, 16i + 16) of the unit ------------------------------------------------

struct F32 {
  static constexpr int kW = 32, kB = 128;
  template <class Fn>
  static void for_each(const Ctx&, const u8* p, Fn&& fn) {
    fn(0, _mm512_loadu_ps(reinterpret_cast<const float*>(p)));
    fn(1, _mm512_loadu_ps(reinterpret_cast<const float*>(p + 64)));
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
    fn(0, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))));
    fn(1, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32))));
  }
  static float one(const u8* p) { return h2f(p); }
};

struct Bf16 {
  static constexpr int kW = 32, kB = 64;
  static V cvt(const u8* p) {
    const __m512i v = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    return _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
  }
  template <class Fn>
  static void for_each(const Ctx&, const u8* p, Fn&& fn) {
    fn(0, cvt(p));
    fn(1, cvt(p + 32));
  }
  static float one(const u8* p) {
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    return bf16_to_fp32(h);
  }
};

struct Q8_0 {
  static constexpr int kW = 32, kB = 34;
  template <class Fn>
  static void for_each(const Ctx& c, const u8* p, Fn&& fn) {
    const V d = _mm512_set1_ps(f16s(c, p));
    for (int i = 0; i < 2; ++i) {
      const __m512i q = _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 + 16 * i)));
      fn(i, _mm512_mul_ps(_mm512_cvtepi32_ps(q), d));
    }
  }
};

struct Q4_0 {
  static constexpr int kW = 32, kB = 18;
  template <class Fn>
  static void for_each(const Ctx& c, const u8* p, Fn&& fn) {
    const V table = _mm512_mul_ps(_mm512_sub_ps(iota(), _mm512_set1_ps(8.f)), _mm512_set1_ps(f16s(c, p)));
    const __m512i q = bytes16(p + 2);
    fn(0, lut(q, table));
    fn(1, lut(_mm512_srli_epi32(q, 4), table));
  }
};

struct Mxfp4 {
  static constexpr int kW = 32, kB = 17;
  template <class Fn>
  static void for_each(const Ctx& c, const u8* p, Fn&& fn) {
    const V kvalues = _mm512_setr_ps(0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12);
    const V table = _mm512_mul_ps(kvalues, _mm512_set1_ps(c.e8m0[p[0]]));
    const __m512i q = bytes16(p + 1);
    fn(0, lut(q, table));
    fn(1, lut(_mm512_srli_epi32(q, 4), table));
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

struct Q4_K {
  static constexpr int kW = 256, kB = 144;
  template <class Fn>
  static void for_each(const Ctx& c, const u8* p, Fn&& fn) {
    const float d = f16s(c, p), dmin = f16s(c, p + 2);
    alignas(32) float dl[8], ml[8];  // per sub-block d·sc and dmin·m, broadcast from memory below
    q4k_scales(p + 4, d, dmin, dl, ml);
    const u8* q = p + 16;
    for (int j = 0; j < 4; ++j, q += 32) {
      const V t1 = _mm512_fmsub_ps(iota(), _mm512_set1_ps(dl[2 * j]), _mm512_set1_ps(ml[2 * j]));
      const V t2 = _mm512_fmsub_ps(iota(), _mm512_set1_ps(dl[2 * j + 1]), _mm512_set1_ps(ml[2 * j + 1]));
      const __m512i b0 = bytes16(q), b1 = bytes16(q + 16);
      fn(4 * j + 0, lut(b0, t1));
      fn(4 * j + 1, lut(b1, t1));
      fn(4 * j + 2, lut(_mm512_srli_epi32(b0, 4), t2));
      fn(4 * j + 3, lut(_mm512_srli_epi32(b1, 4), t2));
    }
  }
};

struct Q3_K {  // value = d·(sc − 32)·(low2 + 4·hbit − 4): an 8-entry table per sub-block
  static constexpr int kW = 256, kB = 110;
  template <class Fn>
  static void for_each(const Ctx&, const u8* p, Fn&& fn) {
    const u8* s = p + 96;
    const float d_all = h2f(p + 108);
    const V levels = _mm512_sub_ps(iota(), _mm512_set1_ps(4.f));
    const __m512i h0 = bytes16(p), h1 = bytes16(p + 16);
    const __m512i three = _mm512_set1_epi32(3), one = _mm512_set1_epi32(1);
    for (int half = 0; half < 2; ++half) {
      const __m512i q0 = bytes16(p + 32 + 32 * half), q1 = bytes16(p + 48 + 32 * half);
      for (int j = 0; j < 4; ++j) {
        const int bit = 4 * half + j;
        for (int part = 0; part < 2; ++part) {
          const int is = 8 * half + 2 * j + part;
          const int lo = is < 8 ? s[is] & 0xF : s[is - 8] >> 4;
          const int sc = (lo | (((s[8 + is % 4] >> (2 * (is / 4))) & 3) << 4)) - 32;
          const V table = _mm512_mul_ps(levels, _mm512_set1_ps(d_all * static_cast<float>(sc)));
          const __m512i q = _mm512_and_si512(_mm512_srli_epi32(part ? q1 : q0, 2 * j), three);
          const __m512i h = _mm512_and_si512(_mm512_srli_epi32(part ? h1 : h0, bit), one);
          fn(2 * (4 * half + j) + part, lut(_mm512_or_si512(q, _mm512_slli_epi32(h, 2)), table));
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
    const __m512i three = _mm512_set1_epi32(3);
    int is = 0;
    for (int half = 0; half < 2; ++half) {
      const __m512i q0 = bytes16(p + 16 + 32 * half), q1 = bytes16(p + 32 + 32 * half);
      for (int j = 0; j < 4; ++j) {
        for (int part = 0; part < 2; ++part, ++is) {
          const V table = _mm512_sub_ps(_mm512_mul_ps(iota(), _mm512_set1_ps(d * static_cast<float>(p[is] & 0xF))),
                                        _mm512_set1_ps(dmin * static_cast<float>(p[is] >> 4)));
          const __m512i q = _mm512_and_si512(_mm512_srli_epi32(part ? q1 : q0, 2 * j), three);
          fn(is, lut(q, table));
        }
      }
    }
  }
};

// ---- drivers ---------------------------------------------------------------

inline float hsum(V v) { return _mm512_reduce_add_ps(v); }

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

// Batch 1: decode into registers, FMA with x, four accumulator chains.
template <class F>
void matvec(const Ctx& c, const MatmulArgs& a, std::size_t row_bytes) {
  const std::size_t units = a.cols / F::kW, tail = a.cols % F::kW;
  constexpr std::size_t kElemBytes = F::kB / F::kW;  // only meaningful for plain formats
  Prefetcher pf(a.w, a.rows * row_bytes);
  for (std::size_t r = 0; r < a.rows; ++r) {
    const u8* p = a.w + r * row_bytes;
    V acc0 = _mm512_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    std::size_t u = 0;
    for (; u + 2 <= units; u += 2) {
      pf.upto(p + u * F::kB);
      const float* x0 = a.x + u * F::kW;
      const float* x1 = x0 + F::kW;
      F::for_each(c, p + u * F::kB, [&](int i, V v) {
        if (i & 1) acc1 = _mm512_fmadd_ps(v, _mm512_loadu_ps(x0 + 16 * i), acc1);
        else acc0 = _mm512_fmadd_ps(v, _mm512_loadu_ps(x0 + 16 * i), acc0);
      });
      F::for_each(c, p + (u + 1) * F::kB, [&](int i, V v) {
        if (i & 1) acc3 = _mm512_fmadd_ps(v, _mm512_loadu_ps(x1 + 16 * i), acc3);
        else acc2 = _mm512_fmadd_ps(v, _mm512_loadu_ps(x1 + 16 * i), acc2);
      });
    }
    if (u < units) {
      const float* x0 = a.x + u * F::kW;
      F::for_each(c, p + u * F::kB, [&](int i, V v) {
        if (i & 1) acc1 = _mm512_fmadd_ps(v, _mm512_loadu_ps(x0 + 16 * i), acc1);
        else acc0 = _mm512_fmadd_ps(v, _mm512_loadu_ps(x0 + 16 * i), acc0);
      });
    }
    float s = hsum(_mm512_add_ps(_mm512_add_ps(acc0, acc1), _mm512_add_ps(acc2, acc3)));
    for (std::size_t t = 0; t < tail; ++t) {
      s += tail_one<F>(p + units * F::kB + t * kElemBytes) * a.x[units * F::kW + t];
    }
    a.y[r] = s;
  }
}

// acc[b][r] += wbuf[r] · xs[b] over `len` weights (a multiple of 16: wbuf
// and the packed activations are zero-padded).
template <int NB>
void tile(const float* wbuf, const float* xs, std::size_t len, float* acc) {
  V s[NB][kRows];
  for (int b = 0; b < NB; ++b) {
    for (int r = 0; r < kRows; ++r) s[b][r] = _mm512_loadu_ps(acc + 16 * (kRows * b + r));
  }
  for (std::size_t c = 0; c < len; c += 16) {
    V xv[NB];
    for (int b = 0; b < NB; ++b) xv[b] = _mm512_load_ps(xs + b * kTile + c);
    for (int r = 0; r < kRows; ++r) {
      V w = _mm512_load_ps(wbuf + r * kTile + c);
      __asm__("" : "+v"(w));  // keep w in a register: one load, NB uses (GCC would re-load it per FMA)
      for (int b = 0; b < NB; ++b) s[b][r] = _mm512_fmadd_ps(w, xv[b], s[b][r]);
    }
  }
  for (int b = 0; b < NB; ++b) {
    for (int r = 0; r < kRows; ++r) _mm512_storeu_ps(acc + 16 * (kRows * b + r), s[b][r]);
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
  alignas(64) float wbuf[kRows * kTile];
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
  const std::size_t acc_len = a.batch * kRows * 16;
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
          F::for_each(c, p + u * F::kB, [o](int i, V v) { _mm512_store_ps(o + 16 * i, v); });
        }
        if (tail != 0) {
          for (std::size_t k = 0; k < tail; ++k) out[units * F::kW + k] = tail_one<F>(p + units * F::kB + k * kElemBytes);
          for (std::size_t k = len; k % 16 != 0; ++k) out[k] = 0.f;
        }
      }
      const std::size_t len_v = (len + 15) / 16 * 16;
      std::size_t b0 = 0;
      for (; b0 + kBatch <= a.batch; b0 += kBatch) {
        tile<kBatch>(wbuf, xp.p + (t * a.batch + b0) * kTile, len_v, acc.p + b0 * kRows * 16);
      }
      const float* xs = xp.p + (t * a.batch + b0) * kTile;
      float* accb = acc.p + b0 * kRows * 16;
      switch (a.batch - b0) {
        case 2: tile<2>(wbuf, xs, len, accb); break;
        case 1: tile<1>(wbuf, xs, len, accb); break;
        default: break;
      }
    }
    for (std::size_t b = 0; b < a.batch; ++b) {
      for (std::size_t r = 0; r < nr; ++r) a.y[b * a.rows + r0 + r] = hsum(_mm512_loadu_ps(acc.p + 16 * (kRows * b + r)));
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

bool matmul_avx512(const MatmulArgs& a) {
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
