// kernels_simd.h — the SIMD kernel drivers shared by kernels_avx2.cpp and
// kernels_avx512.cpp, written once as templates over a per-ISA traits type.
//
// A traits type (Avx2 in kernels_avx2.cpp, Avx512 in kernels_avx512.cpp,
// Neon in kernels_neon.cpp) holds only the vector type, its width, the
// register tile height and the intrinsics the drivers need:
//
//   using V;                             float vector
//   kLanes                               floats per V (8 / 16; NEON 4)
//   kRows                                weight rows per matmul register tile
//   zero() set1(f) load(p) loadu(p)      load: aligned to sizeof(V)
//   store(p, v) storeu(p, v)
//   add(a, b) fmadd(a, b, c)             fmadd = a·b + c, fused
//   hsum(v)                              sum of the lanes
//   from_f16(p) from_bf16(p)             kLanes fp16 / bf16 values at p
//   chain(parity, i)                     matvec accumulator (0..3) for vector
//                                        i of a unit at unit-index parity
//
// chain() fixes each ISA's summation order as it was before the drivers were
// shared, so the two files' outputs are bit for bit what they were.
//
// Everything else lives here: the plain formats (f32, f16, bf16) as unit
// decoders over the traits, the q4_K scale unpacking (x86: 256-bit,
// available to both x86 files), the software prefetcher, matvec (batch 1, two units per
// step), the register tile and matmul (batch > 1, X repacked tile-major,
// weights decoded once per tile), and the dispatch on the format. The block
// formats (q8_0, q4_0, mxfp4, q4_K, q3_K, q2_K) decode differently per ISA
// (pshufb on int8 vs. vpermps on a float table vs. NEON's tbl) and stay in
// the ISA's file.
//
// Unit decoders: struct with kW (weights per unit), kB (bytes per unit) and
// for_each(ctx, p, fn) calling fn(i, v) with weights [kLanes·i, kLanes·(i+1))
// of the unit, in order. Plain formats also have one(p) (one weight, for
// column tails). Formats with one scale per 32 weights may instead offer
// scale(ctx, p) and for_each_raw(ctx, p, fn) (unscaled values): matvec then
// sums raw products per unit and applies the scale once.
//
// Linkage: this header is included by files compiled with different -m
// flags. Everything in it is in an unnamed namespace, so each file gets its
// own copy and the linker can never pick an AVX-512 body for the AVX2 path
// (or either for portable code). For the same reason nothing here may
// instantiate inline functions or templates from shared headers
// (std::vector, std::min, QuantFormat::bytes_for, ...): only intrinsics,
// builtins, out-of-line functions and this header's own helpers.
#pragma once

#if defined(__x86_64__)
#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "kernels_simd.h is for files compiled with at least -mavx2 -mfma -mf16c"
#endif
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#else
#error "kernels_simd.h is for x86-64 (AVX2 and up) and aarch64 (NEON)"
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

#include "engines/quant/dequantize.h"
#include "engines/quant/kernels.h"

namespace moebench::detail {
namespace {

using u8 = std::uint8_t;
constexpr std::size_t kTile = 256;  // weights per decoded tile (matmul)
constexpr int kBatch = 3;           // activation rows per register tile

struct Ctx {
  const float* f16;   // fp16 bits → float (block scales: memory broadcasts)
  const float* e8m0;  // e8m0 → 2^(e-128)
};
// fp16 at p as a float: F16C's conversion (x86) or the FCVT instruction
// (aarch64's __fp16), not the 256 KiB fp16 table: a table lookup per block
// misses L1 and L2 (perf put ~40 % of the q4_0 matmul on those loads); all
// are exact, so the bytes are the same.
inline float h2f(const u8* p) {
#if defined(__x86_64__)
  std::uint16_t v;
  std::memcpy(&v, p, 2);
  return _cvtsh_ss(v);
#else
  __fp16 h;
  std::memcpy(&h, p, 2);
  return static_cast<float>(h);
#endif
}
// A block's fp16 scale.
inline float f16s(const Ctx&, const u8* p) { return h2f(p); }

// ---- plain formats: kW = 32 values per unit -------------------------------

template <class Isa>
struct F32 {
  static constexpr int kW = 32, kB = 128;
  template <class Fn>
  static void for_each(const Ctx&, const u8* p, Fn&& fn) {
    for (int i = 0; i < kW / Isa::kLanes; ++i) fn(i, Isa::loadu(reinterpret_cast<const float*>(p + 4 * Isa::kLanes * i)));
  }
  static float one(const u8* p) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
};

template <class Isa>
struct F16 {
  static constexpr int kW = 32, kB = 64;
  template <class Fn>
  static void for_each(const Ctx&, const u8* p, Fn&& fn) {
    for (int i = 0; i < kW / Isa::kLanes; ++i) fn(i, Isa::from_f16(p + 2 * Isa::kLanes * i));
  }
  static float one(const u8* p) { return h2f(p); }
};

template <class Isa>
struct Bf16 {
  static constexpr int kW = 32, kB = 64;
  template <class Fn>
  static void for_each(const Ctx&, const u8* p, Fn&& fn) {
    for (int i = 0; i < kW / Isa::kLanes; ++i) fn(i, Isa::from_bf16(p + 2 * Isa::kLanes * i));
  }
  static float one(const u8* p) {
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    return bf16_to_fp32(h);
  }
};

#if defined(__x86_64__)
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
#endif

// ---- drivers ---------------------------------------------------------------

template <class F>
float tail_one(const u8* p) {
  if constexpr (requires { F::one(p); }) {
    return F::one(p);
  } else {
    return 0.f;  // block formats have no tail: cols is a multiple of kW
  }
}

#include "engines/quant/prefetch_simd.h"  // Prefetcher (inside this unnamed namespace)

// acc[...] += one unit (weights at w, activations at x) for a unit at index
// parity kParity. Formats with a per-unit scale: raw products in two chains,
// summed, scaled once into acc[kParity]; others: each vector into the chain
// Isa::chain(kParity, i).
template <class Isa, class F, int kParity>
inline void dot_unit(const Ctx& c, const u8* w, const float* x, typename Isa::V (&acc)[4]) {
  using V = typename Isa::V;
  constexpr int L = Isa::kLanes;
  if constexpr (requires { F::scale(c, w); }) {
    V s0 = Isa::zero(), s1 = s0;
    F::for_each_raw(c, w, [&](int i, V v) {
      if (i & 1) s1 = Isa::fmadd(v, Isa::loadu(x + L * i), s1);
      else s0 = Isa::fmadd(v, Isa::loadu(x + L * i), s0);
    });
    const V d = Isa::set1(F::scale(c, w));
    acc[kParity] = Isa::fmadd(Isa::add(s0, s1), d, acc[kParity]);
  } else {
    F::for_each(c, w, [&](int i, V v) {
      const V xv = Isa::loadu(x + L * i);
      switch (Isa::chain(kParity, i)) {
        case 0: acc[0] = Isa::fmadd(v, xv, acc[0]); break;
        case 1: acc[1] = Isa::fmadd(v, xv, acc[1]); break;
        case 2: acc[2] = Isa::fmadd(v, xv, acc[2]); break;
        default: acc[3] = Isa::fmadd(v, xv, acc[3]); break;
      }
    });
  }
}

// Batch 1: decode into registers, FMA with x, four accumulator chains; two
// units per step (one prefetch call per step), an odd last unit, then the
// column tail of plain formats one weight at a time.
template <class Isa, class F>
void matvec(const Ctx& c, const MatmulArgs& a, std::size_t row_bytes) {
  using V = typename Isa::V;
  const std::size_t units = a.cols / F::kW, tail = a.cols % F::kW;
  constexpr std::size_t kElemBytes = F::kB / F::kW;  // only meaningful for plain formats
  Prefetcher pf(a.w, a.rows * row_bytes);
  for (std::size_t r = 0; r < a.rows; ++r) {
    const u8* p = a.w + r * row_bytes;
    V acc[4] = {Isa::zero(), Isa::zero(), Isa::zero(), Isa::zero()};
    std::size_t u = 0;
    for (; u + 2 <= units; u += 2) {
      pf.upto(p + u * F::kB);
      dot_unit<Isa, F, 0>(c, p + u * F::kB, a.x + u * F::kW, acc);
      dot_unit<Isa, F, 1>(c, p + (u + 1) * F::kB, a.x + (u + 1) * F::kW, acc);
    }
    if (u < units) {  // already prefetched: kPrefetchBytes is more than two units
      dot_unit<Isa, F, 0>(c, p + u * F::kB, a.x + u * F::kW, acc);
    }
    float s = Isa::hsum(Isa::add(Isa::add(acc[0], acc[1]), Isa::add(acc[2], acc[3])));
    for (std::size_t t = 0; t < tail; ++t) {
      s += tail_one<F>(p + units * F::kB + t * kElemBytes) * a.x[units * F::kW + t];
    }
    a.y[r] = s;
  }
}

// acc[b][r] += wbuf[r] · xs[b] over `len` weights (wbuf and the packed
// activations are zero-padded to a multiple of kLanes).
template <class Isa, int NB>
void tile(const float* wbuf, const float* xs, std::size_t len, float* acc) {
  using V = typename Isa::V;
  constexpr int L = Isa::kLanes, kRows = Isa::kRows;
  V s[NB][kRows];
  for (int b = 0; b < NB; ++b) {
    for (int r = 0; r < kRows; ++r) s[b][r] = Isa::loadu(acc + L * (kRows * b + r));
  }
  for (std::size_t c = 0; c < len; c += L) {
    V xv[NB];
    for (int b = 0; b < NB; ++b) xv[b] = Isa::load(xs + b * kTile + c);
    for (int r = 0; r < kRows; ++r) {
      V w = Isa::load(wbuf + r * kTile + c);
#if defined(__x86_64__)
      __asm__("" : "+v"(w));  // keep w in a register: one load, NB uses (GCC would re-load it per FMA)
#else
      __asm__("" : "+w"(w));
#endif
      for (int b = 0; b < NB; ++b) s[b][r] = Isa::fmadd(w, xv[b], s[b][r]);
    }
  }
  for (int b = 0; b < NB; ++b) {
    for (int r = 0; r < kRows; ++r) Isa::storeu(acc + L * (kRows * b + r), s[b][r]);
  }
}

// A per-thread buffer that only grows (heap memory without std::
// templates, see the file comment): the repacked activations and the
// accumulators of a batched call, without an allocation per call (glibc
// serves ≥ 128 KiB from mmap and returns it on free).
struct ScratchFloats {
  float* p = nullptr;
  std::size_t n = 0;
  ScratchFloats() = default;
  ScratchFloats(const ScratchFloats&) = delete;
  ScratchFloats& operator=(const ScratchFloats&) = delete;
  ~ScratchFloats() {
    if (p != nullptr) ::operator delete[](p, std::align_val_t{64});
  }
  float* get(std::size_t want) {
    if (want > n) {
      if (p != nullptr) ::operator delete[](p, std::align_val_t{64});
      p = new (std::align_val_t{64}) float[want];
      n = want;
    }
    return p;
  }
};
inline thread_local ScratchFloats scratch_xp, scratch_acc;

// Batch > 1. X is first repacked tile-major (tile t, row b → 256
// contiguous floats, zero-padded): activation rows cols·4 bytes apart would
// map to the same L1 sets whenever that is a multiple of 4 KiB (3072 columns
// is). Then per group of kRows rows and tile of ≤ 256 columns, the weights are
// decoded once into wbuf and every activation row runs against them.
template <class Isa, class F>
void matmul(const Ctx& c, const MatmulArgs& a, std::size_t row_bytes) {
  using V = typename Isa::V;
  constexpr int L = Isa::kLanes, kRows = Isa::kRows;
  alignas(sizeof(V)) float wbuf[kRows * kTile];
  const std::size_t tiles = (a.cols + kTile - 1) / kTile;
  struct {
    float* p;
  } xp{scratch_xp.get(tiles * a.batch * kTile)};
  for (std::size_t t = 0; t < tiles; ++t) {
    const std::size_t c0 = t * kTile, len = a.cols - c0 < kTile ? a.cols - c0 : kTile;
    for (std::size_t b = 0; b < a.batch; ++b) {
      float* dst = xp.p + (t * a.batch + b) * kTile;
      std::memcpy(dst, a.x + b * a.cols + c0, len * sizeof(float));
      std::memset(dst + len, 0, (kTile - len) * sizeof(float));
    }
  }
  const std::size_t acc_len = a.batch * kRows * L;
  struct {
    float* p;
  } acc{scratch_acc.get(acc_len)};
  constexpr std::size_t kElemBytes = F::kB / F::kW;
  // The kRows rows of a group are contiguous and read a tile at a time, all
  // rows together: one stream, prefetched ahead of its front (without it the
  // next group's rows start cold: perf showed the decode loads stalling).
  Prefetcher pf(a.w, a.rows * row_bytes);
  for (std::size_t r0 = 0; r0 < a.rows; r0 += kRows) {
    const std::size_t nr = a.rows - r0 < kRows ? a.rows - r0 : kRows;
    if (nr < kRows) std::memset(wbuf + nr * kTile, 0, (kRows - nr) * kTile * sizeof(float));
    std::memset(acc.p, 0, acc_len * sizeof(float));
    for (std::size_t t = 0; t < tiles; ++t) {
      const std::size_t c0 = t * kTile, len = a.cols - c0 < kTile ? a.cols - c0 : kTile;
      const std::size_t units = len / F::kW, tail = len % F::kW;
      pf.upto(a.w + r0 * row_bytes + nr * ((c0 + len) / F::kW * F::kB + tail * kElemBytes));
      for (std::size_t r = 0; r < nr; ++r) {
        const u8* p = a.w + (r0 + r) * row_bytes + c0 / F::kW * F::kB;
        float* out = wbuf + r * kTile;
        for (std::size_t u = 0; u < units; ++u) {
          float* o = out + u * F::kW;
          F::for_each(c, p + u * F::kB, [o](int i, V v) { Isa::store(o + L * i, v); });
        }
        if (tail != 0) {
          for (std::size_t k = 0; k < tail; ++k) out[units * F::kW + k] = tail_one<F>(p + units * F::kB + k * kElemBytes);
          for (std::size_t k = len; k % L != 0; ++k) out[k] = 0.f;
        }
      }
      const std::size_t len_v = (len + L - 1) / L * L;
      std::size_t b0 = 0;
      for (; b0 + kBatch <= a.batch; b0 += kBatch) {
        tile<Isa, kBatch>(wbuf, xp.p + (t * a.batch + b0) * kTile, len_v, acc.p + b0 * kRows * L);
      }
      const float* xs = xp.p + (t * a.batch + b0) * kTile;
      float* accb = acc.p + b0 * kRows * L;
      switch (a.batch - b0) {
        case 2: tile<Isa, 2>(wbuf, xs, len, accb); break;
        case 1: tile<Isa, 1>(wbuf, xs, len, accb); break;
        default: break;
      }
    }
    for (std::size_t b = 0; b < a.batch; ++b) {
      for (std::size_t r = 0; r < nr; ++r) a.y[b * a.rows + r0 + r] = Isa::hsum(Isa::loadu(acc.p + L * (kRows * b + r)));
    }
  }
}

template <class Isa, class F>
bool run(const MatmulArgs& a) {
  const Ctx c{fp16_table(), e8m0_half_table()};
  const std::size_t row_bytes = a.cols / a.fmt.block_weights * a.fmt.block_bytes;
  if (a.batch == 1) {
    matvec<Isa, F>(c, a, row_bytes);
  } else {
    matmul<Isa, F>(c, a, row_bytes);
  }
  return true;
}

// The whole kernel of one ISA: the plain formats from above, the block
// formats' unit decoders from the ISA's file. False: no SIMD version.
template <class Isa, class Q8_0, class Q4_0, class Mxfp4, class Q4_K, class Q3_K, class Q2_K>
bool dispatch(const MatmulArgs& a) {
  switch (a.fmt.ggml_type) {  // ids as in quant_format.cpp
    case 0: return run<Isa, F32<Isa>>(a);
    case 1: return run<Isa, F16<Isa>>(a);
    case 30: return run<Isa, Bf16<Isa>>(a);
    case 8: return run<Isa, Q8_0>(a);
    case 2: return run<Isa, Q4_0>(a);
    case 39: return run<Isa, Mxfp4>(a);
    case 12: return run<Isa, Q4_K>(a);
    case 11: return run<Isa, Q3_K>(a);
    case 10: return run<Isa, Q2_K>(a);
    default: return false;
  }
}

}  // namespace
}  // namespace moebench::detail
