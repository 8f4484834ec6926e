// container_verify.cpp — `container verify`: read a container front to
// back and recompute the XXH64 of every tensor and of every expert record
// (from its gate/up/down slice hashes), comparing them with the header.
// Each mismatch names the tensor or the expert and layer.
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include "engines/container/container.h"
#include "engines/container/container_plan.h"
#include "engines/container/gguf.h"
#include "harness/file_io.h"
#include "harness/hash.h"
#include "harness/text.h"

namespace moebench {
namespace {

struct LayerSlices {
  std::vector<std::array<std::uint64_t, 3>> digests;  // per held expert: gate, up, down
};

// Parses "blk.N.<suffix>" → N, or -1.
int layer_of(const std::string& name, const std::string& suffix) {
  if (name.rfind("blk.", 0) != 0 || name.size() <= suffix.size() ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return -1;
  }
  const std::string mid = name.substr(4, name.size() - 4 - suffix.size());
  if (mid.empty() || mid.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoi(mid);
}

}  // namespace

Expected<VerifyReport> verify_container(const std::string& path, Progress& progress) {
  auto file = read_gguf(path);
  if (!file) return file.error();
  if (file->get_string("general.architecture").value_or("") != "moebench") {
    return make_error(path + ": not a moebench container (general.architecture is not \"moebench\"); "
                      "`container inspect` reads any GGUF");
  }
  Json tensor_sums, record_sums;
  try {
    tensor_sums = Json::parse(file->get_string("moebench.checksums").value_or("null"));
    record_sums = Json::parse(file->get_string("moebench.expert_checksums").value_or("null"));
  } catch (const Json::exception&) {
    return make_error(path + ": moebench.checksums / moebench.expert_checksums are not valid JSON");
  }
  if (!tensor_sums.is_object() || !record_sums.is_object()) {
    return make_error(path + ": the container has no checksum tables (moebench.checksums)");
  }
  const std::uint64_t record_bytes = file->get_uint("moebench.expert_record_bytes").value_or(0);
  // O_DIRECT where allowed: a verify reads the whole file once, and the
  // page cache would only evict what the engines keep there. Tensors start
  // 4096-aligned and the file ends aligned, so reads round up safely.
  bool direct = false;
  const int fd = open_read_uncached(path, direct);
  if (fd < 0) return make_error(path + ": cannot open: " + std::strerror(errno));
  VerifyReport report;
  std::map<int, LayerSlices> layers;
  constexpr std::size_t kBuffer = 16u << 20;
  const AlignedBytes storage = aligned_bytes(kBuffer);
  unsigned char* const data = storage.get();
  std::uint64_t total = 0;
  for (const GgufTensorInfo& t : file->tensors) total += t.bytes;
  for (const GgufTensorInfo& t : file->tensors) {
    int split_matrix = -1;
    int layer = -1;
    for (int m = 0; m < 3 && layer < 0; ++m) {
      layer = layer_of(t.name, expert_tensor_name(0, m).substr(5));  // ".ffn_gate_exps.weight" etc.
      if (layer >= 0) split_matrix = m;
    }
    const int packed_layer = layer_of(t.name, ".ffn_exps_packed.weight");
    const bool experts = split_matrix >= 0 || packed_layer >= 0;
    if (packed_layer >= 0) layer = packed_layer;
    const std::uint64_t held = experts ? t.ne.back() : 1;
    // Split: a slice per expert; packed: three slices inside each padded record.
    const std::uint64_t unit = experts ? t.bytes / held : t.bytes;
    Xxh64 tensor_hash;                 // trunk tensors: their bytes
    std::vector<std::uint64_t> slice_list;  // expert tensors: their slices' hashes
    Xxh64 slice;
    std::uint64_t in_unit = 0;
    std::uint64_t index = 0;  // expert (split) or expert*3+matrix (packed)
    const std::uint64_t matrix_bytes = record_bytes / 3;
    auto slice_end = [&](std::uint64_t pos_in_unit) -> std::uint64_t {
      if (packed_layer < 0) return unit;
      const std::uint64_t m = pos_in_unit < matrix_bytes ? 1 : pos_in_unit < 2 * matrix_bytes ? 2 : 3;
      return std::min(m * matrix_bytes, unit);
    };
    auto finish_slice = [&](std::uint64_t pos_in_unit) {
      slice_list.push_back(slice.digest());
      auto& d = layers[layer].digests;
      if (packed_layer >= 0) {
        const std::uint64_t m = pos_in_unit <= matrix_bytes ? 0 : pos_in_unit <= 2 * matrix_bytes ? 1 : 2;
        if (pos_in_unit <= record_bytes) {
          if (d.size() <= index) d.resize(index + 1);
          d[index][m] = slice.digest();
        }
      } else {
        if (d.size() <= index) d.resize(index + 1);
        d[index][static_cast<std::size_t>(split_matrix)] = slice.digest();
      }
      slice = Xxh64();
    };
    std::uint64_t done = 0;
    while (done < t.bytes) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kBuffer, t.bytes - done));
      const std::size_t want_bytes = direct ? (n + 4095) / 4096 * 4096 : n;
      const ssize_t r = ::pread(fd, data, want_bytes, static_cast<off_t>(file->data_offset + t.offset + done));
      if (r < static_cast<ssize_t>(n)) {
        ::close(fd);
        return make_error(path + ": tensor \"" + t.name + "\": read failed at byte " +
                          std::to_string(file->data_offset + t.offset + done) + (r < 0 ? std::string(": ") + std::strerror(errno) : " (short read)"));
      }
      if (!experts) tensor_hash.update(data, n);
      if (experts) {
        std::size_t p = 0;
        while (p < n) {
          const std::uint64_t end = slice_end(in_unit);
          const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(end - in_unit, n - p));
          if (in_unit < record_bytes || packed_layer < 0) slice.update(data + p, take);
          p += take;
          in_unit += take;
          if (in_unit == end) {
            if (packed_layer < 0 || end <= record_bytes) finish_slice(end);
            if (in_unit == unit) {
              in_unit = 0;
              ++index;
            }
          }
        }
      }
      done += n;
      report.bytes_verified += n;
      progress.phase("verifying " + t.name, static_cast<double>(report.bytes_verified) / static_cast<double>(total));
    }
    const std::string want = tensor_sums.value(t.name, std::string());
    ++report.tensors;
    const std::uint64_t got = experts ? xxh64(slice_list.data(), slice_list.size() * sizeof(std::uint64_t))
                                      : tensor_hash.digest();
    if (want != hex64(got)) {
      report.mismatches.push_back("tensor " + t.name + (want.empty() ? " (no checksum recorded)" : ""));
    }
  }
  ::close(fd);
  const Json held = file->find("moebench.experts_held") ? file->find("moebench.experts_held")->value : Json::array();
  for (auto& [layer, slices] : layers) {
    const Json& want = record_sums.value(std::to_string(layer), Json::array());
    for (std::size_t j = 0; j < slices.digests.size(); ++j) {
      ++report.expert_records;
      const std::string got = hex64(xxh64(slices.digests[j].data(), 3 * sizeof(std::uint64_t)));
      const std::string expected = j < want.size() && want[j].is_string() ? want[j].get<std::string>() : "";
      if (got != expected) {
        const std::string id = j < held.size() ? held[j].dump() : std::to_string(j);
        report.mismatches.push_back("expert " + id + " of layer " + std::to_string(layer));
      }
    }
  }
  return report;
}

}  // namespace moebench
