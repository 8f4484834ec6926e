// kernels_q8_vnni.cpp — the integer-dot kernels (kernels_q8_simd.h) with
// vpdpbusd (AVX-512 VNNI on 256-bit registers), 4 weight rows × 4 activation
// rows per register tile (AVX-512VL gives 32 ymm registers); on the rows8
// layout, 8 rows × 8 activation rows. Compiled with the AVX-512 and VNNI
// flags; reached only through kernels_q8.cpp and kernels_rows8.cpp when the
// CPU has avx512vnni and the SIMD level is avx512.
#include "engines/quant/kernels_q8_simd.h"
#include "engines/quant/kernels_rows8_simd.h"

namespace moebench::detail {
bool matmul_q8_vnni(const Q8Args& a) { return dispatch_q8<true, 4, 4>(a); }
bool matmul_rows8_vnni(const Q8Args& a) { return dispatch_rows8<true, 8>(a); }
}  // namespace moebench::detail
