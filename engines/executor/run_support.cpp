// run_support.cpp — see run_support.h.
#include "engines/executor/run_support.h"

#include "engines/registry.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engines/container/container_plan.h"
#include "engines/executor/memory_limits.h"
#include "vocab/file_io.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

Expected<ContainerSpec> container_spec_for(const Point& point, const RunContext& ctx, bool packed) {
  ContainerSpec s;
  s.card_name = point.model;
  s.card = ctx.card;
  s.scale = point.scale;
  s.quant = point.quant;
  s.seed = ctx.seed;
  s.drive_layout = point.drives.layout;
  s.packed = packed;
  s.rows8 = wants_rows8_experts(point.engine, point.quant);
  if (point.drives.count > static_cast<int>(ctx.drive_dirs.size())) {
    return make_error("the point needs " + std::to_string(point.drives.count) + " drive directories but the sweep lists " +
                      std::to_string(ctx.drive_dirs.size()) + " (drive_dirs)");
  }
  for (int d = 0; d < point.drives.count; ++d) s.drive_dirs.push_back(ctx.drive_dirs[static_cast<std::size_t>(d)]);
  return s;
}

Expected<std::vector<ContainerSpec>> container_specs_for_points(
    const std::vector<Point>& points, const std::function<Expected<ModelCard>(const std::string&)>& card,
    std::uint64_t seed, const std::vector<std::string>& drive_dirs) {
  std::vector<ContainerSpec> out;
  for (const Point& p : points) {
    // make=0: the engine never makes one; the files must be there already.
    if (!engine_flag(p.engine, "make", true)) continue;
    if (p.drives.count < 1 || p.drives.count > static_cast<int>(drive_dirs.size())) continue;
    auto c = card(p.model);
    if (!c) return c.error();
    auto scaled = point_card(*c, p);
    if (!scaled) return make_error(p.model + ": " + scaled.error().message);
    ContainerSpec s;
    s.card_name = p.model;
    s.card = std::move(*scaled);
    s.scale = p.scale;
    s.quant = p.quant;
    s.seed = seed;
    s.drive_layout = p.drives.layout;
    s.packed = engine_flag(p.engine, "packed", false);
    s.rows8 = wants_rows8_experts(p.engine, p.quant);
    for (int d = 0; d < p.drives.count; ++d) s.drive_dirs.push_back(drive_dirs[static_cast<std::size_t>(d)]);
    out.push_back(std::move(s));
  }
  return out;
}

Expected<ContainerUse> ensure_container(const Point& point, RunContext& ctx, bool packed) {
  auto spec = container_spec_for(point, ctx, packed);
  if (!spec) return spec.error();
  ContainerUse use;
  use.spec = std::move(*spec);
  auto files = make_container(use.spec, ctx.progress);
  if (!files) return files.error();
  use.trunk = std::move(files->trunk);
  use.files = std::move(files->experts);
  use.make_s = use.trunk.reused ? 0.0 : use.trunk.write_s;
  for (const ContainerFile& f : use.files) use.make_s += f.reused ? 0.0 : f.write_s;
  return use;
}

Expected<ContainerUse> existing_container(const Point& point, const RunContext& ctx, bool packed) {
  auto spec = container_spec_for(point, ctx, packed);
  if (!spec) return spec.error();
  ContainerUse use;
  use.spec = std::move(*spec);
  const ContainerSpec& s = use.spec;
  const std::string rows8 = s.rows8 ? " (with --rows8: this engine reads its experts in the 8-row layout unless "
                                      "kernels=float)" : "";
  auto found = [](const std::string& path, const std::string& what, const std::string& hint) -> Expected<std::uint64_t> {
    std::error_code ec;
    const std::uint64_t bytes = std::filesystem::file_size(path, ec);
    if (ec) {
      return make_error(what + " (" + path + "); run `moebench container make` for this card, scale, quant and "
                        "layout" + hint + ", or drop make=0");
    }
    return bytes;
  };
  use.trunk.path = trunk_file_path(s);
  use.trunk.part = ContainerPart::kTrunk;
  auto tb = found(use.trunk.path, "container missing on drive 0: no trunk file", rows8);
  if (!tb) return tb.error();
  use.trunk.bytes = *tb;
  for (int d = 0; d < static_cast<int>(s.drive_dirs.size()); ++d) {
    ContainerFile f;
    f.path = expert_file_path(s, d);
    f.drive = d;
    auto b = found(f.path, "container missing on drive " + std::to_string(d), rows8);
    if (!b) return b.error();
    f.bytes = *b;
    use.files.push_back(f);
  }
  return use;
}

Expected<GgufFile> open_trunk(const ContainerUse& use, const std::vector<const GgufFile*>& experts) {
  auto g = read_gguf(use.trunk.path);
  if (!g) return g.error();
  if (Status st = check_tensor_table(*g, use.spec, ContainerPart::kTrunk, 0); !st) return st.error();
  for (const GgufFile* e : experts) {
    if (Status st = check_trunk_pairing(*e, *g); !st) return st.error();
  }
  return g;
}

std::vector<std::string> container_notes(const ContainerUse& use) {
  std::vector<std::string> notes;
  notes.push_back("trunk from " + std::filesystem::path(use.trunk.path).filename().string() + " (" +
                  format_bytes(static_cast<double>(use.trunk.bytes)) +
                  ", one file shared by every quant of this card, scale and seed)");
  for (const ContainerFile& f : use.files) {
    if (!f.hard_link_of.empty()) {
      notes.push_back("drive " + std::to_string(f.drive) + "'s expert file is a hard link to drive 0's (the drive "
                      "directories share one filesystem: one device, one copy of the bytes)");
    }
  }
  return notes;
}

namespace {
std::optional<std::uint64_t> status_kib(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::size_t n = std::strlen(key);
  while (std::getline(in, line)) {
    if (line.compare(0, n, key) == 0) {
      std::istringstream is(line.substr(n));
      std::uint64_t kib = 0;
      if (is >> kib) return kib * 1024;
    }
  }
  return std::nullopt;
}
}  // namespace

std::uint64_t current_rss_bytes() { return status_kib("VmRSS:").value_or(0); }
std::uint64_t peak_rss_bytes() { return status_kib("VmHWM:").value_or(0); }

bool reset_peak_rss() {
  const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool wrote = ::write(fd, "5", 1) == 1;
  ::close(fd);
  return wrote;
}

std::optional<std::uint64_t> proc_read_bytes() {
  std::ifstream in("/proc/self/io");
  std::string key;
  std::uint64_t v = 0;
  while (in >> key >> v) {
    if (key == "read_bytes:") return v;
  }
  return std::nullopt;
}

std::uint64_t usable_memory_bytes() {
  // One definition with the machine probe (engines/executor/memory_limits.h).
  return usable_memory_bytes(read_memory_limits(), current_rss_bytes());
}

std::string drive_reads_bypass_reason(const Point& point, const RunContext& ctx) {
  const std::size_t n = std::min(ctx.drive_dirs.size(), static_cast<std::size_t>(std::max(0, point.drives.count)));
  for (std::size_t d = 0; d < n; ++d) {
    const std::string why = reads_bypass_drive(ctx.drive_dirs[d]);
    if (!why.empty()) return "drive " + std::to_string(d) + ": " + why;
  }
  return "";
}

Status run_tokens(Executor& ex, const Point& point, RunContext& ctx, std::size_t chunk,
                  const std::function<EngineCounters()>& counters, Measurement& m) {
  const std::int64_t prompt = std::max<std::int64_t>(1, point.prompt_tokens);
  const std::int64_t gen = std::max<std::int64_t>(1, point.gen_tokens);
  m.prompt_tokens = prompt;
  const EngineCounters before = counters();
  const std::uint64_t before_prefill = before.read_bytes;
  const std::vector<double> layers_at_start = ex.layer_s();
  const double head_at_start = ex.head_s();
  const double routed_p0 = ex.routed_phase_s();
  const std::optional<double> e0 = ctx.energy ? ctx.energy->joules() : std::nullopt;
  const double t0 = ctx.clock.now_s();
  for (std::int64_t done = 0; done < prompt;) {
    if (ctx.cancelled()) return make_error("cancelled during prefill");
    const std::size_t n = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(chunk), prompt - done));
    if (Status st = ex.forward(n); !st) return st;
    done += static_cast<std::int64_t>(n);
  }
  m.prefill_s = ctx.clock.now_s() - t0;
  m.token_times_s.push_back(m.prefill_s);
  m.routed_phase_s_prefill = ex.routed_phase_s() - routed_p0;
  const std::optional<double> e1 = ctx.energy ? ctx.energy->joules() : std::nullopt;
  if (e0 && e1) m.energy_j_prefill = *e1 - *e0;
  const EngineCounters c0 = counters();
  m.read_bytes_prefill = c0.read_bytes - before_prefill;
  m.io_wait_s_prefill = c0.io_wait_s - before.io_wait_s;
  m.expert_misses_prefill = c0.misses - before.misses;
  // Per-layer and head seconds of a window: the executor's running sums at
  // its end less those at its start.
  auto window = [&ex](const std::vector<double>& start, double head0, std::vector<double>& layers, std::optional<double>& head) {
    layers = ex.layer_s();
    for (std::size_t i = 0; i < layers.size() && i < start.size(); ++i) layers[i] -= start[i];
    head = ex.head_s() - head0;
  };
  window(layers_at_start, head_at_start, m.layer_s_prefill, m.head_s_prefill);
  const std::vector<double> layers_at_decode = ex.layer_s();
  const double head_at_decode = ex.head_s();
  // Reads from a drive directory in RAM (tmpfs) measure memory: the row is
  // invalid, and decoding further would only time RAM.
  if (m.read_bytes_prefill > 0) {
    if (std::string why = drive_reads_bypass_reason(point, ctx); !why.empty()) {
      m.status = RowStatus::kInvalid;
      m.reason = std::move(why);
      return Status::success();
    }
  }
  const auto proc0 = proc_read_bytes();
  const std::uint64_t w0 = ex.ops().weight_bytes_touched;
  const double routed0 = ex.routed_phase_s();
  const AttentionWork attn0 = ex.attention_work();
  for (std::int64_t t = 1; t < gen; ++t) {
    if (ctx.cancelled()) return make_error("cancelled during decode (token " + std::to_string(t + 1) + ")");
    if (Status st = ex.forward(1); !st) return st;
    m.token_times_s.push_back(ctx.clock.now_s() - t0);
  }
  if (e1 && ctx.energy) {
    if (const auto e2 = ctx.energy->joules()) m.energy_j_decode = *e2 - *e1;
  }
  const EngineCounters c1 = counters();
  const auto proc1 = proc_read_bytes();
  m.read_bytes_decode = c1.read_bytes - c0.read_bytes;
  if (proc0 && proc1) m.proc_read_bytes_decode = *proc1 - *proc0;
  m.mem_weight_bytes_decode = ex.ops().weight_bytes_touched - w0;
  m.expert_hits_decode = c1.hits - c0.hits;
  m.expert_misses_decode = c1.misses - c0.misses;
  m.expert_misses_hidden_decode = c1.misses_hidden - c0.misses_hidden;
  m.io_wait_s_decode = c1.io_wait_s - c0.io_wait_s;
  m.io_busy_s_decode = c1.io_busy_s - c0.io_busy_s;
  if (c0.trunk_read_bytes && c1.trunk_read_bytes) m.trunk_read_bytes_decode = *c1.trunk_read_bytes - *c0.trunk_read_bytes;
  m.routed_phase_s_decode = ex.routed_phase_s() - routed0;
  window(layers_at_decode, head_at_decode, m.layer_s_decode, m.head_s_decode);
  const AttentionWork attn1 = ex.attention_work();
  m.kv_positions_decode = attn1.kv_positions - attn0.kv_positions;
  m.kv_bytes_decode = attn1.kv_bytes - attn0.kv_bytes;
  if (m.read_bytes_prefill == 0 && m.read_bytes_decode > 0) {
    if (std::string why = drive_reads_bypass_reason(point, ctx); !why.empty()) {
      m.status = RowStatus::kInvalid;
      m.reason = std::move(why);
    }
  }
  const double decode_s = m.token_times_s.back() - m.token_times_s.front();
  if (decode_s > 0 && m.read_bytes_decode > 0) {
    m.notes.push_back("decode before routing (embedding, attention, routers, lm_head): " +
                      format_fixed(100 * (1 - m.routed_phase_s_decode / decode_s), 0) +
                      " % of decode time; expert reads cannot overlap it without a lookahead");
  }
  return Status::success();
}

}  // namespace moebench
