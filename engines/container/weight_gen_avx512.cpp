// weight_gen_avx512.cpp — the AVX-512 weight generator: eight splitmix64
// lanes in one register, five 12-bit table draws per lane per step, gathered
// eight at a time. Produces exactly the values of fill_row_scalar in
// weight_gen.cpp (same lanes, same order, same outlier rule). Compiled with
// AVX-512 flags and called only after a runtime CPU check; no standard
// library templates, so no AVX-512 code can leak into generic callers.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace moebench::detail {

namespace {
inline __m512i splitmix64x8(__m512i x) {
  x = _mm512_add_epi64(x, _mm512_set1_epi64(static_cast<long long>(0x9e3779b97f4a7c15ull)));
  x = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_srli_epi64(x, 30)),
                         _mm512_set1_epi64(static_cast<long long>(0xbf58476d1ce4e5b9ull)));
  x = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_srli_epi64(x, 27)),
                         _mm512_set1_epi64(static_cast<long long>(0x94d049bb133111ebull)));
  return _mm512_xor_si512(x, _mm512_srli_epi64(x, 31));
}
}  // namespace

void fill_row_avx512(const float* table, const std::uint64_t lanes_in[8], float row_scale, float* out, std::size_t n) {
  __m512i lanes = _mm512_loadu_si512(lanes_in);
  const __m512i mask = _mm512_set1_epi64(4095);
  const __m256 scale = _mm256_set1_ps(row_scale);
  const __m256 six = _mm256_set1_ps(6.0f);
  std::size_t base = 0;
  for (; base + 40 <= n; base += 40) {
    lanes = splitmix64x8(lanes);
    for (int j = 0; j < 5; ++j) {
      const __m512i idx = _mm512_and_si512(_mm512_srlv_epi64(lanes, _mm512_set1_epi64(12 * j)), mask);
      __m256 v = _mm256_mul_ps(_mm512_i64gather_ps(idx, table, 4), scale);
      if (j == 4) {
        const __mmask8 top = _mm512_cmpeq_epi64_mask(_mm512_srli_epi64(lanes, 60), _mm512_setzero_si512());
        const __mmask8 mid = _mm512_cmpeq_epi64_mask(
            _mm512_and_si512(_mm512_srli_epi64(lanes, 20), _mm512_set1_epi64(0xf)), _mm512_setzero_si512());
        v = _mm256_mask_mul_ps(v, static_cast<__mmask8>(top & mid), v, six);
      }
      _mm256_storeu_ps(out + base + 8 * j, v);
    }
  }
  if (base < n) {  // last partial step: same values, only the first n - base written
    lanes = splitmix64x8(lanes);
    alignas(64) std::uint64_t l[8];
    _mm512_store_si512(l, lanes);
    for (int j = 0; j < 5; ++j) {
      for (int k = 0; k < 8; ++k) {
        const std::size_t i = base + static_cast<std::size_t>(8 * j + k);
        if (i >= n) return;
        float v = table[(l[k] >> (12 * j)) & 4095] * row_scale;
        if (j == 4 && (l[k] >> 60) == 0 && ((l[k] >> 20) & 0xf) == 0) v *= 6.0f;
        out[i] = v;
      }
    }
  }
}

}  // namespace moebench::detail
