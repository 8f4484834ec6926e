// config_store.cpp — see config_store.h.
#include "vocab/config_store.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "vocab/file_io.h"
#include "vocab/json_reader.h"
#include "vocab/text.h"

namespace fs = std::filesystem;

namespace moebench {

Expected<ConfigSource> ConfigStore::find(std::string_view kind, const std::string& name) const {
  std::error_code ec;
  if (name.find('/') != std::string::npos || (name.size() > 5 && name.substr(name.size() - 5) == ".json")) {
    if (!fs::is_regular_file(name, ec)) {
      return make_error(name + ": no such file");
    }
    auto text = read_file(name);
    if (!text) return text.error();
    return ConfigSource{name, *text, fs::path(name).parent_path().string()};
  }
  for (const std::string& dir : dirs_) {
    const fs::path p = fs::path(dir) / std::string(kind) / (name + ".json");
    if (fs::is_regular_file(p, ec)) {
      auto text = read_file(p.string());
      if (!text) return text.error();
      return ConfigSource{p.string(), *text, p.parent_path().string()};
    }
    // Present but not a file (a directory, FIFO, dangling link): say so
    // rather than "no config named" it.
    if (fs::exists(fs::symlink_status(p, ec))) {
      return make_error(p.string() + ": not a regular file (a directory, FIFO, device or dangling link): make it a JSON file or remove it");
    }
  }
  const std::string embedded = "configs/" + std::string(kind) + "/" + name + ".json";
  for (const EmbeddedFile& f : embedded_configs()) {
    if (f.path == embedded) return ConfigSource{"embedded:" + embedded, std::string(f.content), ""};
  }
  const std::vector<std::string> known = names(kind);
  return make_error("no " + std::string(kind) + " config named \"" + name + "\"" +
                    did_you_mean(name, known) + "; known: " + (known.empty() ? "none" : join(known, ", ")));
}

std::vector<std::string> ConfigStore::names(std::string_view kind) const {
  std::set<std::string> out;
  std::error_code ec;
  for (const std::string& dir : dirs_) {
    const fs::path d = fs::path(dir) / std::string(kind);
    if (!fs::is_directory(d, ec)) continue;
    // increment(ec): a directory that vanishes or cannot be read mid-listing
    // ends the listing instead of throwing filesystem_error.
    for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".json") out.insert(it->path().stem().string());
    }
  }
  const std::string prefix = "configs/" + std::string(kind) + "/";
  for (const EmbeddedFile& f : embedded_configs()) {
    if (f.path.substr(0, prefix.size()) == prefix && f.path.find('/', prefix.size()) == std::string_view::npos) {
      std::string_view stem = f.path.substr(prefix.size());
      if (stem.size() > 5) out.insert(std::string(stem.substr(0, stem.size() - 5)));
    }
  }
  return {out.begin(), out.end()};
}

// Cards decoded and checked, by source label and text.
struct ConfigStore::CardMemo {
  std::mutex mutex;
  std::map<std::pair<std::string, std::string>, ModelCard> cards;
  std::size_t decoded = 0;
};

ConfigStore::ConfigStore(std::vector<std::string> dirs)
    : dirs_(std::move(dirs)), memo_(std::make_shared<CardMemo>()) {}

std::size_t ConfigStore::cards_decoded() const {
  std::lock_guard<std::mutex> lock(memo_->mutex);
  return memo_->decoded;
}

Expected<ModelCard> ConfigStore::card(const std::string& name) const {
  auto src = find("models", name);
  if (!src) return src.error();
  std::pair<std::string, std::string> key{src->label, std::move(src->text)};
  std::optional<ModelCard> card;
  {
    std::lock_guard<std::mutex> lock(memo_->mutex);
    if (auto it = memo_->cards.find(key); it != memo_->cards.end()) card = it->second;
  }
  if (!card) {
    auto loaded = load_config_text<ModelCard>(key.second, key.first, load_model_card);
    std::lock_guard<std::mutex> lock(memo_->mutex);
    ++memo_->decoded;
    if (!loaded) return loaded.error();
    card = std::move(*loaded);
    if (memo_->cards.size() < 256) memo_->cards.emplace(std::move(key), *card);  // a bound: hostile sweeps name many
  }
  if (name.find('/') == std::string::npos && card->name != name) {
    return make_error(src->label + ": /name: card is named \"" + card->name + "\" but is stored as \"" +
                      name + "\"; the name and the file name must agree");
  }
  return *card;
}

}  // namespace moebench
