// cmd_export.cpp — `moebench export CARD --quant Q --out FILE.gguf`: the
// card's container (made or reused) written as a GGUF that llama.cpp loads,
// so llama.cpp runs on the same weights moebench's engines run on.
#include <filesystem>

#include <fmt/format.h>

#include "cli/commands.h"
#include "engines/container/container.h"
#include "engines/container/gguf_export.h"
#include "vocab/progress.h"
#include "vocab/quant_format.h"
#include "vocab/units.h"

namespace moebench {
namespace {

struct ExportArgs {
  std::string model, scale, quant, trunk_quant, out, container_dir;
  std::uint64_t seed = 42;
};

Expected<int> export_command(const ExportArgs& a, const CliState& state) {
  auto sc = state.scaled_card(a.model, a.scale);
  if (!sc) return fail(sc.error().message);
  if (!a.trunk_quant.empty()) {
    if (!find_quant(a.trunk_quant)) return fail("--trunk-quant: unknown quant \"" + a.trunk_quant + "\"");
    sc->scaled.trunk_quant = a.trunk_quant;
  }
  if (auto arch = llama_architecture_for(sc->scaled); !arch) return fail(arch.error().message);
  ContainerSpec spec;
  spec.card_name = sc->card.name;
  spec.card = sc->scaled;
  spec.scale = sc->scale;
  spec.quant = a.quant.empty() ? sc->card.expert_quant : a.quant;
  if (!find_quant(spec.quant)) return fail("--quant: unknown quant \"" + spec.quant + "\"");
  spec.seed = a.seed;
  const std::filesystem::path out(a.out);
  spec.drive_dirs = {a.container_dir.empty() ? (out.has_parent_path() ? out.parent_path().string() : ".")
                                             : a.container_dir};
  QuietProgress quiet;
  auto files = make_container(spec, quiet);
  if (!files) return fail(files.error().message);
  fmt::print("container: {} ({}), {} ({})\n", files->trunk.path, files->trunk.reused ? "reused" : "written",
             files->experts.front().path, files->experts.front().reused ? "reused" : "written");
  auto rep = export_llama_gguf(spec, a.out);
  if (!rep) return fail(rep.error().message);
  fmt::print("{}: {} for llama.cpp, {} tensors, {} ({} copied from the container as they are, {} converted)\n",
             rep->path, rep->architecture, rep->tensors, format_bytes(static_cast<double>(rep->file_bytes)),
             format_bytes(static_cast<double>(rep->copied_bytes)), format_bytes(static_cast<double>(rep->converted_bytes)));
  for (const std::string& n : rep->notes) fmt::print("  - {}\n", n);
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand("export", "Write a card's container as a GGUF file llama.cpp loads and runs.");
  cmd->footer(
      "The container (seeded weights through moebench's quantizers) is made or reused in --container-dir (default: "
      "the output's directory), then written as one GGUF with llama.cpp's metadata: qwen3moe for GQA cards, "
      "deepseek2 for MLA cards. Quantized matrices are copied byte for byte; norms become f32, deepseek2's "
      "attn_kv_b is split into attn_k_b and attn_v_b. Cards with layers llama.cpp has no architecture for (Kimi "
      "Delta Attention, latent MoE) are refused with the reason.\n\n"
      "Example:\n"
      "  moebench export peer-qwen3moe --quant q4_0 --out /tmp/peer/qwen3moe-q4_0.gguf\n"
      "  llama-bench -m /tmp/peer/qwen3moe-q4_0.gguf -t 2 -p 64 -n 32");
  cmd->add_option("card", args->model, "model card name")->required();
  cmd->add_option("--scale", args->scale, "layers=N,experts=M (default: the card as it is)");
  cmd->add_option("--quant", args->quant, "routed experts' quant (default: the card's expert_quant)");
  cmd->add_option("--trunk-quant", args->trunk_quant, "quant of the trunk's matrices (default: the card's trunk_quant)");
  cmd->add_option("--out", args->out, "the GGUF file to write")->required();
  cmd->add_option("--container-dir", args->container_dir, "where the container is made or reused");
  cmd->add_option("--seed", args->seed, "weight seed (default 42)");
  cmd->callback([args, &state] { finish(state, "export", export_command(*args, state)); });
}

}  // namespace moebench
