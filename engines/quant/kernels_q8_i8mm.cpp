// kernels_q8_i8mm.cpp — the row-layout integer-dot kernel of
// kernels_q8_neon.h with SMMLA (Armv8.6 i8mm: a 2 × 8 by 8 × 2 byte matrix
// product per instruction) for tiles of 4 weight rows × 4 activation rows,
// SDOT for the rest. Compiled with -march=armv8.2-a+dotprod+i8mm; reached
// through kernels_q8.cpp only when HWCAP has asimddp and HWCAP2 i8mm (SIMD
// level neon-i8mm).
#include "engines/quant/kernels_q8_neon.h"

namespace moebench::detail {
bool matmul_q8_i8mm(const Q8Args& a) { return dispatch_q8<kMmla>(a); }
}  // namespace moebench::detail
