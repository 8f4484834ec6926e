// kernels_q8_neon.cpp — the integer-dot kernels of kernels_q8_neon.h on
// base NEON (SMULL/SMLAL2 and pairwise adds: every aarch64 core), row
// layout and rows8, and the NEON activation quantizer. No extra -march
// flags; reached through kernels_q8.cpp and kernels_rows8.cpp at SIMD level
// neon.
#include "engines/quant/kernels_q8_neon.h"

namespace moebench::detail {
bool matmul_q8_neon(const Q8Args& a) { return dispatch_q8<kPlain>(a); }
bool matmul_rows8_neon(const Q8Args& a) { return dispatch_rows8<kPlain>(a); }
void quantize_row_neon(const float* x, std::size_t cols, std::int8_t* q, float* d, float* s) {
  quantize_row(x, cols, q, d, s);
}
}  // namespace moebench::detail
