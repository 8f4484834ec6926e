// config_fuzz.cpp — libFuzzer target for the config loaders. The first byte
// picks the loader ('m' model card, 'h' machine profile, 's' sweep, 'c'
// claims, 'u' the size and rate parsers, 'e' engine efficiencies; any other
// byte: its value mod 6),
// the rest is the file's text. Whatever the text, a loader must return a
// value or an error naming the problem: never crash, hang, overflow or read
// out of bounds (ASan + UBSan, with UB fatal). A sweep that loads is also
// expanded (when it is small), as `moebench validate` does. Seeds:
// tests/fuzz/corpus/config_fuzz (the shipped configs with their kind byte).
// Build and run: see docs/architecture.md, "Fuzzing".
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "vocab/claim.h"
#include "vocab/engine_efficiency.h"
#include "vocab/config_store.h"
#include "vocab/json_reader.h"
#include "vocab/machine_profile.h"
#include "vocab/model_card.h"
#include "vocab/sweep_spec.h"
#include "vocab/units.h"

using namespace moebench;

namespace {

const ConfigStore& store() {
  static const ConfigStore s(std::vector<std::string>{});  // the embedded configs only
  return s;
}

SweepContext context() {
  SweepContext ctx;
  ctx.engine_names = {"null", "resident", "streaming"};
  ctx.engine_uses_drives = [](const std::string& name) { return name != "null"; };
  ctx.card_names = store().names("models");
  ctx.find_card = [](const std::string& name) { return store().card(name); };
  return ctx;
}

void load_sweep_and_expand(const std::string& text) {
  static const SweepContext ctx = context();
  auto spec = load_sweep_text(text, "fuzz.json", ctx);
  if (!spec) return;
  // Expansion costs ~10 ms a point under ASan: keep each input fast.
  std::size_t points = 1;
  for (const auto& [axis, values] : spec->axes) {
    points *= std::max<std::size_t>(1, values.size());
    if (points > 256) return;
  }
  auto expanded = expand_sweep(*spec, ctx);
  if (expanded) {
    for (const Point& p : *expanded) (void)p.id();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::size_t kind = std::string_view("mhscue").find(static_cast<char>(data[0]));
  if (kind == std::string_view::npos) kind = data[0] % 6;
  switch (kind) {
    case 0: {
      auto card = load_config_text<ModelCard>(text, "fuzz.json", load_model_card);
      if (card) {
        (void)card->total_layers();
        (void)card->moe_layers();
      }
      break;
    }
    case 1:
      (void)load_config_text<MachineProfile>(text, "fuzz.json", load_machine_profile);
      break;
    case 2:
      load_sweep_and_expand(text);
      break;
    case 3:
      (void)load_config_text<std::vector<Claim>>(text, "fuzz.json", load_claims);
      break;
    case 5:
      (void)load_config_text<EfficiencyTable>(text, "fuzz.json", load_efficiency_table);
      break;
    default:
      (void)parse_size_bytes(text);
      (void)parse_rate_bytes_s(text);
      break;
  }
  return 0;
}
