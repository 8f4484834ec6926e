// kernels_rows8_simd.h — the integer-dot kernels on the 8-row interleaved
// layout (kernels_q8.h, "rows8"), as one template over the byte dot
// product. Included after kernels_q8_simd.h (whose helpers and Prefetcher
// it uses) by kernels_q8_avx2.cpp and kernels_q8_vnni.cpp.
//
// A tile is one group of 8 weight rows × T activation rows. Per 32-column
// block, each 32-byte load holds 4 consecutive columns of all 8 rows (q4_0:
// two such sets in its nibbles); the activation's matching 4 bytes are
// broadcast to every 32-bit lane, so one dot instruction adds 4 products to
// each row's lane. After the block, lane r holds row r's Σu·q for the block:
// one conversion, one fused subtract of the format offset (o·s), and one
// multiply-add with the 8 rows' scales (one conversion) per activation row —
// against one of each per row and activation row in the row layout.
//
// Linkage: as kernels_q8_simd.h (everything in its unnamed namespace).
#pragma once

#include "engines/quant/kernels_q8_simd.h"

namespace moebench::detail {
namespace {

inline __m256i broadcast4(const std::int8_t* p) {
  std::int32_t v;
  std::memcpy(&v, p, 4);
  return _mm256_set1_epi32(v);
}

inline __m256i load32(const u8* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

// ---- formats: a group block's scales and its per-row dot products ---------
// dots<kVnni, T>(blk, q, out): out[t] lane r = Σ_i u[r][i]·q[t][i] over the
// block's 32 columns, with w = sw·(u − offset<kVnni>).

// Nibble formats: q4_0 (u = the nibble, offset 8, fp16 scales) and mxfp4
// (u = doubled e2m1 value + 12 by table, offset 12, e8m0 scales).
template <std::uint32_t kType>
struct Rows8Nibbles {
  static constexpr bool kTable = kType == 39, kIsQ4K = false;
  static constexpr std::size_t kScaleBytes = kTable ? 8 : 16, kGroupBlock = kScaleBytes + 128;
  template <bool kVnni>
  static constexpr float offset() { return kTable ? 12.0f : 8.0f; }
  static __m256 scales(const u8* blk, const float* e8m0) {
    if constexpr (kTable) {
      const __m256i e = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(blk)));
      return _mm256_i32gather_ps(e8m0, e, 4);
    } else {
      return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk)));
    }
  }
  static void unpack(const u8* chunk, __m256i& lo, __m256i& hi) {
    const __m256i m = _mm256_set1_epi8(0x0F);
    const __m256i p = load32(chunk);
    lo = _mm256_and_si256(p, m);
    hi = _mm256_and_si256(_mm256_srli_epi16(p, 4), m);
    if constexpr (kTable) {
      const __m256i table = _mm256_setr_epi8(12, 13, 14, 15, 16, 18, 20, 24, 12, 11, 10, 9, 8, 6, 4, 0,  //
                                             12, 13, 14, 15, 16, 18, 20, 24, 12, 11, 10, 9, 8, 6, 4, 0);
      lo = _mm256_shuffle_epi8(table, lo);
      hi = _mm256_shuffle_epi8(table, hi);
    }
  }
  template <bool kVnni, int T>
  static void dots(const u8* blk, const std::int8_t* const* q, __m256i* out) {
    chunk_dots<kVnni, T>(blk + kScaleBytes, q, out);
  }
  // The 4 nibble chunks of one 32-column block (also q4_k's sub-blocks).
  template <bool kVnni, int T>
  static void chunk_dots(const u8* chunks, const std::int8_t* const* q, __m256i* out) {
    if constexpr (kVnni) {
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
      for (int t = 0; t < T; ++t) out[t] = _mm256_setzero_si256();
      for (int c = 0; c < 4; ++c) {
        __m256i lo, hi;
        unpack(chunks + 32 * c, lo, hi);
        for (int t = 0; t < T; ++t) {
          out[t] = _mm256_dpbusd_epi32(out[t], lo, broadcast4(q[t] + 8 * c));
          out[t] = _mm256_dpbusd_epi32(out[t], hi, broadcast4(q[t] + 8 * c + 4));
        }
      }
#endif
    } else {
      // int16 partial sums: a pmaddubsw lane is at most 2·15·127 = 3810
      // (q4_0; all 8 of a block fit) or 2·24·127 = 6096 (mxfp4; 4 fit),
      // then pmaddwd widens them.
      constexpr int kPerWiden = kTable ? 2 : 4;
      const __m256i ones = _mm256_set1_epi16(1);
      for (int t = 0; t < T; ++t) out[t] = _mm256_setzero_si256();
      for (int c0 = 0; c0 < 4; c0 += kPerWiden) {
        __m256i s16[T];
        for (int t = 0; t < T; ++t) s16[t] = _mm256_setzero_si256();
        for (int c = c0; c < c0 + kPerWiden; ++c) {
          __m256i lo, hi;
          unpack(chunks + 32 * c, lo, hi);
          for (int t = 0; t < T; ++t) {
            s16[t] = _mm256_add_epi16(s16[t], _mm256_maddubs_epi16(lo, broadcast4(q[t] + 8 * c)));
            s16[t] = _mm256_add_epi16(s16[t], _mm256_maddubs_epi16(hi, broadcast4(q[t] + 8 * c + 4)));
          }
        }
        for (int t = 0; t < T; ++t) out[t] = _mm256_add_epi32(out[t], _mm256_madd_epi16(s16[t], ones));
      }
    }
  }
};

// q8_0 (fp16 scales, 8 chunks). VNNI: u = w + 128 (offset 128); AVX2:
// signed bytes through sign() (offset 0).
struct Rows8Q8_0 {
  static constexpr bool kIsQ4K = false;
  static constexpr std::size_t kScaleBytes = 16, kGroupBlock = 272;
  template <bool kVnni>
  static constexpr float offset() { return kVnni ? 128.0f : 0.0f; }
  static __m256 scales(const u8* blk, const float*) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk))); }
  template <bool kVnni, int T>
  static void dots(const u8* blk, const std::int8_t* const* q, __m256i* out) {
    for (int t = 0; t < T; ++t) out[t] = _mm256_setzero_si256();
    for (int c = 0; c < 8; ++c) {
      const __m256i w = load32(blk + kScaleBytes + 32 * c);
      if constexpr (kVnni) {
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
        const __m256i u = _mm256_xor_si256(w, _mm256_set1_epi8(static_cast<char>(0x80)));
        for (int t = 0; t < T; ++t) out[t] = _mm256_dpbusd_epi32(out[t], u, broadcast4(q[t] + 4 * c));
#endif
      } else {
        const __m256i aw = _mm256_sign_epi8(w, w);
        for (int t = 0; t < T; ++t) {
          const __m256i p = _mm256_maddubs_epi16(aw, _mm256_sign_epi8(broadcast4(q[t] + 4 * c), w));
          out[t] = _mm256_add_epi32(out[t], _mm256_madd_epi16(p, _mm256_set1_epi16(1)));
        }
      }
    }
  }
};

// Activation rows b0..b0+T-1 of a tile: their bytes, block scales d and
// scaled sums s.
template <int T>
struct ActivationRows {
  const std::int8_t* q[T];
  const float* d[T];
  const float* s[T];
  ActivationRows(const Q8Activations& x, std::size_t b0) {
    for (int t = 0; t < T; ++t) {
      const std::size_t b = b0 + static_cast<std::size_t>(t);
      q[t] = x.q.data() + b * x.cols;
      d[t] = x.d.data() + b * x.blocks();
      s[t] = x.s.data() + b * x.blocks();
    }
  }
};

// Group g (rows 8g..8g+7) × activation rows b0..b0+T-1.
template <bool kVnni, class F, int T>
void tile_rows8(const Q8Args& a, std::size_t g, std::size_t b0, Prefetcher& pf, const float* e8m0) {
  constexpr float kOffset = F::template offset<kVnni>();
  const Q8Activations& x = *a.x;
  const std::size_t nb = x.blocks();
  const u8* group = a.w + g * 8 * a.row_bytes;
  const ActivationRows<T> act(x, b0);
  __m256 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps();
  for (std::size_t k = 0; k < nb; ++k) {
    const u8* blk = group + k * F::kGroupBlock;
    pf.upto(blk + F::kGroupBlock);
    const __m256 sw = F::scales(blk, e8m0);
    const std::int8_t* qk[T];
    for (int t = 0; t < T; ++t) qk[t] = act.q[t] + k * kQ8Block;
    __m256i isum[T];
    F::template dots<kVnni, T>(blk, qk, isum);
    for (int t = 0; t < T; ++t) {
      const __m256 f = _mm256_fmsub_ps(_mm256_cvtepi32_ps(isum[t]), _mm256_set1_ps(act.d[t][k]),
                                       _mm256_set1_ps(kOffset * act.s[t][k]));
      acc[t] = _mm256_fmadd_ps(sw, f, acc[t]);
    }
  }
  for (int t = 0; t < T; ++t) _mm256_storeu_ps(a.y + (b0 + static_cast<std::size_t>(t)) * a.rows + 8 * g, acc[t]);
}

// q4_k: group g × activation rows b0..b0+T-1, per 256-column super-block
// (kernels_q8.h): the 8 rows' d and dmin converted once, their 6-bit
// scales and mins unpacked into 8-lane vectors per sub-block, each sub-block
// dotted as a q4_0 block, then acc += d·sc·(Σu·q·dx) − dmin·m·s.
template <bool kVnni, int T>
void tile_rows8_q4k(const Q8Args& a, std::size_t g, std::size_t b0, Prefetcher& pf) {
  constexpr std::size_t kGroupSuper = 8 * 144;
  const std::size_t nsb = a.cols / 256;
  const u8* group = a.w + g * 8 * a.row_bytes;
  const ActivationRows<T> act(*a.x, b0);
  __m256 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps();
  for (std::size_t k = 0; k < nsb; ++k) {
    const u8* gsb = group + k * kGroupSuper;
    pf.upto(gsb + kGroupSuper);
    const __m256 dv = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(gsb)));
    const __m256 dminv = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(gsb + 16)));
    // Bytes 0-3, 4-7 and 8-11 of every row's packed scales, one row per
    // lane: sub-block j < 4 has sc = byte j & 63 of w0, m = byte j & 63 of
    // w1; j ≥ 4 takes its low 4 bits from byte j − 4 of w2 (sc: low nibble,
    // m: high) and its top 2 from the top bits of byte j − 4 of w0 (sc) or
    // w1 (m).
    const __m256i w0 = load32(gsb + 32), w1 = load32(gsb + 64), w2 = load32(gsb + 96);
    const __m256i m63 = _mm256_set1_epi32(63), m15 = _mm256_set1_epi32(15), m3 = _mm256_set1_epi32(3);
    for (int j = 0; j < 8; ++j) {
      const std::size_t blk = 8 * k + static_cast<std::size_t>(j);
      __m256i sc, mn;
      if (j < 4) {
        const __m256i sh = _mm256_set1_epi32(8 * j);
        sc = _mm256_and_si256(_mm256_srlv_epi32(w0, sh), m63);
        mn = _mm256_and_si256(_mm256_srlv_epi32(w1, sh), m63);
      } else {
        const __m256i lo = _mm256_set1_epi32(8 * (j - 4)), hi = _mm256_set1_epi32(8 * (j - 4) + 6);
        const __m256i top_s = _mm256_slli_epi32(_mm256_and_si256(_mm256_srlv_epi32(w0, hi), m3), 4);
        const __m256i top_m = _mm256_slli_epi32(_mm256_and_si256(_mm256_srlv_epi32(w1, hi), m3), 4);
        sc = _mm256_or_si256(_mm256_and_si256(_mm256_srlv_epi32(w2, lo), m15), top_s);
        mn = _mm256_or_si256(_mm256_and_si256(_mm256_srlv_epi32(w2, _mm256_add_epi32(lo, _mm256_set1_epi32(4))), m15), top_m);
      }
      const __m256 sw = _mm256_mul_ps(dv, _mm256_cvtepi32_ps(sc));
      const __m256 cw = _mm256_mul_ps(dminv, _mm256_cvtepi32_ps(mn));
      const std::int8_t* qk[T];
      for (int t = 0; t < T; ++t) qk[t] = act.q[t] + blk * kQ8Block;
      __m256i isum[T];
      Rows8Nibbles<2>::chunk_dots<kVnni, T>(gsb + 128 + 128 * static_cast<std::size_t>(j), qk, isum);
      for (int t = 0; t < T; ++t) {
        const __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(isum[t]), _mm256_set1_ps(act.d[t][blk]));
        acc[t] = _mm256_fmadd_ps(sw, f, acc[t]);
        acc[t] = _mm256_fnmadd_ps(cw, _mm256_set1_ps(act.s[t][blk]), acc[t]);
      }
    }
  }
  for (int t = 0; t < T; ++t) _mm256_storeu_ps(a.y + (b0 + static_cast<std::size_t>(t)) * a.rows + 8 * g, acc[t]);
}

// q4_k's tag for run_rows8 (its tile is tile_rows8_q4k).
struct Rows8Q4K {
  static constexpr bool kIsQ4K = true;
};

template <bool kVnni, class F, int T>
void tile_any(const Q8Args& a, std::size_t g, std::size_t b0, Prefetcher& pf, const float* e8m0) {
  if constexpr (F::kIsQ4K) {
    tile_rows8_q4k<kVnni, T>(a, g, b0, pf);
  } else {
    tile_rows8<kVnni, F, T>(a, g, b0, pf, e8m0);
  }
}

template <bool kVnni, class F, int T>
void run_rows8(const Q8Args& a) {
  const std::size_t batch = a.x->batch;
  Prefetcher pf(a.w, a.rows * a.row_bytes);
  const float* e8m0 = e8m0_half_table();  // e8m0 → 2^(e − 128) (mxfp4's doubled values)
  for (std::size_t g = 0; g < a.rows / 8; ++g) {
    std::size_t b0 = 0;
    for (; b0 + T <= batch; b0 += T) tile_any<kVnni, F, T>(a, g, b0, pf, e8m0);
    if constexpr (T > 4) {
      for (; b0 + 4 <= batch; b0 += 4) tile_any<kVnni, F, 4>(a, g, b0, pf, e8m0);
    }
    if constexpr (T > 2) {
      for (; b0 + 2 <= batch; b0 += 2) tile_any<kVnni, F, 2>(a, g, b0, pf, e8m0);
    }
    for (; b0 < batch; ++b0) tile_any<kVnni, F, 1>(a, g, b0, pf, e8m0);
  }
}

template <bool kVnni, int T>
bool dispatch_rows8(const Q8Args& a) {
  switch (a.ggml_type) {
    case 2: run_rows8<kVnni, Rows8Nibbles<2>, T>(a); return true;
    case 8: run_rows8<kVnni, Rows8Q8_0, T>(a); return true;
    case 39: run_rows8<kVnni, Rows8Nibbles<39>, T>(a); return true;
    case 12: run_rows8<kVnni, Rows8Q4K, T>(a); return true;
    default: return false;
  }
}

}  // namespace
}  // namespace moebench::detail
