// config_store.h — finding config files by kind and name.
//
// A name such as "kimi-k3" (kind "models") resolves, in order, to
//   1. a path, if the name is an existing file;
//   2. DIR/models/kimi-k3.json for each config directory (--configs DIR,
//      then ./configs);
//   3. the copy of configs/models/kimi-k3.json compiled into the binary.
// So a fresh clone, an installed binary and a user's own configs all work,
// and the label of each source says which one was used.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vocab/expected.h"
#include "vocab/json_reader.h"
#include "vocab/model_card.h"

namespace moebench {

struct EmbeddedFile {
  std::string_view path;  // "configs/models/kimi-k3.json"
  std::string_view content;
};
const std::vector<EmbeddedFile>& embedded_configs();  // generated at build time

struct ConfigSource {
  std::string label;  // file path, or "embedded:configs/…"
  std::string text;
  std::string dir;    // directory for relative paths inside ("" for embedded)
};

class ConfigStore {
 public:
  explicit ConfigStore(std::vector<std::string> dirs);
  // kind: "models", "hardware", "sweeps", "claims".
  Expected<ConfigSource> find(std::string_view kind, const std::string& name_or_path) const;
  std::vector<std::string> names(std::string_view kind) const;
  // The card's file is read on every call (an edited card is seen); a text
  // already decoded and checked is not decoded again (a sweep of 10^4
  // points asks for its card 10^4 times). Copies of a store share that memo.
  Expected<ModelCard> card(const std::string& name) const;
  std::size_t cards_decoded() const;  // card texts decoded so far (by this store and its copies)

 private:
  struct CardMemo;
  std::vector<std::string> dirs_;
  std::shared_ptr<CardMemo> memo_;
};

// An optional config (a stored fit): `kind`/`name` loaded by `loader`, none
// when neither a config directory nor the binary has such a file; a file
// that does not load is an error naming it.
template <class T, class Loader>
Expected<std::optional<T>> load_optional_config(const ConfigStore& store, std::string_view kind, const std::string& name,
                                                Loader loader) {
  const std::vector<std::string> names = store.names(kind);
  if (std::find(names.begin(), names.end(), name) == names.end()) return std::optional<T>{};
  auto src = store.find(kind, name);
  if (!src) return src.error();
  auto loaded = load_config_text<T>(src->text, src->label, loader);
  if (!loaded) return loaded.error();
  return std::optional<T>(std::move(*loaded));
}

}  // namespace moebench
