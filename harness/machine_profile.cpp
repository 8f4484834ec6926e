// machine_profile.cpp — strict loader for MachineProfile (see the header).
#include "harness/machine_profile.h"

#include "engines/quant/quant_format.h"

namespace moebench {

const char* to_string(Provenance p) {
  switch (p) {
    case Provenance::kMeasured: return "measured";
    case Provenance::kSpec: return "spec";
    case Provenance::kEstimate: return "estimate";
  }
  return "?";
}

namespace {

enum class FigureKind { kSize, kRate, kCount, kSeconds, kMoney };

std::optional<double> read_figure_value(const Json& j, const std::string& path, Diagnostics& d,
                                        FigureKind kind) {
  switch (kind) {
    case FigureKind::kSize: {
      auto v = read_size(j, path, d);
      return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
    }
    case FigureKind::kRate: return read_rate(j, path, d);
    case FigureKind::kCount:
    case FigureKind::kSeconds:
    case FigureKind::kMoney: {
      auto v = read_number(j, path, d);
      if (v && *v < 0) {
        d.add(path, "expected a value of zero or more, got " + j.dump());
        return std::nullopt;
      }
      return v;
    }
  }
  return std::nullopt;
}

// {"value": ..., "provenance": "spec", "source": "...", "range": [lo, hi]}
std::optional<Figure> read_figure(ObjectReader& parent, const char* key, bool required,
                                  FigureKind kind) {
  const Json* j = parent.object(key, required);
  if (j == nullptr) return std::nullopt;
  Diagnostics& d = parent.diagnostics();
  ObjectReader r(*j, parent.path_of(key), d);
  Figure f;
  const Json* v = r.get("value", true);
  std::optional<double> value = v ? read_figure_value(*v, r.path_of("value"), d, kind) : std::nullopt;
  const auto prov = r.enumeration("provenance", true, {"measured", "spec", "estimate"}, "provenance");
  const auto source = r.string("source", true);
  if (source && source->empty()) {
    d.add(r.path_of("source"), "a figure needs its source: the probe method, the spec sheet, or "
                               "the reasoning behind an estimate");
  }
  if (const Json* range = r.array("range", false, false)) {
    if (range->size() != 2) {
      d.add(r.path_of("range"), "expected [low, high]");
    } else {
      f.low = read_figure_value((*range)[0], json_pointer_append(r.path_of("range"), 0), d, kind);
      f.high = read_figure_value((*range)[1], json_pointer_append(r.path_of("range"), 1), d, kind);
      if (f.low && f.high && value && !(*f.low <= *value && *value <= *f.high)) {
        d.add(r.path_of("range"), "the range must contain the value");
      }
    }
  }
  r.finish();
  if (!value || !prov || !source) return std::nullopt;
  f.value = *value;
  f.provenance = *prov == "measured" ? Provenance::kMeasured
                 : *prov == "spec"   ? Provenance::kSpec : Provenance::kEstimate;
  f.source = *source;
  return f;
}

}  // namespace

std::optional<MachineProfile> load_machine_profile(const Json& j, Diagnostics& d) {
  ObjectReader r(j, "", d);
  if (!r.is_object()) return std::nullopt;
  MachineProfile m;
  m.name = r.string("name", true).value_or("");
  m.description = r.string("description", false).value_or("");
  m.cpu_model = r.string("cpu_model", false).value_or("");
  m.cores = read_figure(r, "cores", true, FigureKind::kCount).value_or(Figure{});
  m.memory_total_bytes = read_figure(r, "memory_total", true, FigureKind::kSize).value_or(Figure{});
  m.memory_usable_bytes =
      read_figure(r, "memory_usable", true, FigureKind::kSize).value_or(Figure{});
  m.memory_read_bytes_s =
      read_figure(r, "memory_read_bw", true, FigureKind::kRate).value_or(Figure{});
  m.nodes = static_cast<int>(r.integer("nodes", false, 1, 4096).value_or(1));
  m.interconnect_bytes_s = read_figure(r, "interconnect_bw", m.nodes > 1, FigureKind::kRate);
  m.sync_s_per_token = read_figure(r, "sync_s_per_token", false, FigureKind::kSeconds);
  m.price_usd = read_figure(r, "price_usd", false, FigureKind::kMoney);
  m.price_basis = r.enumeration("price_basis", m.price_usd.has_value(), {"purchase", "hourly"},
                                "price basis");

  if (const Json* drives = r.array("drives", true, true)) {
    for (std::size_t i = 0; i < drives->size(); ++i) {
      ObjectReader dr((*drives)[i], json_pointer_append(r.path_of("drives"), i), d);
      DriveProfile p;
      p.name = dr.string("name", true).value_or("");
      p.path = dr.string("path", false);
      p.capacity_bytes = read_figure(dr, "capacity", false, FigureKind::kSize);
      p.seq_read_bytes_s = read_figure(dr, "seq_read_bw", true, FigureKind::kRate).value_or(Figure{});
      if (const Json* curve = dr.array("read_curve", false, false)) {
        for (std::size_t k = 0; k < curve->size(); ++k) {
          ObjectReader c((*curve)[k], json_pointer_append(dr.path_of("read_curve"), k), d);
          DriveReadPoint pt;
          pt.block_bytes = c.size("block", true).value_or(0);
          pt.queue_depth = static_cast<int>(c.integer("queue_depth", true, 1, 65536).value_or(1));
          pt.pattern = c.enumeration("pattern", true, {"random", "sequential"}, "pattern").value_or("");
          pt.read_bytes_s = read_figure(c, "read_bw", true, FigureKind::kRate).value_or(Figure{});
          c.finish();
          p.read_curve.push_back(pt);
        }
      }
      dr.finish();
      m.drives.push_back(std::move(p));
    }
  }
  if (const Json* kernels = r.array("kernels", false, false)) {
    for (std::size_t i = 0; i < kernels->size(); ++i) {
      ObjectReader k((*kernels)[i], json_pointer_append(r.path_of("kernels"), i), d);
      KernelFigure kf;
      kf.quant = k.enumeration("quant", true, quant_names(), "quant").value_or("");
      kf.shape = k.enumeration("shape", true, {"matvec", "matmul"}, "kernel shape").value_or("");
      kf.threads = static_cast<int>(k.integer("threads", true, 1, 1 << 20).value_or(1));
      kf.weight_bytes_s = read_figure(k, "weight_bw", true, FigureKind::kRate).value_or(Figure{});
      k.finish();
      m.kernels.push_back(std::move(kf));
    }
  }
  r.finish();
  if (!d.ok()) return std::nullopt;
  return m;
}

Expected<MachineProfile> load_machine_profile_file(const std::string& path) {
  return load_config_file<MachineProfile>(path, load_machine_profile);
}

}  // namespace moebench
