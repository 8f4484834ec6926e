// kernels_q8_dotprod.cpp — the integer-dot kernels of kernels_q8_neon.h with
// SDOT (Armv8.2 dotprod: 4 byte products into each int32 lane), row layout
// and rows8. Compiled with -march=armv8.2-a+dotprod; reached through
// kernels_q8.cpp and kernels_rows8.cpp only when HWCAP has asimddp (SIMD
// level neon-dotprod, and rows8 at neon-i8mm).
#include "engines/quant/kernels_q8_neon.h"

namespace moebench::detail {
bool matmul_q8_dotprod(const Q8Args& a) { return dispatch_q8<kDot>(a); }
bool matmul_rows8_dotprod(const Q8Args& a) { return dispatch_rows8<kDot>(a); }
}  // namespace moebench::detail
