// dequantize.cpp — see dequantize.h. Compiled with -ffp-contract=off (see
// CMakeLists.txt): a fused multiply-add would round differently from ggml.
#include "engines/quant/dequantize.h"

#include <cstring>

#include "vocab/quant_format.h"

namespace moebench {

float fp16_to_fp32(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1f;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t bits = 0;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      exp = 127 - 15 + 1;
      while ((mant & 0x400u) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ffu;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float bf16_to_fp32(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float e8m0_to_fp32_half(std::uint8_t e) {
  // ggml_e8m0_to_fp32_half: 2^(e-128), with e < 2 as float subnormals.
  const std::uint32_t bits = e < 2 ? 0x00200000u << e : static_cast<std::uint32_t>(e - 1) << 23;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

namespace {

constexpr int kQK = 256;  // super-block size of the k-quants

std::uint16_t u16(const std::uint8_t* p) {
  std::uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

}  // namespace

void get_scale_min_k4(int j, const std::uint8_t* q, std::uint8_t& d, std::uint8_t& m) {
  if (j < 4) {
    d = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    d = static_cast<std::uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    m = static_cast<std::uint8_t>((q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4));
  }
}

namespace {

void q8_0(const std::uint8_t* b, float* y) {  // fp16 d, int8 qs[32]
  const float d = fp16_to_fp32(u16(b));
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<std::int8_t>(b[2 + j])) * d;
}

void q4_0(const std::uint8_t* b, float* y) {  // fp16 d, qs[16] (low nibbles first half)
  const float d = fp16_to_fp32(u16(b));
  const std::uint8_t* qs = b + 2;
  for (int j = 0; j < 16; ++j) {
    const int x0 = (qs[j] & 0x0F) - 8;
    const int x1 = (qs[j] >> 4) - 8;
    y[j] = static_cast<float>(x0) * d;
    y[j + 16] = static_cast<float>(x1) * d;
  }
}

void mxfp4(const std::uint8_t* b, float* y) {  // e8m0 e, qs[16]
  const float d = e8m0_to_fp32_half(b[0]);
  const std::uint8_t* qs = b + 1;
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>(kMxfp4Values[qs[j] & 0x0F]) * d;
    y[j + 16] = static_cast<float>(kMxfp4Values[qs[j] >> 4]) * d;
  }
}

void q4_k(const std::uint8_t* b, float* y) {  // fp16 d, fp16 dmin, scales[12], qs[128]
  const float d = fp16_to_fp32(u16(b));
  const float min = fp16_to_fp32(u16(b + 2));
  const std::uint8_t* scales = b + 4;
  const std::uint8_t* q = b + 16;
  int is = 0;
  std::uint8_t sc = 0, m = 0;
  for (int j = 0; j < kQK; j += 64) {
    get_scale_min_k4(is + 0, scales, sc, m);
    const float d1 = d * sc;
    const float m1 = min * m;
    get_scale_min_k4(is + 1, scales, sc, m);
    const float d2 = d * sc;
    const float m2 = min * m;
    for (int l = 0; l < 32; ++l) *y++ = d1 * static_cast<float>(q[l] & 0xF) - m1;
    for (int l = 0; l < 32; ++l) *y++ = d2 * static_cast<float>(q[l] >> 4) - m2;
    q += 32;
    is += 2;
  }
}

void q3_k(const std::uint8_t* b, float* y) {  // hmask[32], qs[64], scales[12], fp16 d
  constexpr std::uint32_t kmask1 = 0x03030303;
  constexpr std::uint32_t kmask2 = 0x0f0f0f0f;
  const std::uint8_t* hm = b;
  const std::uint8_t* q = b + 32;
  const float d_all = fp16_to_fp32(u16(b + 108));
  std::uint32_t aux[4];
  std::memcpy(aux, b + 96, 12);
  const std::uint32_t tmp = aux[2];
  aux[2] = ((aux[0] >> 4) & kmask2) | (((tmp >> 4) & kmask1) << 4);
  aux[3] = ((aux[1] >> 4) & kmask2) | (((tmp >> 6) & kmask1) << 4);
  aux[0] = (aux[0] & kmask2) | (((tmp >> 0) & kmask1) << 4);
  aux[1] = (aux[1] & kmask2) | (((tmp >> 2) & kmask1) << 4);
  std::int8_t scales[16];
  std::memcpy(scales, aux, 16);
  int is = 0;
  std::uint8_t m = 1;
  for (int n = 0; n < kQK; n += 128) {
    int shift = 0;
    for (int j = 0; j < 4; ++j) {
      float dl = d_all * static_cast<float>(scales[is++] - 32);
      for (int l = 0; l < 16; ++l) {
        *y++ = dl * static_cast<float>(static_cast<std::int8_t>((q[l + 0] >> shift) & 3) - ((hm[l + 0] & m) ? 0 : 4));
      }
      dl = d_all * static_cast<float>(scales[is++] - 32);
      for (int l = 0; l < 16; ++l) {
        *y++ = dl * static_cast<float>(static_cast<std::int8_t>((q[l + 16] >> shift) & 3) - ((hm[l + 16] & m) ? 0 : 4));
      }
      shift += 2;
      m = static_cast<std::uint8_t>(m << 1);
    }
    q += 32;
  }
}

void q2_k(const std::uint8_t* b, float* y) {  // scales[16], qs[64], fp16 d, fp16 dmin
  const std::uint8_t* scales = b;
  const std::uint8_t* q = b + 16;
  const float d = fp16_to_fp32(u16(b + 80));
  const float min = fp16_to_fp32(u16(b + 82));
  int is = 0;
  for (int n = 0; n < kQK; n += 128) {
    int shift = 0;
    for (int j = 0; j < 4; ++j) {
      std::uint8_t sc = scales[is++];
      float dl = d * static_cast<float>(sc & 0xF);
      float ml = min * static_cast<float>(sc >> 4);
      for (int l = 0; l < 16; ++l) *y++ = dl * static_cast<float>(static_cast<std::int8_t>((q[l] >> shift) & 3)) - ml;
      sc = scales[is++];
      dl = d * static_cast<float>(sc & 0xF);
      ml = min * static_cast<float>(sc >> 4);
      for (int l = 0; l < 16; ++l) *y++ = dl * static_cast<float>(static_cast<std::int8_t>((q[l + 16] >> shift) & 3)) - ml;
      shift += 2;
    }
    q += 32;
  }
}

}  // namespace

Status dequantize(std::string_view quant, const void* src, float* dst, std::size_t n) {
  const auto fmt = quant_for_blocks("dequantize", quant, n);
  if (!fmt) return fmt.error();
  const auto* p = static_cast<const std::uint8_t*>(src);
  const std::size_t blocks = n / fmt->block_weights;
  void (*block_fn)(const std::uint8_t*, float*) = nullptr;
  if (quant == "q8_0") block_fn = q8_0;
  if (quant == "q4_0") block_fn = q4_0;
  if (quant == "mxfp4") block_fn = mxfp4;
  if (quant == "q4_k") block_fn = q4_k;
  if (quant == "q3_k") block_fn = q3_k;
  if (quant == "q2_k") block_fn = q2_k;
  if (block_fn != nullptr) {
    for (std::size_t i = 0; i < blocks; ++i) block_fn(p + i * fmt->block_bytes, dst + i * fmt->block_weights);
    return Status::success();
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (quant == "f32") {
      std::memcpy(dst + i, p + 4 * i, 4);
    } else if (quant == "f16") {
      dst[i] = fp16_to_fp32(u16(p + 2 * i));
    } else {
      dst[i] = bf16_to_fp32(u16(p + 2 * i));
    }
  }
  return Status::success();
}

}  // namespace moebench
