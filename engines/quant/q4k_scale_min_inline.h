// q4k_scale_min_inline.h — Q4_K's 6-bit (scale, min) unpacking for the
// kernels' inner loops, included INSIDE an unnamed namespace (as
// prefetch_simd.h is): every file compiled with its own -m/-march flags gets
// its own internal copy, so the linker can never hand a generic caller one
// built for another ISA. An out-of-line call here would cost the SIMD
// tiles their accumulator registers (spilled around each call). The values
// are get_scale_min_k4's (dequantize.cpp; tests/unit/kernels_test.cpp
// compares them on every scale byte pattern it draws). Not a standalone
// header: needs <cstdint> before the namespace.

// Sub-block j (0..7) of scales[12] at q: its 6-bit scale d and min m.
inline void q4k_scale_min(int j, const std::uint8_t* q, int& d, int& m) {
  if (j < 4) {
    d = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    d = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
    m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}
