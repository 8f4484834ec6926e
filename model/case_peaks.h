// case_peaks.h — the compute side of a case at each processor's peak: the
// peak FLOP/s that runs a decode token (and the profile's decode efficiency
// band around it), and a prefill pass's compute split between the GPU, the
// CPU cores, the attention and the host link (CaseParts' prefill fields).
// setup_model.cpp's estimate_case asks these; the regime model
// (model/regimes.h) prices what they leave in CaseParts.
#pragma once

#include <string>

#include "model/setup_model.h"

namespace moebench {

// Peak FLOP/s of what computes a case's decode, when the profile states it
// (flops 0 otherwise): a discrete GPU's where the weights sit on it, else the
// integrated GPU's unless the engine computes on CPU cores (`cpu_engine`),
// else the CPU cores'; with the profile's decode efficiency band.
struct Peak {
  double flops = 0;
  double eff_lo = 1, eff = 1, eff_hi = 1;  // the profile's decode efficiency band
  std::string how;
};
Peak peak_flops(const MachineProfile& m, bool gpu_weights, bool cpu_engine);

// The compute of a pass of `batch` tokens at each processor's peak alone
// (CaseParts: the prefill regimes price it): `flops` the pass's total,
// `cpu_flops` of it the CPU-held experts' (hybrid), `attn_flops` of it the
// attention over the context (priced apart: prefill-attention), `on_gpu` a
// discrete GPU computes, `igpu` the integrated GPU of unified memory does,
// `in_ram` the bytes the pass reads from host RAM (what a hybrid engine would
// copy to the GPU to compute them there).
// Seconds the CPU cores take for a prefill pass's `attn_flops` of attention
// at their peak (0 without a stated peak): the query-key half at the int8
// dot-product peak where the K cache is an integer block type (llama.cpp
// quantizes the queries to K's dot type and takes int8 dot products, in its
// CPU flash attention and in its plain K×Q matmul alike; ik_llama.cpp does
// the same), twice the FP32 rate without a dot-product instruction; the
// rest (scores times values: V dequantized and summed in FP32) at the FP32
// FMA peak. A flat half: on an MLA card the query-key share is 576 of 1088
// dims per head (53 %).
double cpu_attention_peak_s(const MachineProfile& m, const SetupCase& c, double attn_flops);

// The FLOP/s a GPU's prompt attention is priced at: an AMD GPU's FP32
// vector rate where the machine states it (a pricing that fits llama.cpp's
// AMD flash-attention kernels), else gpu_peak, the dense peak the matmuls use.
// on_gpu: discrete GPUs (all of them), else the integrated GPU.
double gpu_attention_peak(const MachineProfile& m, bool on_gpu, double gpu_peak);

void prefill_parts(const MachineProfile& m, const SetupCase& c, double flops, double cpu_flops, double attn_flops,
                   bool on_gpu, bool igpu, double in_ram, CaseParts& P);

}  // namespace moebench
