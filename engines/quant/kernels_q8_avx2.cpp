// kernels_q8_avx2.cpp — the integer-dot kernels (kernels_q8_simd.h) with
// pmaddubsw + pmaddwd, 4 weight rows × 2 activation rows per register tile
// (all 16 ymm registers); on the rows8 layout, 8 rows × 4 activation rows.
// Compiled with -mavx2 -mfma -mf16c; reached only through kernels_q8.cpp
// and kernels_rows8.cpp after a runtime CPU check.
#include "engines/quant/kernels_q8_simd.h"
#include "engines/quant/kernels_rows8_simd.h"

namespace moebench::detail {
bool matmul_q8_avx2(const Q8Args& a) { return dispatch_q8<false, 4, 2>(a); }
bool matmul_rows8_avx2(const Q8Args& a) { return dispatch_rows8<false, 4>(a); }
void quantize_row_avx2(const float* x, std::size_t cols, std::int8_t* q, float* d, float* s) {
  quantize_row(x, cols, q, d, s);
}
}  // namespace moebench::detail
