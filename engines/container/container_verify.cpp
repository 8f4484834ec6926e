// container_verify.cpp — `container verify`: read a container front to
// back and recompute the XXH64 of every tensor and of every expert record
// (from its gate/up/down slice hashes), comparing them with the header.
// Each mismatch names the tensor or the expert and layer. An expert file
// whose trunk file lies beside it also has its pairing checked.
//
// The header is not trusted: the checksum tables must be strings holding
// JSON of the documented shape, expert tensors must have the shape of their
// layout, and a packed tensor's records must hold the three matrices (each
// record_bytes / 3) before their padding. Anything else is an error naming
// the key or tensor, never an exception.
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>

#include "engines/container/container.h"
#include "engines/container/container_plan.h"
#include "engines/container/gguf.h"
#include "vocab/file_io.h"
#include "vocab/hash.h"
#include "vocab/text.h"

namespace moebench {
namespace {

constexpr const char* kRemake = "remake the container with `moebench container make` (or delete the file)";

struct LayerSlices {
  std::vector<std::array<std::uint64_t, 3>> digests;  // per held expert: gate, up, down
};

// A layer number: 1 to 6 digits, else -1.
int layer_number(const std::string& s) {
  if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoi(s);
}

// Parses "blk.N.<suffix>" → N, or -1.
int layer_of(const std::string& name, const std::string& suffix) {
  if (name.rfind("blk.", 0) != 0 || name.size() <= 4 + suffix.size() ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return -1;
  }
  return layer_number(name.substr(4, name.size() - 4 - suffix.size()));
}

// What a checksum entry holds, for messages.
std::string describe(const Json& v) {
  if (!v.is_string()) return std::string("a ") + v.type_name();
  std::string s = gguf_printable(v.get_ref<const std::string&>());
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return "the string \"" + s + "\"";
}

bool is_hex64(const Json& v) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  return s.size() == 16 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// A checksum table: the string metadata `key`, parsed as a JSON object.
Expected<Json> checksum_table(const GgufFile& f, const char* key) {
  const GgufKv* kv = f.find(key);
  if (kv == nullptr) return make_error(f.label + ": no " + key + " metadata (not a moebench container?); " + kRemake);
  if (!kv->value.is_string()) {
    return make_error(f.label + ": metadata " + key + " is " + to_string(kv->type) +
                      ", expected a string holding a JSON object of checksums; " + kRemake);
  }
  Json table = Json::parse(kv->value.get_ref<const std::string&>(), nullptr, false);
  if (table.is_discarded() || !table.is_object()) {
    return make_error(f.label + ": metadata " + key + " is not a JSON object (" +
                      (table.is_discarded() ? "invalid JSON or UTF-8" : "a " + std::string(table.type_name())) +
                      "); " + kRemake);
  }
  return table;
}

}  // namespace

Expected<ContainerChecksums> read_container_checksums(const GgufFile& f) {
  auto tensors = checksum_table(f, "moebench.checksums");
  if (!tensors) return tensors.error();
  auto records = checksum_table(f, "moebench.expert_checksums");
  if (!records) return records.error();
  ContainerChecksums out;
  for (const auto& [name, v] : tensors->items()) {
    if (!is_hex64(v)) {
      return make_error(f.label + ": moebench.checksums[\"" + gguf_printable(name) + "\"] is " + describe(v) +
                        ", expected a string of 16 hex digits; " + kRemake);
    }
    out.tensors[name] = v.get<std::string>();
  }
  for (const auto& [layer, list] : records->items()) {
    const std::string where = f.label + ": moebench.expert_checksums[\"" + gguf_printable(layer) + "\"]";
    const int n = layer_number(layer);
    if (n < 0) return make_error(where + ": the key is not a layer number; " + kRemake);
    if (!list.is_array()) {
      return make_error(where + " is a " + std::string(list.type_name()) +
                        ", expected an array of checksum strings; " + kRemake);
    }
    std::vector<std::string>& sums = out.records[n];
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!is_hex64(list[i])) {
        return make_error(where + "[" + std::to_string(i) + "] is " + describe(list[i]) +
                          ", expected a string of 16 hex digits; " + kRemake);
      }
      sums.push_back(list[i].get<std::string>());
    }
  }
  return out;
}

namespace {

// What the file is: a trunk file, or an expert file that pairs with the
// trunk file beside it (when it is there).
void check_part(const GgufFile& file, const std::string& path, VerifyReport& report) {
  const std::string part = file.get_string("moebench.part").value_or("");
  if (part == "trunk") {
    report.notes.push_back("trunk file (every non-routed-expert tensor; shared by every quant of its card, scale and "
                           "seed)");
    return;
  }
  if (part != "experts") return;
  const std::string trunk_name = file.get_string("moebench.trunk_file").value_or("");
  const bool plain = !trunk_name.empty() && trunk_name.find('/') == std::string::npos && trunk_name != "." &&
                     trunk_name != "..";
  if (!plain) {
    report.mismatches.push_back("metadata moebench.trunk_file (\"" + gguf_printable(trunk_name) +
                                "\") is not the file name of a trunk file");
    return;
  }
  const std::string trunk_path = (std::filesystem::path(path).parent_path() / trunk_name).string();
  std::error_code ec;
  if (!std::filesystem::exists(trunk_path, ec)) {
    report.notes.push_back("expert file; its trunk file " + trunk_name +
                           " is not beside it (the trunk lives on drive 0 only): pairing not checked here");
  } else if (auto trunk = read_gguf(trunk_path); !trunk) {
    report.mismatches.push_back("trunk file " + trunk_name + ": " + trunk.error().message);
  } else if (Status st = check_trunk_pairing(file, *trunk); !st) {
    report.mismatches.push_back("trunk pairing: " + st.error().message);
  } else {
    report.notes.push_back("expert file; pairs with the trunk file " + trunk_name +
                           " beside it (identity and checksum table match; verify it too)");
  }
}

// One tensor's place in the expert layout.
struct Walk {
  int layer = -1;
  int split_matrix = -1;   // 0..2 for split expert tensors
  bool packed = false;
  std::uint64_t unit = 0;  // bytes per held expert (0: a trunk tensor)
};

// The expert layout of every tensor, checked before any byte is read.
Expected<std::vector<Walk>> expert_layout(const GgufFile& file, const std::string& path, std::uint64_t record_bytes) {
  const GgufKv* record_kv = file.find("moebench.expert_record_bytes");
  std::vector<Walk> walks;
  for (const GgufTensorInfo& t : file.tensors) {
    Walk w;
    for (int m = 0; m < 3 && w.layer < 0; ++m) {
      w.layer = layer_of(t.name, expert_tensor_name(0, m).substr(5));  // ".ffn_gate_exps.weight" etc.
      if (w.layer >= 0) w.split_matrix = m;
    }
    if (w.layer < 0) {
      w.layer = layer_of(t.name, ".ffn_exps_packed.weight");
      w.packed = w.layer >= 0;
    }
    const std::string where = path + ": tensor \"" + gguf_printable(t.name) + "\"";
    if (w.split_matrix >= 0 || w.packed) {
      const std::size_t dims = w.packed ? 2 : 3;
      if (t.ne.size() != dims || t.bytes % t.ne.back() != 0) {
        return make_error(where + ": an expert tensor of the " + (w.packed ? "packed" : "split") + " layout needs " +
                          std::to_string(dims) + " dimensions with the experts last; " + kRemake);
      }
      w.unit = t.bytes / t.ne.back();
      if (w.packed && (record_kv == nullptr || record_bytes == 0 || record_bytes % 3 != 0 || record_bytes > w.unit)) {
        return make_error(where + ": moebench.expert_record_bytes (" +
                          (record_kv ? gguf_value_text(record_kv->value) : std::string("missing")) +
                          ") is not three equal matrices within the tensor's " + std::to_string(w.unit) +
                          "-byte records; " + kRemake);
      }
    }
    walks.push_back(w);
  }
  return walks;
}

// Reads a container's tensors once, in 16 MiB chunks, and hashes them: a
// trunk tensor's bytes whole; an expert tensor per held expert and matrix
// (a packed record's padding is not hashed), each slice's digest kept per
// layer for the record table.
class TensorHasher {
 public:
  TensorHasher(const GgufFile& file, const std::string& path, std::uint64_t record_bytes, Progress& progress)
      : file_(file), path_(path), record_bytes_(record_bytes), progress_(progress) {
    for (const GgufTensorInfo& t : file.tensors) total_ += t.bytes;
  }
  ~TensorHasher() {
    if (fd_ >= 0) ::close(fd_);
  }
  TensorHasher(const TensorHasher&) = delete;
  TensorHasher& operator=(const TensorHasher&) = delete;

  // O_DIRECT where allowed: a verify reads the whole file once, and the
  // page cache would only evict what the engines keep there. Tensors start
  // 4096-aligned and the file ends aligned, so reads round up safely.
  // A file that is not 4096-aligned throughout (not one `container make`
  // wrote) is read buffered: O_DIRECT would refuse its reads.
  Status open() {
    bool aligned = file_.data_offset % 4096 == 0;
    for (const GgufTensorInfo& t : file_.tensors) aligned = aligned && t.offset % 4096 == 0;
    fd_ = aligned ? open_read_uncached(path_, direct_) : ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return make_error(path_ + ": cannot open: " + std::strerror(errno));
    return Status::success();
  }

  // The tensor's digest: its bytes' for a trunk tensor, the digest of its
  // slices' digests for an expert tensor.
  Expected<std::uint64_t> hash(const GgufTensorInfo& t, const Walk& w, VerifyReport& report) {
    const std::vector<Segment> segments = segments_of(w);
    const bool experts = w.unit > 0;
    Xxh64 tensor_hash;                      // trunk tensors: their bytes
    std::vector<std::uint64_t> slice_list;  // expert tensors: their slices' hashes
    Xxh64 slice;
    std::size_t segment = 0;
    std::uint64_t in_unit = 0, index = 0;  // index: the held expert
    for (std::uint64_t done = 0; done < t.bytes;) {
      auto got = read_chunk(t, done);
      if (!got) return got.error();
      const std::size_t n = *got;
      const unsigned char* data = buffer_.get();
      if (!experts) tensor_hash.update(data, n);
      for (std::size_t p = 0; experts && p < n;) {
        const Segment& s = segments[segment];
        const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(s.end - in_unit, n - p));
        if (s.matrix >= 0) slice.update(data + p, take);
        p += take;
        in_unit += take;
        if (in_unit < s.end) continue;
        if (s.matrix >= 0) {
          slice_list.push_back(slice.digest());
          auto& d = layers_[w.layer].digests;
          if (d.size() <= index) d.resize(index + 1, {0, 0, 0});
          d[index][static_cast<std::size_t>(s.matrix)] = slice_list.back();
          slice = Xxh64();
        }
        if (++segment == segments.size()) {
          segment = 0;
          in_unit = 0;
          ++index;
        }
      }
      done += n;
      report.bytes_verified += n;
      progress_.phase("verifying " + gguf_printable(t.name),
                      total_ > 0 ? static_cast<double>(report.bytes_verified) / static_cast<double>(total_) : 1.0);
    }
    return experts ? xxh64(slice_list.data(), slice_list.size() * sizeof(std::uint64_t)) : tensor_hash.digest();
  }

  const std::map<int, LayerSlices>& layers() const { return layers_; }

 private:
  static constexpr std::size_t kBuffer = 16u << 20;
  // The slices of one held expert's unit, as (end, matrix) with matrix -1
  // for the packed record's padding (not hashed). Split: one slice.
  struct Segment {
    std::uint64_t end;
    int matrix;
  };
  std::vector<Segment> segments_of(const Walk& w) const {
    if (w.packed) {
      const std::uint64_t mb = record_bytes_ / 3;
      std::vector<Segment> s = {{mb, 0}, {2 * mb, 1}, {record_bytes_, 2}};
      if (w.unit > record_bytes_) s.push_back({w.unit, -1});
      return s;
    }
    if (w.unit > 0) return {{w.unit, w.split_matrix}};
    return {};
  }
  // The next chunk of tensor t from byte `done` into the buffer: its size.
  Expected<std::size_t> read_chunk(const GgufTensorInfo& t, std::uint64_t done) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kBuffer, t.bytes - done));
    const std::size_t want_bytes = direct_ ? (n + 4095) / 4096 * 4096 : n;
    const std::uint64_t at = file_.data_offset + t.offset + done;
    const ssize_t r = ::pread(fd_, buffer_.get(), want_bytes, static_cast<off_t>(at));
    if (r < static_cast<ssize_t>(n)) {
      return make_error(path_ + ": tensor \"" + gguf_printable(t.name) + "\": read failed at byte " + std::to_string(at) +
                        (r < 0 ? std::string(": ") + std::strerror(errno) : " (short read)"));
    }
    return n;
  }

  const GgufFile& file_;
  const std::string& path_;
  const std::uint64_t record_bytes_;
  Progress& progress_;
  std::uint64_t total_ = 0;
  int fd_ = -1;
  bool direct_ = false;
  const AlignedBytes buffer_ = aligned_bytes(kBuffer);
  std::map<int, LayerSlices> layers_;
};

// Each held expert's record checksum (its three slices' digests) against
// the stored table; a mismatch names the expert by its original id.
void compare_records(const GgufFile& file, const std::map<int, LayerSlices>& layers, const ContainerChecksums& sums,
                     VerifyReport& report) {
  const GgufKv* held_kv = file.find("moebench.experts_held");
  const Json held = held_kv != nullptr && held_kv->value.is_array() ? held_kv->value : Json::array();
  for (const auto& [layer, slices] : layers) {
    const auto it = sums.records.find(layer);
    const std::vector<std::string> none;
    const std::vector<std::string>& want = it == sums.records.end() ? none : it->second;
    for (std::size_t j = 0; j < slices.digests.size(); ++j) {
      ++report.expert_records;
      const std::string got = hex64(xxh64(slices.digests[j].data(), 3 * sizeof(std::uint64_t)));
      const std::string expected = j < want.size() ? want[j] : "";
      if (got != expected) {
        const std::string id = j < held.size() ? gguf_value_text(held[j]) : std::to_string(j);
        report.mismatches.push_back("expert " + id + " of layer " + std::to_string(layer));
      }
    }
  }
}

}  // namespace

Expected<VerifyReport> verify_container(const std::string& path, Progress& progress) {
  auto file = read_gguf(path);
  if (!file) return file.error();
  if (file->get_string("general.architecture").value_or("") != "moebench") {
    return make_error(path + ": not a moebench container (general.architecture is not \"moebench\"); "
                      "`container inspect` reads any GGUF");
  }
  auto sums = read_container_checksums(*file);
  if (!sums) return sums.error();
  VerifyReport report;
  check_part(*file, path, report);
  const std::uint64_t record_bytes = file->get_uint("moebench.expert_record_bytes").value_or(0);
  auto walks = expert_layout(*file, path, record_bytes);
  if (!walks) return walks.error();
  TensorHasher hasher(*file, path, record_bytes, progress);
  if (Status st = hasher.open(); !st) return st.error();
  for (std::size_t ti = 0; ti < file->tensors.size(); ++ti) {
    const GgufTensorInfo& t = file->tensors[ti];
    auto got = hasher.hash(t, (*walks)[ti], report);
    if (!got) return got.error();
    const auto it = sums->tensors.find(t.name);
    const std::string want = it == sums->tensors.end() ? std::string() : it->second;
    ++report.tensors;
    if (want != hex64(*got)) {
      report.mismatches.push_back("tensor " + gguf_printable(t.name) + (want.empty() ? " (no checksum recorded)" : ""));
    }
  }
  compare_records(*file, hasher.layers(), *sums, report);
  return report;
}

}  // namespace moebench
