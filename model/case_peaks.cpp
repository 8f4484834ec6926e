// case_peaks.cpp — see case_peaks.h.
#include "model/case_peaks.h"

#include <algorithm>

#include "model/engine_families.h"
#include "vocab/quant_format.h"
#include "vocab/text.h"

namespace moebench {

Peak peak_flops(const MachineProfile& m, bool gpu_weights, bool cpu_engine) {
  Peak p;
  // A discrete GPU's peak stands on its own: a CPU row without FMA figures
  // (no compute block) must not hide it.
  if (gpu_weights && m.accelerators && m.accelerators->flops) {
    p.flops = m.accelerators->flops->value * m.accelerators->count;
    p.how = std::to_string(m.accelerators->count) + " × " + m.accelerators->model + " peak";
    if (!m.compute) {
      p.eff_lo = 0.4, p.eff = 0.6, p.eff_hi = 0.8;
      p.how += " × 0.6 (0.4 .. 0.8), the catalog's decode efficiency estimate";
      return p;
    }
  }
  if (!m.compute) return p;
  const ComputeInfo& ci = *m.compute;
  const Figure& eff = ci.efficiency.decode;
  if (p.flops > 0) {
    // the GPU's peak, at the machine's decode efficiency below
  } else if (ci.gpu_flops && !cpu_engine) {
    p.flops = ci.gpu_flops->value;
    p.how = "the integrated GPU's peak";
  } else {
    p.flops = ci.cpu_flops.value;
    p.how = "the CPU cores' peak";
  }
  p.eff_lo = eff.low_or_value();
  p.eff = eff.value;
  p.eff_hi = eff.high_or_value();
  p.how += " × the machine's decode efficiency " + format_fixed(eff.value, 2) + " (" + format_fixed(p.eff_lo, 2) + " .. " +
           format_fixed(p.eff_hi, 2) + ")";
  return p;
}

namespace {

// The CPU cores' peak for int8 operands: the dot-product instruction's where
// the ISA has one; without one, int8 pairs multiply-add to 16 bits and then
// to 32 (vpmaddubsw, vpmaddwd): 32 MACs in two instructions where an FMA
// does 8 in one, twice the FP32 rate.
double cpu_int8_peak(const ComputeInfo& ci) { return ci.cpu_int8_ops ? ci.cpu_int8_ops->value : 2 * ci.cpu_flops.value; }

}  // namespace

double cpu_attention_peak_s(const MachineProfile& m, const SetupCase& c, double attn_flops) {
  if (!m.compute || !(m.compute->cpu_flops.value > 0) || !(attn_flops > 0)) return 0;
  const double f32 = m.compute->cpu_flops.value;
  // ggml's integer block types (q8_0, q4_0, iq4_nl, …) are llama-quantize's names.
  if (!llama_quantize_type(c.cache_type_k)) return attn_flops / f32;
  return attn_flops / 2 / cpu_int8_peak(*m.compute) + attn_flops / 2 / f32;
}

// The peak a GPU's prompt attention is priced at. llama.cpp's flash
// attention on AMD GPUs reaches far less than the matrix peak: the HIP tile
// and vector kernels without rocWMMA run on the vector units, and Vulkan's
// coopmat1 kernel loads the cache's strided K/V rows (a pricing that fits,
// not that kernel's mechanism). Priced at the matrix peak, the prompts at
// depth of three sources on two AMD GPUs come out 1.5-20x too fast
// (docs/measurements/2026-12-07g-rocm-depth.md). So an AMD GPU with a
// stated FP32 vector rate (gpus.json fp32_tflops, cpus.json
// gpu.fp32_tflops) is priced there, whatever the engine (every AMD prompt
// figure is llama.cpp's); every other GPU, or an AMD one without that
// figure, at its dense peak. A decode's attention keeps the dense peak.
double gpu_attention_peak(const MachineProfile& m, bool on_gpu, double gpu_peak) {
  if (gpu_kind(m) != "amd") return gpu_peak;
  const std::optional<Figure> vector = on_gpu ? (m.accelerators ? m.accelerators->vector_flops : std::nullopt)
                                              : (m.compute ? m.compute->gpu_vector_flops : std::nullopt);
  if (!vector || !(vector->value > 0)) return gpu_peak;
  return vector->value * (on_gpu ? m.accelerators->count : 1);
}

void prefill_parts(const MachineProfile& m, const SetupCase& c, double flops, double cpu_flops, double attn_flops,
                   bool on_gpu, bool igpu, double in_ram, CaseParts& P) {
  P.batch = std::max(1, c.batch);
  const double gpu_peak = on_gpu && m.accelerators && m.accelerators->flops ? m.accelerators->flops->value * m.accelerators->count
                          : igpu && m.compute && m.compute->gpu_flops      ? m.compute->gpu_flops->value
                                                                            : 0;
  // Quantized weights multiply as int8 dot products (activations quantized
  // to 8 bits: cpu_int8_peak); wide weights at the FP32 FMA peak.
  // The attention multiplies activations by activations (queries by the
  // cached keys, scores by values): the FP32 FMA peak on CPU cores, the
  // query-key half at the int8 peak over an integer K cache
  // (cpu_attention_peak_s); on a GPU (which computes it beside the trunk)
  // the dense peak, or an AMD GPU's vector rate (gpu_attention_peak).
  double cpu_peak = 0, cpu_f32 = 0;
  if (m.compute) {
    cpu_f32 = m.compute->cpu_flops.value;
    cpu_peak = c.expert_bits >= 9 ? cpu_f32 : cpu_int8_peak(*m.compute);
  }
  const bool gpu_side = on_gpu || igpu;
  const double cpu_part = gpu_side ? cpu_flops : flops - attn_flops;
  if (gpu_side && gpu_peak > 0) {
    P.flops_gpu_peak_s = (flops - attn_flops - cpu_flops) / gpu_peak;
    P.attn_gpu_peak_s = attn_flops / gpu_attention_peak(m, on_gpu, gpu_peak);
  }
  if (cpu_part > 0 && cpu_peak > 0) P.flops_cpu_peak_s = cpu_part / cpu_peak;
  if (!gpu_side && attn_flops > 0 && cpu_f32 > 0) P.attn_cpu_peak_s = cpu_attention_peak_s(m, c, attn_flops);
  P.peak_missing = (gpu_side && flops > cpu_flops && !(gpu_peak > 0)) || (cpu_part > 0 && !(cpu_peak > 0)) ||
                   (!gpu_side && attn_flops > 0 && !(cpu_f32 > 0));
  if (on_gpu && cpu_flops > 0 && gpu_peak > 0) {
    P.flops_offload_peak_s = cpu_flops / gpu_peak;
    const auto& link = m.accelerators->host_link_bytes_s;
    if (link && link->value > 0) {
      P.link_s = in_ram / link->value;
      P.copies_experts = offload_copies(family_offload(c.family), P.batch);
    }
  }
}

}  // namespace moebench
