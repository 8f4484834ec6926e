// machine_spec.cpp — see machine_spec.h.
#include "vocab/machine_spec.h"

#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

namespace {

std::optional<MachineSpecMemory> load_memory(const Json& j, const std::string& path, Diagnostics& d) {
  ObjectReader r(j, path, d);
  if (!r.is_object()) return std::nullopt;
  MachineSpecMemory m;
  m.kind = r.string("kind", false);
  if (auto v = r.integer("mt_s", false, 100, 100000)) m.mt_s = static_cast<int>(*v);
  if (auto v = r.integer("channels", false, 1, 1024)) m.channels = static_cast<int>(*v);
  if (auto v = r.integer("dimms", false, 1, 4096)) m.dimms = static_cast<int>(*v);
  if (const Json* s = r.get("size", false)) {
    if (s->is_string()) m.size_text = s->get<std::string>();
    if (auto b = read_size(*s, r.path_of("size"), d)) {
      if (*b == 0) {
        d.add(r.path_of("size"), "a machine's memory size is more than zero (e.g. \"768GB\")");
      } else {
        m.size_bytes = *b;
      }
    }
  }
  r.finish();
  return m;
}

std::optional<MachineSpecPart> load_part(const Json& j, const std::string& path, Diagnostics& d) {
  ObjectReader r(j, path, d);
  if (!r.is_object()) return std::nullopt;
  MachineSpecPart p;
  p.model = r.string("model", true).value_or("");
  if (auto v = r.integer("count", false, 1, 4096)) p.count = static_cast<int>(*v);
  r.finish();
  return p;
}

std::optional<MachineSpecDrive> load_drive(const Json& j, const std::string& path, Diagnostics& d) {
  ObjectReader r(j, path, d);
  if (!r.is_object()) return std::nullopt;
  MachineSpecDrive v;
  v.model = r.string("model", false);
  if (auto gb = r.number("read_gb_s", false)) {
    if (!(*gb > 0 && *gb < 1000)) {
      d.add(r.path_of("read_gb_s"), "a drive's read rate in GB/s, more than 0 and below 1000");
    } else {
      v.read_bytes_s = *gb * 1e9;
    }
  }
  v.enclosure = r.string("enclosure", false);
  v.unrated = r.boolean("unrated", false).value_or(false);
  if (v.unrated && (r.has("read_gb_s") || !v.model)) {
    d.add(r.path_of("unrated"), "an unrated drive has a \"model\" and no \"read_gb_s\" (a drive with a measured rate is rated)");
  }
  if (auto c = r.integer("count", false, 1, 1024)) v.count = static_cast<int>(*c);
  if (!v.model && !r.has("read_gb_s")) {
    d.add(path, "a drive is named by \"model\" (a configs/specs/drives.json row) or by a measured \"read_gb_s\" "
                "(both: the measured rate wins): give one");
  }
  r.finish();
  return v;
}

}  // namespace

std::optional<MachineSpec> load_machine_spec(const Json& j, const std::string& path, Diagnostics& d) {
  ObjectReader r(j, path, d);
  if (!r.is_object()) return std::nullopt;
  const std::size_t before = d.issues().size();
  MachineSpec s;
  s.cpu = r.string("cpu", false).value_or("");
  if (auto v = r.integer("sockets", false, 1, 16)) s.sockets = static_cast<int>(*v);
  if (const Json* m = r.object("memory", false)) {
    if (auto mem = load_memory(*m, r.path_of("memory"), d)) s.memory = *mem;
  }
  if (const Json* g = r.array("gpus", false, false)) {
    for (std::size_t i = 0; i < g->size(); ++i) {
      if (auto p = load_part((*g)[i], json_pointer_append(r.path_of("gpus"), i), d)) s.gpus.push_back(*p);
    }
  }
  if (const Json* dr = r.array("drives", false, false)) {
    for (std::size_t i = 0; i < dr->size(); ++i) {
      if (auto p = load_drive((*dr)[i], json_pointer_append(r.path_of("drives"), i), d)) s.drives.push_back(*p);
    }
  }
  if (const Json* o = r.get("os", false)) {
    s.os = read_enum(*o, r.path_of("os"), d, {"linux", "macos", "windows", "android"}, "operating system");
  }
  r.finish();
  if (s.cpu.empty() && s.gpus.empty() && d.issues().size() == before) {
    d.add(path, "a machine spec names its \"cpu\" (or, for a GPU box whose host is not stated, its \"gpus\")");
  }
  if (d.issues().size() != before) return std::nullopt;
  return s;
}

bool is_machine_spec_document(const Json& j) {
  return j.is_object() &&
         (j.contains("machine_spec") || ((j.contains("cpu") || j.contains("gpus")) && !j.contains("memory_total")));
}

std::optional<MachineSpec> load_machine_spec_document(const Json& j, Diagnostics& d) {
  if (j.is_object() && j.contains("machine_spec")) {
    ObjectReader r(j, "", d);
    std::optional<MachineSpec> s;
    if (const Json* inner = r.object("machine_spec", true)) s = load_machine_spec(*inner, r.path_of("machine_spec"), d);
    r.finish();
    return d.ok() ? s : std::nullopt;
  }
  return load_machine_spec(j, "", d);
}

std::string describe_machine_spec(const MachineSpec& s) {
  std::string out = s.cpu.empty() ? std::string("host not stated")
                                  : (s.sockets > 1 ? std::to_string(s.sockets) + " × " : std::string()) + s.cpu;
  const MachineSpecMemory& m = s.memory;
  if (m.kind || m.mt_s || m.channels || m.dimms) {
    out += ", " + m.kind.value_or("memory") + (m.mt_s ? "-" + std::to_string(*m.mt_s) : std::string()) +
           (m.channels ? " × " + std::to_string(*m.channels) : std::string()) +
           (m.dimms ? " (" + std::to_string(*m.dimms) + " DIMMs)" : std::string());
  }
  out += ", " + (m.size_bytes == 0 ? std::string("memory size not stated")
                 : m.size_text.empty() ? format_bytes(static_cast<double>(m.size_bytes)) : m.size_text);
  for (const MachineSpecPart& g : s.gpus) out += ", " + (g.count > 1 ? std::to_string(g.count) + " × " : std::string()) + g.model;
  for (const MachineSpecDrive& dr : s.drives) {
    const std::string what = dr.model ? *dr.model : format_fixed(dr.read_bytes_s.value_or(0) / 1e9, 2) + " GB/s drive";
    out += ", " + (dr.count > 1 ? std::to_string(dr.count) + " × " : std::string()) + what +
           (dr.enclosure ? " in " + *dr.enclosure : std::string());
  }
  if (s.os) out += ", " + *s.os;
  return out;
}

nlohmann::ordered_json machine_spec_to_json(const MachineSpec& s) {
  nlohmann::ordered_json j;
  if (!s.cpu.empty()) j["cpu"] = s.cpu;
  if (s.sockets != 1) j["sockets"] = s.sockets;
  nlohmann::ordered_json m;
  if (s.memory.kind) m["kind"] = *s.memory.kind;
  if (s.memory.mt_s) m["mt_s"] = *s.memory.mt_s;
  if (s.memory.channels) m["channels"] = *s.memory.channels;
  if (s.memory.dimms) m["dimms"] = *s.memory.dimms;
  if (s.memory.size_bytes > 0) m["size"] = s.memory.size_text.empty() ? std::to_string(s.memory.size_bytes) : s.memory.size_text;
  j["memory"] = m;
  if (!s.gpus.empty()) {
    j["gpus"] = nlohmann::ordered_json::array();
    for (const MachineSpecPart& g : s.gpus) j["gpus"].push_back({{"model", g.model}, {"count", g.count}});
  }
  if (!s.drives.empty()) {
    j["drives"] = nlohmann::ordered_json::array();
    for (const MachineSpecDrive& dr : s.drives) {
      nlohmann::ordered_json x;
      if (dr.model) x["model"] = *dr.model;
      if (dr.read_bytes_s) x["read_gb_s"] = *dr.read_bytes_s / 1e9;
      if (dr.enclosure) x["enclosure"] = *dr.enclosure;
      if (dr.unrated) x["unrated"] = true;
      x["count"] = dr.count;
      j["drives"].push_back(x);
    }
  }
  if (s.os) j["os"] = *s.os;
  return j;
}

}  // namespace moebench
