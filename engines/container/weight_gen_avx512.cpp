// weight_gen_avx512.cpp — the AVX-512 weight generator: eight splitmix64
// counters in one register (counter mode: the counters only add, so steps
// do not wait on each other's multiplies), each 64-bit output read as two
// 32-bit words holding two 12-bit table draws, gathered sixteen at a time.
// Produces exactly the values of fill_row_scalar in weight_gen.cpp (same
// words, same order, same outlier rule). Compiled with AVX-512 flags and
// called only after a runtime CPU check; no standard library templates, so
// no AVX-512 code can leak into generic callers.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace moebench::detail {

namespace {
inline __m512i mix64x8(__m512i x) {
  x = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_srli_epi64(x, 30)),
                         _mm512_set1_epi64(static_cast<long long>(0xbf58476d1ce4e5b9ull)));
  x = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_srli_epi64(x, 27)),
                         _mm512_set1_epi64(static_cast<long long>(0x94d049bb133111ebull)));
  return _mm512_xor_si512(x, _mm512_srli_epi64(x, 31));
}
}  // namespace

void fill_row_avx512(const float* table, const std::uint64_t counters_in[8], float row_scale, float* out,
                     std::size_t n) {
  __m512i ctr = _mm512_loadu_si512(counters_in);
  const __m512i gamma = _mm512_set1_epi64(static_cast<long long>(0x9e3779b97f4a7c15ull));
  const __m512i mask = _mm512_set1_epi32(4095);
  const __m512 scale = _mm512_set1_ps(row_scale);
  const __m512 six = _mm512_set1_ps(6.0f);
  std::size_t base = 0;
  for (; base + 32 <= n; base += 32) {
    ctr = _mm512_add_epi64(ctr, gamma);
    const __m512i w = mix64x8(ctr);
    const __m512i ia = _mm512_and_si512(w, mask);
    const __m512i ib = _mm512_and_si512(_mm512_srli_epi32(w, 12), mask);
    const __m512 va = _mm512_mul_ps(_mm512_i32gather_ps(ia, table, 4), scale);
    __m512 vb = _mm512_mul_ps(_mm512_i32gather_ps(ib, table, 4), scale);
    const __mmask16 out6 = static_cast<__mmask16>(
        _mm512_cmpeq_epi32_mask(_mm512_srli_epi32(w, 24), _mm512_setzero_si512()) & 0x5555u);
    vb = _mm512_mask_mul_ps(vb, out6, vb, six);
    _mm512_storeu_ps(out + base, va);
    _mm512_storeu_ps(out + base + 16, vb);
  }
  if (base < n) {  // last partial step: same values, only the first n - base written
    ctr = _mm512_add_epi64(ctr, gamma);
    alignas(64) std::uint32_t h[16];
    _mm512_store_si512(h, mix64x8(ctr));
    for (std::size_t m = 0; m < 32 && base + m < n; ++m) {
      const std::uint32_t word = h[m & 15];
      float v = table[(m < 16 ? word : word >> 12) & 4095] * row_scale;
      if (m >= 16 && (m & 1) == 0 && (word >> 24) == 0) v *= 6.0f;
      out[base + m] = v;
    }
  }
}

}  // namespace moebench::detail
