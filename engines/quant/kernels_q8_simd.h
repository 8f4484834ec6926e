// kernels_q8_simd.h — the integer-dot kernels of kernels_q8.h as one
// template over the byte dot product, included by kernels_q8_avx2.cpp
// (pmaddubsw + pmaddwd) and kernels_q8_vnni.cpp (vpdpbusd, AVX-512 VNNI on
// 256-bit registers: 32 of them, so a larger register tile).
//
// A register tile of R weight rows × T activation rows walks the rows'
// 32-weight blocks front to back (each row's stream prefetched ahead): per
// group of blocks the R rows' scales are read, then each block is unpacked
// to bytes once and dotted with the T activation blocks into 8 int32 lanes,
// the format's offset subtracted there, converted, and multiplied-added with
// sw·dx into R × T float accumulators; q4_k's mins go into a second set of
// accumulators once per super-block.
//
// Linkage: as kernels_simd.h — everything in an unnamed namespace, no
// std:: templates or shared inline functions (only intrinsics and
// out-of-line functions), because this header is compiled with different
// -m flags in each including file.
#pragma once

#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "kernels_q8_simd.h is for files compiled with at least -mavx2 -mfma -mf16c"
#endif

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engines/quant/kernels.h"
#include "engines/quant/kernels_q8.h"

namespace moebench::detail {
namespace {
#include "engines/quant/q4k_scale_min_inline.h"  // q4k_scale_min (inside this unnamed namespace)

using u8 = std::uint8_t;

inline float h2f(const u8* p) {
  std::uint16_t v;
  std::memcpy(&v, p, 2);
  return _cvtsh_ss(v);
}

inline __m256i nibbles(const u8* p) {  // 16 bytes → low nibbles in lanes 0..15, high in 16..31
  const __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(t, 4), t), _mm256_set1_epi8(0x0F));
}

// ---- formats: block scales and bytes ---------------------------------------
// A format works in groups of kGroup 32-weight blocks (1; q4_k: the 8
// sub-blocks of a super-block) of kGroupBytes bytes:
//   scales(row, g, sw, cw)  the group's kGroup block scales sw and, for
//                           formats with kMins, the min terms cw
//   bytes(row, k)           block k as 32 unsigned bytes u (kSigned: signed w)
// with Σ w·x̂ = sw·dx·(Σ u·q − kOffset·Σq) − cw·s per block. The kOffset
// term is subtracted in the integer lanes (a dot of the activation block
// with kOffset, once per activation block and tile), the mins in float once
// per group.

struct Q4_0 {
  static constexpr bool kSigned = false, kMins = false;
  static constexpr int kGroup = 1, kGroupBytes = 18, kOffset = 8;
  static void scales(const u8* row, std::size_t g, float* sw, float*) { *sw = h2f(row + 18 * g); }
  static __m256i bytes(const u8* row, std::size_t k) { return nibbles(row + 18 * k + 2); }
};

struct Q8_0Offset {  // VNNI: u = w + 128 (no saturation in vpdpbusd)
  static constexpr bool kSigned = false, kMins = false;
  static constexpr int kGroup = 1, kGroupBytes = 34, kOffset = 128;
  static void scales(const u8* row, std::size_t g, float* sw, float*) { *sw = h2f(row + 34 * g); }
  static __m256i bytes(const u8* row, std::size_t k) {
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 34 * k + 2));
    return _mm256_xor_si256(w, _mm256_set1_epi8(static_cast<char>(0x80)));
  }
};

struct Q8_0Signed {  // AVX2: signed bytes, multiplied through sign() (pmaddubsw would saturate at +128)
  static constexpr bool kSigned = true, kMins = false;
  static constexpr int kGroup = 1, kGroupBytes = 34, kOffset = 0;
  static void scales(const u8* row, std::size_t g, float* sw, float*) { *sw = h2f(row + 34 * g); }
  static __m256i bytes(const u8* row, std::size_t k) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 34 * k + 2));
  }
};

struct Mxfp4 {  // u = (e2m1 value × 2) + 12, offset 12; scale 2^(e − 128)
  static constexpr bool kSigned = false, kMins = false;
  static constexpr int kGroup = 1, kGroupBytes = 17, kOffset = 12;
  static void scales(const u8* row, std::size_t g, float* sw, float*) { *sw = e8m0_half_table()[row[17 * g]]; }
  static __m256i bytes(const u8* row, std::size_t k) {
    const __m256i table = _mm256_setr_epi8(12, 13, 14, 15, 16, 18, 20, 24, 12, 11, 10, 9, 8, 6, 4, 0,  //
                                           12, 13, 14, 15, 16, 18, 20, 24, 12, 11, 10, 9, 8, 6, 4, 0);
    return _mm256_shuffle_epi8(table, nibbles(row + 17 * k + 1));
  }
};

struct Q4_K {  // sub-block j of a super-block: w = d·sc_j·u − dmin·m_j
  static constexpr bool kSigned = false, kMins = true;
  static constexpr int kGroup = 8, kGroupBytes = 144, kOffset = 0;
  static void scales(const u8* row, std::size_t g, float* sw, float* cw) {
    const u8* p = row + 144 * g;
    const u8* s = p + 4;
    const float d = h2f(p), dmin = h2f(p + 2);
    for (int j = 0; j < 8; ++j) {
      int sc, m;
      q4k_scale_min(j, s, sc, m);
      sw[j] = d * static_cast<float>(sc);
      cw[j] = dmin * static_cast<float>(m);
    }
  }
  static __m256i bytes(const u8* row, std::size_t k) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 144 * (k >> 3) + 16 + 32 * ((k & 7) >> 1)));
    const __m256i lo = _mm256_set1_epi8(0x0F);
    return (k & 1) ? _mm256_and_si256(_mm256_srli_epi16(v, 4), lo) : _mm256_and_si256(v, lo);
  }
};

// ---- the dot product of 32 bytes: 8 int32 lanes ----------------------------

template <bool kVnni, bool kSigned>
inline __m256i dot32(__m256i u, __m256i q) {
  if constexpr (kSigned) {
    const __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(u, u), _mm256_sign_epi8(q, u));
    return _mm256_madd_epi16(p, _mm256_set1_epi16(1));
  } else if constexpr (kVnni) {
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
    return _mm256_dpbusd_epi32(_mm256_setzero_si256(), u, q);
#else
    static_assert(!kVnni, "VNNI kernels need -mavx512vnni -mavx512vl");
    return u;
#endif
  } else {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, q), _mm256_set1_epi16(1));
  }
}

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

#include "engines/quant/prefetch_simd.h"  // Prefetcher (inside this unnamed namespace)

// R weight rows × T activation rows from row r0 and activation row b0: y
// (y[b·rows + r]) gets the whole dot product over all blocks.
template <bool kVnni, class F, int R, int T>
void tile(const Q8Args& a, std::size_t r0, std::size_t b0, Prefetcher& pf) {
  const Q8Activations& x = *a.x;
  const std::size_t nb = x.blocks(), groups = nb / F::kGroup;
  __m256 acc[R][T], mins[R][T];
  for (int r = 0; r < R; ++r) {
    for (int t = 0; t < T; ++t) acc[r][t] = mins[r][t] = _mm256_setzero_ps();
  }
  const u8* rows[R];
  for (int r = 0; r < R; ++r) rows[r] = a.w + (r0 + static_cast<std::size_t>(r)) * a.row_bytes;
  const std::int8_t* xq[T];
  const float* xd[T];
  const float* xs[T];
  for (int t = 0; t < T; ++t) {
    const std::size_t b = b0 + static_cast<std::size_t>(t);
    xq[t] = x.q.data() + b * x.cols;
    xd[t] = x.d.data() + b * nb;
    xs[t] = x.s.data() + b * nb;
  }
  alignas(32) float sw[R][F::kGroup], cw[R][F::kGroup];
  for (std::size_t g = 0; g < groups; ++g) {
    // The R rows are contiguous: one stream through them, read R groups
    // at a time; the prefetcher runs kPrefetchBytes ahead of its front.
    pf.upto(rows[0] + static_cast<std::size_t>(R) * (g + 1) * F::kGroupBytes);
    for (int r = 0; r < R; ++r) F::scales(rows[r], g, sw[r], cw[r]);
    for (int j = 0; j < F::kGroup; ++j) {
      const std::size_t k = g * F::kGroup + static_cast<std::size_t>(j);
      __m256i u[R];
      for (int r = 0; r < R; ++r) u[r] = F::bytes(rows[r], k);
      for (int t = 0; t < T; ++t) {
        const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xq[t] + k * kQ8Block));
        const float dx = xd[t][k];
        __m256i off = _mm256_setzero_si256();
        if constexpr (F::kOffset != 0) off = dot32<kVnni, false>(_mm256_set1_epi8(static_cast<char>(F::kOffset)), q);
        for (int r = 0; r < R; ++r) {
          __m256i sumi = dot32<kVnni, F::kSigned>(u[r], q);
          if constexpr (F::kOffset != 0) sumi = _mm256_sub_epi32(sumi, off);
          acc[r][t] = _mm256_fmadd_ps(_mm256_set1_ps(sw[r][j] * dx), _mm256_cvtepi32_ps(sumi), acc[r][t]);
        }
      }
    }
    if constexpr (F::kMins) {  // kGroup == 8: one vector of min terms per group
      for (int t = 0; t < T; ++t) {
        const __m256 s8 = _mm256_loadu_ps(xs[t] + g * F::kGroup);
        for (int r = 0; r < R; ++r) mins[r][t] = _mm256_fmadd_ps(_mm256_load_ps(cw[r]), s8, mins[r][t]);
      }
    }
  }
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) {
      a.y[(b0 + static_cast<std::size_t>(t)) * a.rows + r0 + static_cast<std::size_t>(r)] =
          hsum(_mm256_sub_ps(acc[r][t], mins[r][t]));
    }
  }
}

template <bool kVnni, class F, int R, int T>
void run_format(const Q8Args& a) {
  const std::size_t batch = a.x->batch;
  Prefetcher pf(a.w, a.rows * a.row_bytes);
  std::size_t r0 = 0;
  for (; r0 + R <= a.rows; r0 += R) {
    std::size_t b0 = 0;
    for (; b0 + T <= batch; b0 += T) tile<kVnni, F, R, T>(a, r0, b0, pf);
    for (; b0 < batch; ++b0) tile<kVnni, F, R, 1>(a, r0, b0, pf);
  }
  for (; r0 < a.rows; ++r0) {
    std::size_t b0 = 0;
    for (; b0 + T <= batch; b0 += T) tile<kVnni, F, 1, T>(a, r0, b0, pf);
    for (; b0 < batch; ++b0) tile<kVnni, F, 1, 1>(a, r0, b0, pf);
  }
}

// quantize_activations() for one row of `cols` values (a multiple of 32):
// the scalar arithmetic lane by lane (max|x| / 127, x · (1/d) rounded to
// nearest even), so the bytes are the scalar path's.
inline void quantize_row(const float* x, std::size_t cols, std::int8_t* q, float* d, float* s) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  for (std::size_t k = 0; k < cols / kQ8Block; ++k, x += kQ8Block, q += kQ8Block) {
    __m256 v[4];
    __m256 m = _mm256_setzero_ps();
    for (int i = 0; i < 4; ++i) {
      v[i] = _mm256_loadu_ps(x + 8 * i);
      m = _mm256_max_ps(m, _mm256_andnot_ps(sign, v[i]));
    }
    __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
    m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
    const float amax = _mm_cvtss_f32(m4);
    const float dk = amax / 127.0f;
    const __m256 id = _mm256_set1_ps(dk != 0.0f ? 1.0f / dk : 0.0f);
    __m256i n[4];
    for (int i = 0; i < 4; ++i) {
      n[i] = _mm256_cvtps_epi32(_mm256_round_ps(_mm256_mul_ps(v[i], id), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    const __m256i sum32 = _mm256_add_epi32(_mm256_add_epi32(n[0], n[1]), _mm256_add_epi32(n[2], n[3]));
    __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(sum32), _mm256_extracti128_si256(sum32, 1));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4E));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xB1));
    // int32 → int8 in order: packs interleave 128-bit lanes, the permute restores it
    const __m256i p01 = _mm256_packs_epi32(n[0], n[1]), p23 = _mm256_packs_epi32(n[2], n[3]);
    const __m256i b = _mm256_packs_epi16(p01, p23);
    const __m256i ordered = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q), ordered);
    d[k] = dk;
    s[k] = dk * static_cast<float>(_mm_cvtsi128_si32(s4));
  }
}

template <bool kVnni, int R, int T>
bool dispatch_q8(const Q8Args& a) {
  switch (a.ggml_type) {  // ids as in quant_format.cpp
    case 2: run_format<kVnni, Q4_0, R, T>(a); return true;
    case 8:
      if constexpr (kVnni) {
        run_format<kVnni, Q8_0Offset, R, T>(a);
      } else {
        run_format<kVnni, Q8_0Signed, R, T>(a);
      }
      return true;
    case 39: run_format<kVnni, Mxfp4, R, T>(a); return true;
    case 12: run_format<kVnni, Q4_K, R, T>(a); return true;
    default: return false;
  }
}

}  // namespace
}  // namespace moebench::detail
