// kernels_q8.cpp — see kernels_q8.h: activation quantization, the portable
// scalar integer-dot kernels (the reference, and the path on non-x86
// builds), argument checks and dispatch.
#include "engines/quant/kernels_q8.h"

#include <cmath>
#include <cstring>
#include <string>

#include "engines/quant/dequantize.h"
#include "vocab/quant_format.h"

#if defined(MOEBENCH_X86_SIMD)
#include <cpuid.h>
#endif

namespace moebench {

void quantize_activations(const float* x, std::size_t cols, std::size_t batch, Q8Activations& out) {
  out.cols = cols;
  out.batch = batch;
  const std::size_t nb = cols / kQ8Block;
  out.q.resize(cols * batch);
  out.d.resize(nb * batch);
  out.s.resize(nb * batch);
#if defined(MOEBENCH_X86_SIMD)
  if (best_simd_level() != SimdLevel::kScalar) {
    for (std::size_t b = 0; b < batch; ++b) {
      detail::quantize_row_avx2(x + b * cols, cols, out.q.data() + b * cols, out.d.data() + b * nb, out.s.data() + b * nb);
    }
    return;
  }
#endif
#if defined(MOEBENCH_ARM_SIMD)
  if (is_neon(best_simd_level())) {
    for (std::size_t b = 0; b < batch; ++b) {
      detail::quantize_row_neon(x + b * cols, cols, out.q.data() + b * cols, out.d.data() + b * nb, out.s.data() + b * nb);
    }
    return;
  }
#endif
  for (std::size_t b = 0; b < batch; ++b) {
    for (std::size_t k = 0; k < nb; ++k) {
      const float* v = x + b * cols + k * kQ8Block;
      std::int8_t* q = out.q.data() + b * cols + k * kQ8Block;
      float amax = 0.0f;
      for (std::size_t i = 0; i < kQ8Block; ++i) amax = std::fmax(amax, std::fabs(v[i]));
      const float d = amax / 127.0f;
      const float id = d != 0.0f ? 1.0f / d : 0.0f;
      int sum = 0;
      for (std::size_t i = 0; i < kQ8Block; ++i) {
        const int qi = static_cast<int>(std::nearbyint(v[i] * id));
        q[i] = static_cast<std::int8_t>(qi < -127 ? -127 : qi > 127 ? 127 : qi);
        sum += q[i];
      }
      out.d[b * nb + k] = d;
      out.s[b * nb + k] = d * static_cast<float>(sum);
    }
  }
}

namespace {

using u8 = std::uint8_t;

float f16(const u8* p) {
  std::uint16_t v;
  std::memcpy(&v, p, 2);
  return fp16_to_fp32(v);
}

constexpr int kMxfp4Doubled[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

// Block k of a row as integer weights with one scale: Σ w·x̂ = sw·dx·Σ v·q − cw·s.
void scalar_block(std::uint32_t type, const u8* row, std::size_t k, int* v, float& sw, float& cw) {
  switch (type) {
    case 2: {  // q4_0
      const u8* p = row + 18 * k;
      sw = f16(p);
      cw = 8.0f * sw;
      for (int j = 0; j < 16; ++j) {
        v[j] = p[2 + j] & 0x0F;
        v[j + 16] = p[2 + j] >> 4;
      }
      return;
    }
    case 8: {  // q8_0 (signed; no offset)
      const u8* p = row + 34 * k;
      sw = f16(p);
      cw = 0.0f;
      for (int j = 0; j < 32; ++j) v[j] = static_cast<std::int8_t>(p[2 + j]);
      return;
    }
    case 39: {  // mxfp4: doubled e2m1 values + 12, scale 2^(e-128)
      const u8* p = row + 17 * k;
      sw = e8m0_to_fp32_half(p[0]);
      cw = 12.0f * sw;
      for (int j = 0; j < 16; ++j) {
        v[j] = kMxfp4Doubled[p[1 + j] & 0x0F] + 12;
        v[j + 16] = kMxfp4Doubled[p[1 + j] >> 4] + 12;
      }
      return;
    }
    default: {  // 12: q4_k, sub-block j of a super-block
      const u8* p = row + 144 * (k >> 3);
      const std::size_t j = k & 7;
      std::uint8_t sc, m;
      get_scale_min_k4(static_cast<int>(j), p + 4, sc, m);
      sw = f16(p) * static_cast<float>(sc);
      cw = f16(p + 2) * static_cast<float>(m);
      const u8* q = p + 16 + 32 * (j >> 1);
      for (int l = 0; l < 32; ++l) v[l] = (j & 1) ? q[l] >> 4 : q[l] & 0x0F;
      return;
    }
  }
}

void matmul_q8_scalar(const detail::Q8Args& a) {
  const Q8Activations& x = *a.x;
  const std::size_t nb = a.cols / kQ8Block;
  int v[kQ8Block];
  for (std::size_t r = 0; r < a.rows; ++r) {
    const u8* row = a.w + r * a.row_bytes;
    for (std::size_t b = 0; b < x.batch; ++b) {
      const std::int8_t* q = x.q.data() + b * x.cols;
      float acc = 0.0f, corr = 0.0f;
      for (std::size_t k = 0; k < nb; ++k) {
        float sw, cw;
        scalar_block(a.ggml_type, row, k, v, sw, cw);
        int sum = 0;
        for (std::size_t i = 0; i < kQ8Block; ++i) sum += v[i] * q[k * kQ8Block + i];
        acc += sw * x.d[b * nb + k] * static_cast<float>(sum);
        corr += cw * x.s[b * nb + k];
      }
      a.y[b * a.rows + r] = acc - corr;
    }
  }
}

bool supported_type(std::uint32_t t) { return t == 2 || t == 8 || t == 39 || t == 12; }

}  // namespace

namespace detail {
#if defined(MOEBENCH_X86_SIMD)
bool cpu_has_avx512_vnni() {
  static const bool has = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 11)) != 0;
  }();
  return has;
}
#endif
}  // namespace detail

bool has_q8_kernel(std::string_view quant, std::size_t cols) {
  const auto fmt = find_quant(quant);
  return fmt && supported_type(fmt->ggml_type) && cols > 0 && fmt->divides(cols) && cols % kQ8Block == 0;
}

const char* q8_kernel_name(SimdLevel level) {
#if defined(MOEBENCH_X86_SIMD)
  if (level == SimdLevel::kAvx512 && detail::cpu_has_avx512_vnni()) return "avx512-vnni";
  if (level == SimdLevel::kAvx2 || level == SimdLevel::kAvx512) return "avx2";
#endif
#if defined(MOEBENCH_ARM_SIMD)
  if (is_neon(level)) return to_string(level);  // neon, neon-dotprod, neon-i8mm: SMULL, SDOT, SMMLA
#endif
  (void)level;
  return "scalar";
}

Status matmul_q8(std::string_view quant, const void* w, std::size_t rows, std::size_t cols, const Q8Activations& x,
                 float* y, SimdLevel level) {
  const auto fmt = find_quant(quant);
  if (!fmt) return make_error("matmul_q8: unknown quant \"" + std::string(quant) + "\"");
  if (!has_q8_kernel(quant, cols)) {
    return make_error("matmul_q8: no integer kernel for " + std::string(quant) + " at " + std::to_string(cols) +
                      " columns");
  }
  if (cols != x.cols) {
    return make_error("matmul_q8: weights have " + std::to_string(cols) + " columns, activations " +
                      std::to_string(x.cols));
  }
  if (!simd_level_available(level)) {
    return make_error(std::string("matmul_q8: SIMD level ") + to_string(level) + " is not available on this CPU");
  }
  if (rows == 0 || x.batch == 0) return Status::success();
  if (w == nullptr || y == nullptr) return make_error("matmul_q8: null weights or output");
  const detail::Q8Args args{fmt->ggml_type, static_cast<const unsigned char*>(w), rows, cols, fmt->bytes_for(cols), &x, y};
#if defined(MOEBENCH_X86_SIMD)
  if (level == SimdLevel::kAvx512 && detail::cpu_has_avx512_vnni() && detail::matmul_q8_vnni(args)) {
    return Status::success();
  }
  if ((level == SimdLevel::kAvx2 || level == SimdLevel::kAvx512) && detail::matmul_q8_avx2(args)) {
    return Status::success();
  }
#endif
#if defined(MOEBENCH_ARM_SIMD)
  if (level == SimdLevel::kNeonI8mm && detail::matmul_q8_i8mm(args)) return Status::success();
  if (level == SimdLevel::kNeonDotprod && detail::matmul_q8_dotprod(args)) return Status::success();
  if (level == SimdLevel::kNeon && detail::matmul_q8_neon(args)) return Status::success();
#endif
  matmul_q8_scalar(args);
  return Status::success();
}

}  // namespace moebench
