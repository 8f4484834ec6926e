// cmd_card.cpp — `moebench card show NAME`: the numbers a model card implies
// (parameters, bytes per expert and per decode token, trunk, KV cache and
// linear state at chosen contexts, container size per quant) and where its
// geometry comes from. Scaling (--scale) applies before any number. Bad input
// (unknown card, bad scale, unknown or unfitting quant, bad context) prints
// one clear error and exits 1. The report itself is render_card_report()
// (card_report.h), so the golden test checks the same text.
#include <cstdio>

#include <fmt/format.h>

#include "engines/container/card_from_gguf.h"
#include "vocab/card_report.h"
#include "cli/commands.h"
#include "vocab/file_io.h"

namespace moebench {
namespace {

struct ShowArgs {
  std::string name;
  std::string scale;
  std::string quant;
  std::vector<std::string> contexts;
  bool json = false;
};

Expected<int> show_card(const ShowArgs& args, const CliState& state) {
  auto sc = state.scaled_card(args.name, args.scale);
  if (!sc) return fail(sc.error().message);
  CardReportOptions options;
  options.scale = sc->scale;
  options.quant = args.quant;
  if (!args.contexts.empty()) {
    options.contexts.clear();
    for (const std::string& c : args.contexts) {
      auto n = parse_context_tokens(c);
      if (!n) return fail("--context: " + n.error().message);
      options.contexts.push_back(*n);
    }
  }
  if (args.json) {
    auto j = card_report_json(sc->scaled, options);
    if (!j) return fail("--quant: " + j.error().message);
    fmt::print("{}\n", j->dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    return kExitOk;
  }
  auto report = render_card_report(sc->scaled, options);
  if (!report) return fail("--quant: " + report.error().message);
  std::fputs(report->c_str(), stdout);
  return kExitOk;
}

struct FromGgufArgs {
  std::string file;
  std::string out;
};

Expected<int> card_from_gguf_file(const FromGgufArgs& args) {
  auto file = read_gguf(args.file);
  if (!file) return fail(file.error().message);
  auto derived = card_from_gguf(*file);
  if (!derived) return fail(derived.error().message);
  // Strings are printable UTF-8 already (card_from_gguf); replace, never throw, regardless.
  const std::string text =
      model_card_to_json(derived->card).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  // What is written must load as a card: check it through the strict loader.
  auto check = load_config_text<ModelCard>(text, args.out.empty() ? "derived card" : args.out, load_model_card);
  if (!check) return fail("the derived card does not validate (the file lacks something a card needs):\n" +
                          check.error().message);
  for (const std::string& n : derived->notes) say("note: {}", n);
  if (args.out.empty()) {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  if (Status st = write_file_atomic(args.out, text); !st) return fail(st.error().message);
  say("moebench card from-gguf: card \"{}\" written to {}", derived->card.name,
             args.out);
  return 0;
}

}  // namespace

void add_card_command(CLI::App& app, CliState& state) {
  CLI::App* card = app.add_subcommand(
      "card", "Model cards: show the numbers a card's geometry implies (parameters, bytes, KV cache).");
  card->require_subcommand(1);
  card->footer("Every byte count is derived from the card's shapes and the quant table, never typed in.\n\n"
               "Example:\n"
               "  moebench card show kimi-k3\n"
               "  moebench card from-gguf model.gguf --out my-card.json");

  auto args = std::make_shared<ShowArgs>();
  CLI::App* show = card->add_subcommand(
      "show", "Print a card's parameters, bytes per expert and per decode token, trunk, KV cache, "
              "container size per quant, and geometry provenance.");
  show->footer(
      "Shows what a model card implies: parameters (total, active per token, by component), bytes "
      "per routed expert, trunk bytes, checkpoint size, weight bytes per decode token when all "
      "weights are resident / the trunk is resident and experts stream from storage / everything "
      "streams, KV bytes per token and at each context plus the fixed linear-attention state, the "
      "container size for every quant whose blocks fit the expert rows, and the card's sources. "
      "--scale applies first, so a scaled card shows its own (smaller) numbers.\n\n"
      "Example:\n"
      "  moebench card show kimi-k3\n"
      "  moebench card show kimi-k3 --scale layers=4,experts=112 --quant q4_k\n"
      "  moebench card show qwen3-30b-a3b --context 32K --context 256K\n"
      "  moebench card show my-card.json");
  show->add_option("name", args->name, "model card name (in configs/models) or a card file")->required();
  show->add_option("--scale", args->scale,
                   "scale the card first: \"layers=N,experts=M\" (either part optional) or \"full\"");
  show->add_option("--quant", args->quant,
                   "quant of the routed experts for the per-expert and per-token numbers "
                   "(default: the card's native expert_quant)");
  show->add_option("--context", args->contexts,
                   "context length(s) for the KV cache, e.g. 8192, 8K, 1M (repeatable or comma-separated; "
                   "default 4K, 8K, 128K, 1M)")
      ->delimiter(',');
  show->add_flag("--json", args->json, "the same numbers as JSON (bytes as exact integers)");
  show->callback([args, &state] { finish(state, "card show", show_card(*args, state)); });

  auto gguf_args = std::make_shared<FromGgufArgs>();
  CLI::App* from = card->add_subcommand(
      "from-gguf", "Derive a model card from a GGUF file's metadata and tensor shapes (llama.cpp MoE models).");
  from->footer(
      "Reads only the header. Layers, experts, top-k, expert and attention widths, vocabulary and the quant of "
      "the experts come from the file; what it does not state is printed as a note.\n\n"
      "Example:\n"
      "  moebench card from-gguf Qwen3-30B-A3B-Q4_K_M.gguf --out configs/models/qwen3-30b-q4km.json\n"
      "  moebench card from-gguf tests/data/gguf/tiny-qwen3moe-Q4_K.gguf");
  from->add_option("file", gguf_args->file, "GGUF file")->required();
  from->add_option("--out", gguf_args->out, "write the card here (default: print it)");
  from->callback([gguf_args, &state] { finish(state, "card from-gguf", card_from_gguf_file(*gguf_args)); });
}

}  // namespace moebench
