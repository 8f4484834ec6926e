// llama_bench.cpp — see llama_bench.h.
#include "engines/llamacpp/llama_bench.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "vocab/json_reader.h"
#include "vocab/units.h"

namespace moebench {

Expected<std::vector<LlamaBenchTest>> parse_llama_bench_json(std::string_view text, const std::string& label) {
  auto j = parse_json_text(text, label);
  if (!j) return j.error();
  Diagnostics d(label);
  if (!j->is_array()) {
    d.add("", "expected llama-bench's -o json output (an array of tests), got " + json_type_phrase(*j));
    return d.to_error();
  }
  if (j->empty()) {
    d.add("", "llama-bench reported no tests");
    return d.to_error();
  }
  std::vector<LlamaBenchTest> out;
  for (std::size_t i = 0; i < j->size(); ++i) {
    // llama-bench adds fields over versions: read the ones moebench uses,
    // leave the rest (no finish()).
    ObjectReader r((*j)[i], json_pointer_append("", i), d);
    if (!r.is_object()) continue;
    LlamaBenchTest t;
    t.build_commit = r.string("build_commit", true).value_or("");
    t.build_number = r.integer("build_number", true, 0).value_or(0);
    t.cpu_info = r.string("cpu_info", false).value_or("");
    t.model_type = r.string("model_type", true).value_or("");
    t.model_size = r.integer("model_size", true, 0).value_or(0);
    t.n_threads = r.integer("n_threads", true, 1).value_or(0);
    t.n_batch = r.integer("n_batch", false, 1).value_or(0);
    t.n_ubatch = r.integer("n_ubatch", false, 1).value_or(0);
    t.type_k = r.string("type_k", false).value_or("");
    t.type_v = r.string("type_v", false).value_or("");
    t.load_mode = r.string("load_mode", false).value_or("");
    t.n_prompt = r.integer("n_prompt", true, 0).value_or(0);
    t.n_gen = r.integer("n_gen", true, 0).value_or(0);
    t.n_depth = r.integer("n_depth", false, 0).value_or(0);
    const auto avg = r.number("avg_ts", true);
    t.avg_ts = avg.value_or(0);
    if (avg && !(*avg > 0)) d.add(r.path_of("avg_ts"), "a test's rate must be > 0 tokens/s");
    t.stddev_ts = r.number("stddev_ts", false).value_or(0);
    if (const Json* s = r.array("samples_ts", true, true)) {
      for (std::size_t k = 0; k < s->size(); ++k) {
        const auto v = read_number((*s)[k], json_pointer_append(r.path_of("samples_ts"), k), d);
        if (v && !(*v > 0)) d.add(json_pointer_append(r.path_of("samples_ts"), k), "a sample rate must be > 0 tokens/s");
        if (v) t.samples_ts.push_back(*v);
      }
    }
    if (t.n_prompt == 0 && t.n_gen == 0) d.add(r.path(), "a test with neither n_prompt nor n_gen");
    out.push_back(std::move(t));
  }
  if (!d.ok()) return d.to_error();
  return out;
}

std::string llama_build_label(const LlamaBenchTest& t) {
  if (t.build_number <= 0 && (t.build_commit.empty() || t.build_commit == "unknown")) return "llama.cpp (build unknown)";
  std::string s = "llama.cpp b" + std::to_string(t.build_number);
  if (!t.build_commit.empty() && t.build_commit != "unknown") s += " (" + t.build_commit + ")";
  return s;
}

std::vector<std::string> llama_bench_argv(const LlamaBenchRequest& r) {
  std::vector<std::string> a = {r.binary, "-m", r.model, "-t", std::to_string(r.threads), "-p",
                                std::to_string(r.prompt_tokens), "-n", std::to_string(r.gen_tokens), "-d",
                                std::to_string(r.depth), "-r", std::to_string(r.repetitions), "-ub",
                                std::to_string(r.ubatch), "-lm", r.load_mode, "-o", "json"};
  if (!r.warmup) a.push_back("--no-warmup");
  if (r.verbose) a.push_back("-v");
  return a;
}

Expected<Measurement> measurement_from_llama_bench(const std::vector<LlamaBenchTest>& tests, std::int64_t prompt,
                                                   std::int64_t gen, std::size_t rep) {
  const LlamaBenchTest* pp = nullptr;
  const LlamaBenchTest* tg = nullptr;
  for (const LlamaBenchTest& t : tests) {
    if (prompt > 0 && t.n_prompt == prompt && t.n_gen == 0) pp = &t;
    if (gen > 0 && t.n_gen == gen && t.n_prompt == 0) tg = &t;
  }
  if (prompt > 0 && pp == nullptr) {
    return make_error("llama-bench output has no prompt test of " + std::to_string(prompt) + " tokens (pp" +
                      std::to_string(prompt) + ")");
  }
  if (gen > 0 && tg == nullptr) {
    return make_error("llama-bench output has no generation test of " + std::to_string(gen) + " tokens (tg" +
                      std::to_string(gen) + ")");
  }
  auto rate = [rep](const LlamaBenchTest& t) { return rep < t.samples_ts.size() ? t.samples_ts[rep] : t.avg_ts; };
  Measurement m;
  m.prompt_tokens = prompt;
  m.prefill_s = pp ? static_cast<double>(prompt) / rate(*pp) : 0.0;
  if (tg) {
    const double step = 1.0 / rate(*tg);
    for (std::int64_t i = 0; i < gen; ++i) m.token_times_s.push_back(m.prefill_s + step * static_cast<double>(i + 1));
  }
  const LlamaBenchTest& any = pp ? *pp : *tg;
  m.notes.push_back(llama_build_label(any) + " llama-bench: " + std::to_string(any.n_threads) + " threads, ubatch " +
                    std::to_string(any.n_ubatch) + ", KV " + any.type_k + "/" + any.type_v + ", load " + any.load_mode +
                    ", depth " + std::to_string(any.n_depth) + ", model " + any.model_type + " (" +
                    std::to_string(any.model_size) + " bytes), CPU " + any.cpu_info);
  m.notes.push_back("windows rebuilt from llama-bench's separate tests: prefill = pp" + std::to_string(prompt) +
                    ", decode = tg" + std::to_string(gen) +
                    "; TTFT derived (prefill + one tg step): llama-bench does not time a first token");
  return m;
}

std::vector<LlamaBuffer> parse_llama_buffers(std::string_view log) {
  std::vector<LlamaBuffer> out;
  std::size_t pos = 0;
  while (pos < log.size()) {
    std::size_t end = log.find('\n', pos);
    if (end == std::string_view::npos) end = log.size();
    const std::string_view line = log.substr(pos, end - pos);
    pos = end + 1;
    // "<func>: <backend> <kind> buffer size = <MiB> MiB"
    const std::size_t at = line.find(" buffer size = ");
    if (at == std::string_view::npos) continue;
    const std::size_t colon = line.find(": ");
    if (colon == std::string_view::npos || colon > at) continue;
    std::istringstream words{std::string(line.substr(colon + 2, at - colon - 2))};
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.size() != 2 || (w[1] != "model" && w[1] != "KV" && w[1] != "compute")) continue;
    const std::string rest(line.substr(at + 15));
    char* stop = nullptr;
    const double mib = std::strtod(rest.c_str(), &stop);
    if (stop == rest.c_str() || !(mib >= 0) || std::string_view(stop).find("MiB") == std::string_view::npos) continue;
    const auto bytes = static_cast<std::uint64_t>(mib * 1048576.0 + 0.5);
    auto same = std::find_if(out.begin(), out.end(), [&](const LlamaBuffer& b) { return b.kind == w[1] && b.backend == w[0]; });
    if (same == out.end()) {
      out.push_back({w[1], w[0], bytes});
    } else {
      same->bytes = std::max(same->bytes, bytes);
    }
  }
  return out;
}

LlamaMemory llama_memory(const std::vector<LlamaBuffer>& buffers) {
  LlamaMemory m;
  for (const LlamaBuffer& b : buffers) {
    if (b.kind != "model") {
      m.working += b.bytes;
    } else if (b.backend == "CPU_Mapped") {
      m.mapped_weights += b.bytes;
    } else {
      m.copied_weights += b.bytes;
      m.copied_backends += (m.copied_backends.empty() ? "" : ", ") + b.backend;
    }
  }
  return m;
}

std::string explain_llama_kill(const LlamaMemory& mem, std::uint64_t limit, std::optional<std::uint64_t> peak,
                               std::optional<std::uint64_t> oom_kills) {
  std::string s = oom_kills && *oom_kills > 0 ? "killed by the kernel's OOM killer inside its memory cgroup"
                  : oom_kills ? "killed while its memory cgroup recorded no OOM kill (another signal sender?)"
                              : "killed (the cgroup's OOM count is not readable)";
  s += " (limit " + format_bytes(static_cast<double>(limit));
  if (peak) s += ", peak charged " + format_bytes(static_cast<double>(*peak));
  s += ")";
  const std::uint64_t anon = mem.copied_weights + mem.working;
  if (mem.copied_weights > 0) {
    s += ": this build copied " + format_bytes(static_cast<double>(mem.copied_weights)) + " of weights into " +
         mem.copied_backends + " buffers (repacked at load), anonymous memory that cannot be paged back to the "
         "GGUF without swap, so mmap does not let the model exceed the limit; build llama.cpp with "
         "-DGGML_CPU_REPACK=OFF (and no AMX), or pick a quant x86 does not repack (q8_0, q5_k, q6_k), to page "
         "from the mmap";
  } else if (mem.mapped_weights == 0 && mem.working == 0) {
    s += ": llama.cpp reported no buffers before the kill (run with its -v log to see them)";
  } else if (anon >= limit) {
    s += ": its anonymous memory (KV cache and compute buffers, " + format_bytes(static_cast<double>(mem.working)) +
         ") alone exceeds the limit";
  } else {
    s += ": weights stayed in the mmap (" + format_bytes(static_cast<double>(mem.mapped_weights)) +
         "); anonymous memory " + format_bytes(static_cast<double>(anon)) + " left too little page cache to run in";
  }
  return s;
}

std::optional<std::string> llama_build_flags(const std::string& binary) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path bin = fs::weakly_canonical(fs::path(binary), ec);
  if (ec) return std::nullopt;
  for (fs::path dir = bin.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    const fs::path cache = dir / "CMakeCache.txt";
    if (fs::exists(cache, ec)) {
      std::ifstream in(cache);
      std::map<std::string, std::string> want;
      for (std::string line; std::getline(in, line);) {
        const auto colon = line.find(':'), eq = line.find('=');
        if (colon == std::string::npos || eq == std::string::npos || colon > eq) continue;
        const std::string key = line.substr(0, colon);
        if (key == "CMAKE_BUILD_TYPE" || (key.rfind("GGML_", 0) == 0 && (key.find("AVX") != std::string::npos ||
                                                                       key == "GGML_NATIVE" || key == "GGML_FMA" ||
                                                                       key == "GGML_F16C" || key == "GGML_BMI2" ||
                                                                       key == "GGML_OPENMP" ||
                                                                       key == "GGML_CPU_REPACK"))) {
          want[key] = line.substr(eq + 1);
        }
      }
      std::string s = want.count("CMAKE_BUILD_TYPE") ? want["CMAKE_BUILD_TYPE"] : "build type unset";
      for (const auto& [k, v] : want) {
        if (k != "CMAKE_BUILD_TYPE" && (v == "ON" || k == "GGML_NATIVE" || k == "GGML_CPU_REPACK")) s += ", " + k + "=" + v;
      }
      return s + " (" + cache.string() + ")";
    }
    if (dir == dir.root_path() || dir.parent_path() == dir) break;
    if (dir.filename() != "bin" && dir.filename() != "build" && !fs::exists(dir / "bin", ec)) break;
  }
  return std::nullopt;
}

}  // namespace moebench
