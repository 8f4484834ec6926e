// kernels.cpp — see kernels.h: SIMD level detection, argument checks,
// dispatch, and the portable scalar kernels for all formats.
//
// The scalar kernel decodes one chunk of a row (≤ 256 weights: one k-quant
// super-block, eight 32-weight blocks, or 256 plain values) into a small
// buffer with the arithmetic of dequantize.cpp, then dots it with every
// activation row of the batch, so each weight is decoded once per call.
#include "engines/quant/kernels.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <optional>
#include <string>

#include "engines/quant/dequantize.h"

#if defined(MOEBENCH_X86_SIMD)
#include <cpuid.h>
#endif
#if defined(MOEBENCH_ARM_SIMD)
#include <asm/hwcap.h>
#include <sys/auxv.h>
// The bits (Linux uapi asm/hwcap.h) for kernel headers older than 5.10.
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1 << 20)
#endif
#ifndef HWCAP2_I8MM
#define HWCAP2_I8MM (1 << 13)
#endif
#endif

namespace moebench {
namespace detail {

const float* fp16_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (std::uint32_t h = 0; h < 65536; ++h) t[h] = fp16_to_fp32(static_cast<std::uint16_t>(h));
    return t;
  }();
  return table.data();
}

const float* e8m0_half_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(256);
    for (std::uint32_t e = 0; e < 256; ++e) t[e] = e8m0_to_fp32_half(static_cast<std::uint8_t>(e));
    return t;
  }();
  return table.data();
}

}  // namespace detail

namespace {

#include "engines/quant/q4k_scale_min_inline.h"  // q4k_scale_min (inside this unnamed namespace)
using detail::MatmulArgs;
using u8 = std::uint8_t;

constexpr std::size_t kChunk = 256;  // weights decoded at a time

std::uint16_t u16(const u8* p) {
  std::uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

// ---- per-format decoders: `nblocks` consecutive blocks → floats ----------
// (the arithmetic of dequantize.cpp; scales via the lookup tables)

struct Tables {
  const float* f16 = detail::fp16_table();
  const float* e8m0 = detail::e8m0_half_table();
};

void dec_f32(const Tables&, const u8* p, std::size_t n, float* out) { std::memcpy(out, p, n * 4); }

void dec_f16(const Tables& t, const u8* p, std::size_t n, float* out) {
  for (std::size_t i = 0; i < n; ++i) out[i] = t.f16[u16(p + 2 * i)];
}

void dec_bf16(const Tables&, const u8* p, std::size_t n, float* out) {
  for (std::size_t i = 0; i < n; ++i) out[i] = bf16_to_fp32(u16(p + 2 * i));
}

void dec_q8_0(const Tables& t, const u8* p, std::size_t nb, float* out) {
  for (std::size_t k = 0; k < nb; ++k, p += 34, out += 32) {
    const float d = t.f16[u16(p)];
    for (int j = 0; j < 32; ++j) out[j] = static_cast<float>(static_cast<std::int8_t>(p[2 + j])) * d;
  }
}

void dec_q4_0(const Tables& t, const u8* p, std::size_t nb, float* out) {
  for (std::size_t k = 0; k < nb; ++k, p += 18, out += 32) {
    const float d = t.f16[u16(p)];
    for (int j = 0; j < 16; ++j) {
      out[j] = static_cast<float>((p[2 + j] & 0x0F) - 8) * d;
      out[j + 16] = static_cast<float>((p[2 + j] >> 4) - 8) * d;
    }
  }
}

constexpr std::int8_t kMxfp4Values[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

void dec_mxfp4(const Tables& t, const u8* p, std::size_t nb, float* out) {
  for (std::size_t k = 0; k < nb; ++k, p += 17, out += 32) {
    const float d = t.e8m0[p[0]];
    for (int j = 0; j < 16; ++j) {
      out[j] = static_cast<float>(kMxfp4Values[p[1 + j] & 0x0F]) * d;
      out[j + 16] = static_cast<float>(kMxfp4Values[p[1 + j] >> 4]) * d;
    }
  }
}

void dec_q4_k(const Tables& t, const u8* p, std::size_t nb, float* y) {
  for (std::size_t k = 0; k < nb; ++k, p += 144) {
    const float d = t.f16[u16(p)];
    const float min = t.f16[u16(p + 2)];
    const u8* q = p + 16;
    for (int j = 0; j < 4; ++j, q += 32) {
      int sc = 0, m = 0;
      q4k_scale_min(2 * j, p + 4, sc, m);
      const float d1 = d * static_cast<float>(sc), m1 = min * static_cast<float>(m);
      q4k_scale_min(2 * j + 1, p + 4, sc, m);
      const float d2 = d * static_cast<float>(sc), m2 = min * static_cast<float>(m);
      for (int l = 0; l < 32; ++l) *y++ = d1 * static_cast<float>(q[l] & 0xF) - m1;
      for (int l = 0; l < 32; ++l) *y++ = d2 * static_cast<float>(q[l] >> 4) - m2;
    }
  }
}

void dec_q3_k(const Tables& t, const u8* p, std::size_t nb, float* y) {
  for (std::size_t k = 0; k < nb; ++k, p += 110) {
    const u8* hm = p;
    const u8* q = p + 32;
    const u8* s = p + 96;
    const float d_all = t.f16[u16(p + 108)];
    for (int half = 0; half < 2; ++half, q += 32) {
      for (int j = 0; j < 4; ++j) {  // sub-blocks is = 8·half + 2j and + 1
        const int shift = 2 * j;
        const u8 m = static_cast<u8>(1u << (4 * half + j));
        for (int part = 0; part < 2; ++part) {
          const int is = 8 * half + 2 * j + part;
          const int lo = is < 8 ? s[is] & 0xF : s[is - 8] >> 4;
          const int sc = (lo | (((s[8 + is % 4] >> (2 * (is / 4))) & 3) << 4)) - 32;
          const float dl = d_all * static_cast<float>(sc);
          const int o = 16 * part;
          for (int l = 0; l < 16; ++l) {
            *y++ = dl * static_cast<float>(((q[l + o] >> shift) & 3) - ((hm[l + o] & m) ? 0 : 4));
          }
        }
      }
    }
  }
}

void dec_q2_k(const Tables& t, const u8* p, std::size_t nb, float* y) {
  for (std::size_t k = 0; k < nb; ++k, p += 84) {
    const u8* sc = p;
    const u8* q = p + 16;
    const float d = t.f16[u16(p + 80)];
    const float min = t.f16[u16(p + 82)];
    int is = 0;
    for (int half = 0; half < 2; ++half, q += 32) {
      for (int shift = 0; shift < 8; shift += 2) {
        for (int part = 0; part < 2; ++part, ++is) {
          const float dl = d * static_cast<float>(sc[is] & 0xF);
          const float ml = min * static_cast<float>(sc[is] >> 4);
          for (int l = 0; l < 16; ++l) *y++ = dl * static_cast<float>((q[l + 16 * part] >> shift) & 3) - ml;
        }
      }
    }
  }
}

using Decoder = void (*)(const Tables&, const u8*, std::size_t, float*);

Decoder decoder_for(std::string_view quant) {
  if (quant == "f32") return dec_f32;
  if (quant == "f16") return dec_f16;
  if (quant == "bf16") return dec_bf16;
  if (quant == "q8_0") return dec_q8_0;
  if (quant == "q4_0") return dec_q4_0;
  if (quant == "mxfp4") return dec_mxfp4;
  if (quant == "q4_k") return dec_q4_k;
  if (quant == "q3_k") return dec_q3_k;
  return dec_q2_k;
}

// acc[0..7] += w[i]·x[i] over n values (eight partial sums: vectorizable).
void dot_acc(const float* w, const float* x, std::size_t n, float* acc) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int k = 0; k < 8; ++k) acc[k] += w[i + k] * x[i + k];
  }
  for (; i < n; ++i) acc[i % 8] += w[i] * x[i];
}

float sum8(const float* a) { return ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7])); }

void matmul_scalar(const MatmulArgs& a) {
  const Tables tables;
  const Decoder decode = decoder_for(a.fmt.name);
  const std::size_t bw = a.fmt.block_weights;
  const std::size_t row_bytes = a.fmt.bytes_for(a.cols);
  const std::size_t chunk = kChunk / bw * bw;  // bw is 1, 32 or 256
  float buf[kChunk];
  std::vector<float> acc(a.batch * 8);
  for (std::size_t r = 0; r < a.rows; ++r) {
    const u8* row = a.w + r * row_bytes;
    std::fill(acc.begin(), acc.end(), 0.f);
    for (std::size_t c0 = 0; c0 < a.cols; c0 += chunk) {
      const std::size_t len = std::min(chunk, a.cols - c0);
      decode(tables, row + a.fmt.bytes_for(c0), len / bw, buf);
      for (std::size_t b = 0; b < a.batch; ++b) dot_acc(buf, a.x + b * a.cols + c0, len, &acc[8 * b]);
    }
    for (std::size_t b = 0; b < a.batch; ++b) a.y[b * a.rows + r] = sum8(&acc[8 * b]);
  }
}

Status run(const char* what, std::string_view quant, const void* w, std::size_t rows, std::size_t cols,
           const float* x, std::size_t batch, float* y, SimdLevel level) {
  const auto fmt = find_quant(quant);
  if (!fmt) {
    return make_error(std::string(what) + ": unknown quant \"" + std::string(quant) + "\"");
  }
  if (!fmt->divides(cols)) {
    return make_error(std::string(what) + ": " + std::to_string(cols) + " columns is not a multiple of " +
                      std::string(quant) + "'s block of " + std::to_string(fmt->block_weights) + " weights");
  }
  if (!simd_level_available(level)) {
    return make_error(std::string(what) + ": SIMD level " + to_string(level) +
                      " is not available on this CPU (best is " + to_string(best_simd_level()) + ")");
  }
  if (rows == 0 || batch == 0) return Status::success();
  if (y == nullptr) return make_error(std::string(what) + ": null output");
  if (cols == 0) {
    std::fill(y, y + rows * batch, 0.f);
    return Status::success();
  }
  if (w == nullptr || x == nullptr) return make_error(std::string(what) + ": null weights or activations");
  const MatmulArgs args{*fmt, static_cast<const unsigned char*>(w), rows, cols, x, batch, y};
#if defined(MOEBENCH_X86_SIMD)
  if (level == SimdLevel::kAvx512 && detail::matmul_avx512(args)) return Status::success();
  if (level == SimdLevel::kAvx2 && detail::matmul_avx2(args)) return Status::success();
#endif
#if defined(MOEBENCH_ARM_SIMD)
  if (is_neon(level) && detail::matmul_neon(args)) return Status::success();
#endif
  matmul_scalar(args);
  return Status::success();
}

#if defined(MOEBENCH_X86_SIMD)
// F16C from CPUID leaf 1 (ECX bit 29): clang 14's __builtin_cpu_supports
// does not know the "f16c" feature string.
bool cpu_has_f16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
}
#endif

SimdLevel detect() {
#if defined(MOEBENCH_X86_SIMD)
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cpu_has_f16c();
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  if (avx512) return SimdLevel::kAvx512;
  if (avx2) return SimdLevel::kAvx2;
#endif
#if defined(MOEBENCH_ARM_SIMD)
  // The kernel's view of the CPU (Linux HWCAP): ASIMD is in every aarch64
  // core that runs Linux distributions; SDOT (dotprod) from Armv8.2 as an
  // option, mandatory from 8.4; SMMLA (i8mm) from 8.2 as an option,
  // mandatory from 8.6. i8mm is only used with dotprod.
  const unsigned long hw = ::getauxval(AT_HWCAP), hw2 = ::getauxval(AT_HWCAP2);
  const bool neon = (hw & HWCAP_ASIMD) != 0;
  const bool dot = neon && (hw & HWCAP_ASIMDDP) != 0;
  const bool i8mm = dot && (hw2 & HWCAP2_I8MM) != 0;
  if (i8mm) return SimdLevel::kNeonI8mm;
  if (dot) return SimdLevel::kNeonDotprod;
  if (neon) return SimdLevel::kNeon;
#endif
  return SimdLevel::kScalar;
}

// The level's family and rank in it (scalar: family 0).
int family_of(SimdLevel level) {
  switch (level) {
    case SimdLevel::kScalar: return 0;
    case SimdLevel::kAvx2:
    case SimdLevel::kAvx512: return 1;
    case SimdLevel::kNeon:
    case SimdLevel::kNeonDotprod:
    case SimdLevel::kNeonI8mm: return 2;
  }
  return -1;  // not a level
}

constexpr SimdLevel kAllLevels[] = {SimdLevel::kScalar, SimdLevel::kAvx2,        SimdLevel::kAvx512,
                                    SimdLevel::kNeon,   SimdLevel::kNeonDotprod, SimdLevel::kNeonI8mm};

}  // namespace

const char* to_string(SimdLevel level) {
  switch (level) {
    case SimdLevel::kScalar: return "scalar";
    case SimdLevel::kAvx2: return "avx2";
    case SimdLevel::kAvx512: return "avx512";
    case SimdLevel::kNeon: return "neon";
    case SimdLevel::kNeonDotprod: return "neon-dotprod";
    case SimdLevel::kNeonI8mm: return "neon-i8mm";
  }
  return "unknown";
}

SimdLevel detected_simd_level() {
  static const SimdLevel level = detect();
  return level;
}

std::optional<SimdLevel> simd_cap() {
  static const std::optional<SimdLevel> cap = []() -> std::optional<SimdLevel> {
    const char* v = std::getenv("MOEBENCH_SIMD");
    if (v == nullptr || *v == '\0') return std::nullopt;
    for (SimdLevel l : kAllLevels) {
      if (std::string_view(v) == to_string(l)) return l;
    }
    return std::nullopt;  // simd_description() says it was ignored
  }();
  return cap;
}

// A cap applies within the CPU's family (or is scalar); another family's
// level caps nothing (simd_description() says so).
bool cap_applies(SimdLevel cap, SimdLevel det) {
  return family_of(cap) == 0 || (family_of(cap) == family_of(det) && static_cast<int>(cap) < static_cast<int>(det));
}

SimdLevel best_simd_level() {
  const SimdLevel det = detected_simd_level();
  const auto cap = simd_cap();
  return cap && cap_applies(*cap, det) ? *cap : det;
}

std::string simd_description() {
  const SimdLevel best = best_simd_level(), det = detected_simd_level();
  const char* v = std::getenv("MOEBENCH_SIMD");
  std::string s = to_string(best);
  if (v != nullptr && *v != '\0') {
    if (!simd_cap()) {
      s += std::string(" (MOEBENCH_SIMD=\"") + v + "\" ignored: use one of scalar, avx2, avx512, neon, neon-dotprod, neon-i8mm)";
    } else if (family_of(*simd_cap()) != 0 && family_of(*simd_cap()) != family_of(det)) {
      s += std::string(" (MOEBENCH_SIMD=") + v + " ignored: not a level of this CPU's family)";
    } else if (best != det) {
      s += std::string(" (MOEBENCH_SIMD=") + v + " caps this CPU's " + to_string(det) + ")";
    }
  }
  return s;
}

bool is_neon(SimdLevel level) { return family_of(level) == 2; }

bool simd_level_available(SimdLevel level) {
  const SimdLevel best = best_simd_level();
  return level == SimdLevel::kScalar ||
         (family_of(level) == family_of(best) && static_cast<int>(level) <= static_cast<int>(best));
}

std::vector<SimdLevel> available_simd_levels() {
  std::vector<SimdLevel> out;
  for (SimdLevel l : kAllLevels) {
    if (simd_level_available(l)) out.push_back(l);
  }
  return out;
}

Status matvec(std::string_view quant, const void* w, std::size_t rows, std::size_t cols, const float* x, float* y,
              SimdLevel level) {
  return run("matvec", quant, w, rows, cols, x, 1, y, level);
}

Status matmul(std::string_view quant, const void* w, std::size_t rows, std::size_t cols, const float* x,
              std::size_t batch, float* y, SimdLevel level) {
  return run("matmul", quant, w, rows, cols, x, batch, y, level);
}

}  // namespace moebench
