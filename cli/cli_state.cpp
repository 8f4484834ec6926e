// cli_state.cpp — what every subcommand shares: the config store (--configs
// directories, ./configs, the embedded configs), the sweep context (engines,
// cards), the number validator and the default probe path. main.cpp only builds the command tree.
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <filesystem>

#include "cli/commands.h"
#include "engines/registry.h"
#include "model/regime_store.h"

namespace moebench {

ConfigStore CliState::store() const {
  std::vector<std::string> dirs = config_dirs;
  std::error_code ec;
  if (std::filesystem::is_directory("configs", ec)) dirs.push_back("configs");
  return ConfigStore(dirs);
}

Expected<CliState::ScaledCard> CliState::scaled_card(const std::string& name, const std::string& scale_text) const {
  auto card = store().card(name);
  if (!card) return card.error();
  auto scale = parse_scale(scale_text);
  if (!scale) return make_error("--scale: " + scale.error().message);
  auto scaled = apply_scale(*card, *scale);
  if (!scaled) return make_error("--scale: " + scaled.error().message);
  return ScaledCard{std::move(*card), *scale, std::move(*scaled)};
}

SweepContext CliState::sweep_context(const ConfigStore& store) const {
  SweepContext ctx;
  add_engines_to_context(ctx);
  ctx.card_names = store.names("models");
  ctx.find_card = [store](const std::string& name) { return store.card(name); };
  ctx.check_regime_fit = check_regime_fit;
  return ctx;
}

CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, v);  // locale-independent, like units.cpp
        if (ec != std::errc() || ptr != end || !std::isfinite(v) || v <= 0) {
          return "expected a number > 0, got \"" + text + "\"";
        }
        return {};
      },
      "NUMBER>0", "positive_number");
}

std::string default_probe_path() {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0) return "results/probe.json";
  return "results/probe-" + std::string(host) + ".json";
}

}  // namespace moebench
