// fio_adapter.cpp — see fio_adapter.h. POSIX only (posix_spawn, waitpid).
//
// Safety: the probe only ever reads. fio lays out (creates, extends, even
// truncates and rewrites) a job's file when it is missing or shorter than
// `size`, and creates missing directories, so every job carries
// allow_file_create=0, fio runs with --readonly, and run_fio refuses a
// missing directory or a regular file shorter than file_bytes before
// starting fio. fio forks worker processes, so it runs in its own
// process group and a timeout kills the whole group. The job file and fio's
// stdout/stderr stay in scratch_dir (fio-<pid>-<n>.*) as evidence.
#include "probes/fio_adapter.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "vocab/file_io.h"
#include "vocab/json_reader.h"
#include "vocab/subprocess.h"
#include "vocab/text.h"


namespace moebench {
namespace {

constexpr std::uint64_t kDirectAlignBytes = 4096;
constexpr std::size_t kStderrTailLines = 20;
const std::vector<std::string> kIoEngines = {"io_uring", "libaio", "psync"};

// The run length rounded up to whole seconds, at least 1 (NaN and negatives
// become 1): what the timeout is counted from.
long long job_runtime_s(double runtime_s) {
  if (!(runtime_s > 1)) return 1;
  if (runtime_s > 86400.0 * 365) return 86400LL * 365;
  return static_cast<long long>(std::ceil(runtime_s));
}

// fio's runtime= value: whole seconds as "3", anything shorter or between as
// milliseconds ("400ms", fio's time suffix), rounded up, at least 100 ms
// (the probe's repeated pairs run sub-second cells).
constexpr long long kMinRuntimeMs = 100;
std::string job_runtime_text(double runtime_s) {
  if (runtime_s >= 1 && runtime_s == std::floor(runtime_s)) return std::to_string(job_runtime_s(runtime_s));
  if (!(runtime_s > 0)) return std::to_string(kMinRuntimeMs) + "ms";
  if (runtime_s > 86400.0 * 365) return std::to_string(job_runtime_s(runtime_s));
  const long long ms = static_cast<long long>(std::ceil(runtime_s * 1000.0 - 1e-6));
  return std::to_string(std::max(kMinRuntimeMs, ms)) + "ms";
}

// fio treats ':' in filename= as a separator between files; escape it.
std::string fio_escape_filename(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == ':') out += '\\';
    out += c;
  }
  return out;
}

// ---- JSON field access: each error names the label and the JSON path. ----

const char* const kNotFioHint =
    " (is this the output of `fio --output-format=json` from fio 3.x? Check fio's stderr)";

Error field_error(const std::string& label, const std::string& path, const std::string& what) {
  return make_error(label + ": " + (path.empty() ? std::string("(root)") : path) + ": " + what);
}

Expected<const Json*> child(const Json& parent, const std::string& parent_path,
                            const std::string& key, const std::string& label) {
  if (!parent.is_object()) {
    return field_error(label, parent_path,
                       "expected an object, got " + json_type_phrase(parent) + kNotFioHint);
  }
  const auto it = parent.find(key);
  if (it == parent.end()) {
    return field_error(label, json_pointer_append(parent_path, key),
                       std::string("missing from fio's JSON output") + kNotFioHint);
  }
  return &*it;
}

Expected<const Json*> object_at(const Json& parent, const std::string& parent_path,
                                const std::string& key, const std::string& label) {
  auto c = child(parent, parent_path, key, label);
  if (!c) return c.error();
  if (!(*c)->is_object()) {
    return field_error(label, json_pointer_append(parent_path, key),
                       "expected an object, got " + json_type_phrase(**c) + kNotFioHint);
  }
  return *c;
}

Expected<double> number_at(const Json& parent, const std::string& parent_path,
                           const std::string& key, const std::string& label) {
  auto c = child(parent, parent_path, key, label);
  if (!c) return c.error();
  if (!(*c)->is_number()) {
    return field_error(label, json_pointer_append(parent_path, key),
                       "expected a number, got " + json_type_phrase(**c) + kNotFioHint);
  }
  const double v = (*c)->get<double>();
  if (!std::isfinite(v) || v < 0) {
    return field_error(label, json_pointer_append(parent_path, key),
                       "expected a finite, non-negative number, got " + (*c)->dump());
  }
  return v;
}

Expected<std::uint64_t> unsigned_at(const Json& parent, const std::string& parent_path,
                                    const std::string& key, const std::string& label) {
  auto c = child(parent, parent_path, key, label);
  if (!c) return c.error();
  const Json& v = **c;
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) {
    return static_cast<std::uint64_t>(v.get<std::int64_t>());
  }
  return field_error(label, json_pointer_append(parent_path, key),
                     "expected a non-negative integer, got " + json_type_phrase(v) + kNotFioHint);
}

// Where fio's JSON object starts: the first '{' at the start of a line (fio
// may print warnings such as "fio: cache invalidation of ... failed" to
// stdout first), else the first '{' anywhere.
std::size_t json_start(const std::string& text) {
  for (std::size_t pos = text.find('{'); pos != std::string::npos; pos = text.find('{', pos + 1)) {
    if (pos == 0 || text[pos - 1] == '\n') return pos;
  }
  return text.find('{');
}

std::string first_line_excerpt(const std::string& text) {
  std::string line(trim(std::string_view(text)).substr(0, 120));
  const auto nl = line.find('\n');
  if (nl != std::string::npos) line.resize(nl);
  return line;
}

// ---- Running fio. ----

// The last lines of a file, indented, or a note that it is empty/unreadable.
std::string tail_of(const std::string& path) {
  auto text = read_file(path);
  if (!text) return "    (could not read " + path + ")";
  const std::string_view body = trim(std::string_view(*text));
  if (body.empty()) return "    (fio's stderr was empty)";
  std::vector<std::string> lines = split(body, '\n');
  if (lines.size() > kStderrTailLines) {
    lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(kStderrTailLines));
  }
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i) out += '\n';
    std::string line = lines[i];
    if (line.size() > 300) line = line.substr(0, 297) + "...";
    out += "    " + line;
  }
  return out;
}

// fio prints some errors to stdout before its JSON ("fio: pid=..., err=2/...,
// error=No such file or directory") and others to stderr; show both.
std::string fio_messages(const std::string& stdout_text, const std::string& stderr_path) {
  std::string out;
  const std::size_t start = json_start(stdout_text);
  const std::string_view before =
      trim(std::string_view(stdout_text).substr(0, start == std::string::npos ? stdout_text.size() : start));
  if (!before.empty()) {
    std::vector<std::string> lines = split(before, '\n');
    if (lines.size() > kStderrTailLines) lines.resize(kStderrTailLines);
    out += "\n  fio messages on stdout (before its JSON):";
    for (std::string& line : lines) {
      if (line.size() > 300) line = line.substr(0, 297) + "...";
      out += "\n    " + line;
    }
  }
  return out + "\n  fio stderr (last lines):\n" + tail_of(stderr_path);
}

Status check_cell(const std::string& fio_path, const FioCell& cell) {
  if (fio_path.empty()) {
    return make_error("fio: no fio binary given; install fio (e.g. `apt install fio`) so that it "
                      "is on PATH, or pass its path");
  }
  if (cell.file_path.empty()) return make_error("fio cell: file_path is empty; give the test file");
  if (cell.file_path.find('\n') != std::string::npos) {
    return make_error("fio cell: file_path contains a newline, which a fio job file cannot hold: \"" +
                      cell.file_path + "\"");
  }
  if (cell.block_bytes == 0) return make_error("fio cell: block_bytes is 0; give a block size");
  if (cell.direct && cell.block_bytes % kDirectAlignBytes != 0) {
    return make_error("fio cell: block_bytes " + std::to_string(cell.block_bytes) +
                      " is not a multiple of 4096, which O_DIRECT needs (e.g. 17547264 = "
                      "4284 x 4096); round it or set direct=false");
  }
  if (cell.file_bytes != 0 && cell.file_bytes < cell.block_bytes) {
    return make_error("fio cell: file_bytes " + std::to_string(cell.file_bytes) +
                      " is smaller than one block (" + std::to_string(cell.block_bytes) +
                      " bytes); use a larger test file or a smaller block");
  }
  if (cell.queue_depth < 1 || cell.queue_depth > 65536) {
    return make_error("fio cell: queue_depth " + std::to_string(cell.queue_depth) +
                      " is out of range; use 1..65536");
  }
  if (!(cell.runtime_s > 0) || !std::isfinite(cell.runtime_s)) {
    return make_error("fio cell: runtime_s " + format_fixed(cell.runtime_s, 3) +
                      " is not a positive number of seconds");
  }
  bool known_engine = false;
  for (const std::string& e : kIoEngines) known_engine = known_engine || e == cell.ioengine;
  if (!known_engine) {
    return make_error("fio cell: ioengine \"" + cell.ioengine + "\" is not one of io_uring, " +
                      "libaio, psync" + did_you_mean(cell.ioengine, kIoEngines));
  }
  // fio creates missing parent directories even with --readonly; a missing
  // file in an existing directory it reports itself (the job forbids creating
  // it), and a short file it would try to extend.
  const std::filesystem::path parent = std::filesystem::path(cell.file_path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
    return make_error(cell.file_path + ": the directory " + parent.string() +
                      " does not exist; create and write the test file first (fio would create "
                      "the directory)");
  }
  struct stat st {};
  if (cell.file_bytes != 0 && ::stat(cell.file_path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<std::uint64_t>(st.st_size) < cell.file_bytes) {
    return make_error(cell.file_path + ": the test file has " + std::to_string(st.st_size) +
                      " bytes but the fio cell reads " + std::to_string(cell.file_bytes) +
                      "; write the whole test file first (fio would otherwise try to extend it)");
  }
  return Status::success();
}

}  // namespace

std::string fio_job_text(const FioCell& cell) {
  std::string t;
  t += "; moebench fio cell: read-only, one job, time based (generated; do not edit)\n";
  t += "[moebench]\n";
  t += "filename=" + fio_escape_filename(cell.file_path) + "\n";
  t += std::string("rw=") + (cell.random ? "randread" : "read") + "\n";
  t += "bs=" + std::to_string(cell.block_bytes) + "\n";
  t += "iodepth=" + std::to_string(cell.queue_depth < 1 ? 1 : cell.queue_depth) + "\n";
  t += "ioengine=" + cell.ioengine + "\n";
  t += std::string("direct=") + (cell.direct ? "1" : "0") + "\n";
  if (cell.fixed_buffers && cell.ioengine == "io_uring") t += "fixedbufs=1\n";
  t += "time_based=1\n";
  t += "runtime=" + job_runtime_text(cell.runtime_s) + "\n";
  // size=0 is not valid fio; without size= fio reads the whole file.
  if (cell.file_offset != 0) t += "offset=" + std::to_string(cell.file_offset) + "\n";
  const int jobs = std::max(1, cell.jobs);
  if (jobs > 1 && !cell.random && cell.file_bytes != 0) {
    // Each sequential job walks its own 1/jobs of the region.
    const std::uint64_t share = cell.file_bytes / static_cast<std::uint64_t>(jobs) / 4096 * 4096;
    t += "size=" + std::to_string(share) + "\n";
    t += "offset_increment=" + std::to_string(share) + "\n";
  } else if (cell.file_bytes != 0) {
    t += "size=" + std::to_string(cell.file_bytes) + "\n";
  }
  t += "numjobs=" + std::to_string(jobs) + "\n";
  t += "group_reporting\n";
  t += "norandommap=1\n";
  t += "randrepeat=0\n";
  t += "invalidate=1\n";
  t += "allow_file_create=0\n";
  return t;
}

namespace {

// fio's JSON object from its output: leading warnings blanked out (their
// newlines kept, so a syntax error's line:column points into the original
// output) and text after the last '}' ignored.
Expected<Json> fio_json_root(const std::string& json_text, const std::string& label) {
  if (trim(std::string_view(json_text)).empty()) {
    return make_error(label + ": fio's output is empty; fio printed no JSON (did it start? "
                      "check its stderr and that it was run with --output-format=json)");
  }
  const std::size_t start = json_start(json_text);
  if (start == std::string::npos) {
    return make_error(label + ": no JSON object in fio's output (it begins \"" + first_line_excerpt(json_text) +
                      "\"); run fio with --output-format=json and check its stderr");
  }
  const std::size_t last_brace = json_text.rfind('}');
  std::string body =
      (last_brace == std::string::npos || last_brace < start) ? json_text : json_text.substr(0, last_brace + 1);
  for (std::size_t i = 0; i < start; ++i) {
    if (body[i] != '\n') body[i] = ' ';
  }
  auto parsed = parse_json_text(body, label);
  if (!parsed) {
    return make_error(parsed.error().message + " (fio's JSON output is incomplete or damaged; was fio killed? rerun it)");
  }
  if (!parsed->is_object()) return field_error(label, "", "expected fio's JSON object, got " + json_type_phrase(*parsed));
  return std::move(*parsed);
}

// The first job, which must have run without an error (the error named
// with its meaning).
Expected<const Json*> first_job(const Json& root, const std::string& label) {
  auto jobs = child(root, "", "jobs", label);
  if (!jobs) return jobs.error();
  if (!(*jobs)->is_array()) {
    return field_error(label, "/jobs", "expected an array, got " + json_type_phrase(**jobs) + kNotFioHint);
  }
  if ((*jobs)->empty()) {
    return field_error(label, "/jobs",
                       "fio reported no jobs; the job file defined none or fio dropped it (see fio's "
                       "stderr, e.g. \"Bad option\")");
  }
  const Json& job = (**jobs)[0];
  const std::string job_path = "/jobs/0";
  if (!job.is_object()) return field_error(label, job_path, "expected an object, got " + json_type_phrase(job));
  auto job_error = child(job, job_path, "error", label);
  if (!job_error) return job_error.error();
  if (!(*job_error)->is_number_integer()) {
    return field_error(label, job_path + "/error", "expected an integer, got " + json_type_phrase(**job_error));
  }
  const std::int64_t err = (*job_error)->get<std::int64_t>();
  if (err == 0) return &job;
  std::string name;
  if (auto it = job.find("jobname"); it != job.end() && it->is_string()) name = it->get<std::string>();
  const std::string meaning = (err > 0 && err < 4096) ? " (" + std::string(std::strerror(static_cast<int>(err))) + ")" : "";
  return field_error(label, job_path + "/error",
                     "fio job \"" + name + "\" failed with error " + std::to_string(err) + meaning +
                         "; its figures are not valid — check the file path, permissions, block "
                         "size and ioengine, and fio's stderr");
}

// The completion-latency percentiles of a read: their absence explained
// (no read completed, or not fio's output).
Status read_latency(const Json& rd, const std::string& read_path, const std::string& label, FioResult& r) {
  const std::string clat_path = read_path + "/clat_ns";
  auto clat = object_at(rd, read_path, "clat_ns", label);
  if (!clat) return clat.error();
  auto mean = number_at(**clat, clat_path, "mean", label);
  if (!mean) return mean.error();
  const std::string pct_path = clat_path + "/percentile";
  if ((*clat)->find("percentile") == (*clat)->end()) {
    std::string why = std::string("missing from fio's JSON output") + kNotFioHint;
    if (auto n = (*clat)->find("N"); n != (*clat)->end() && n->is_number() && n->get<double>() == 0) {
      why = "missing because no read completed (" + clat_path +
            "/N is 0): the job did no I/O — check the file path and size, and fio's stderr";
    }
    return field_error(label, pct_path, why);
  }
  auto pct = object_at(**clat, clat_path, "percentile", label);
  if (!pct) return pct.error();
  auto p50 = number_at(**pct, pct_path, "50.000000", label);
  if (!p50) return p50.error();
  auto p99 = number_at(**pct, pct_path, "99.000000", label);
  if (!p99) return p99.error();
  r.clat_mean_ns = *mean;
  r.clat_p50_ns = *p50;
  r.clat_p99_ns = *p99;
  return Status::success();
}

}  // namespace

Expected<FioResult> parse_fio_json(const std::string& json_text, const std::string& label) {
  auto root = fio_json_root(json_text, label);
  if (!root) return root.error();
  FioResult r;
  auto version = child(*root, "", "fio version", label);
  if (!version) return version.error();
  if (!(*version)->is_string()) {
    return field_error(label, "/fio version", "expected a string, got " + json_type_phrase(**version));
  }
  r.fio_version = (*version)->get<std::string>();
  auto job = first_job(*root, label);
  if (!job) return job.error();
  const std::string read_path = "/jobs/0/read";
  auto read = object_at(**job, "/jobs/0", "read", label);
  if (!read) return read.error();
  const Json& rd = **read;
  auto bw = number_at(rd, read_path, "bw_bytes", label);
  if (!bw) return bw.error();
  auto iops = number_at(rd, read_path, "iops", label);
  if (!iops) return iops.error();
  auto io_bytes = unsigned_at(rd, read_path, "io_bytes", label);
  if (!io_bytes) return io_bytes.error();
  auto runtime_ms = number_at(rd, read_path, "runtime", label);
  if (!runtime_ms) return runtime_ms.error();
  if (Status st = read_latency(rd, read_path, label, r); !st) return st.error();
  r.read_bytes_s = *bw;
  r.iops = *iops;
  r.io_bytes = *io_bytes;
  r.runtime_s = *runtime_ms / 1000.0;
  if (auto t = rd.find("total_ios"); t != rd.end() && t->is_number_unsigned()) r.total_ios = t->get<std::uint64_t>();
  return r;
}

std::optional<std::string> find_fio() {
  const char* env = std::getenv("PATH");
  const std::string path = (env && *env) ? env : "/usr/local/bin:/usr/bin:/bin";
  for (const std::string& dir : split(path, ':')) {
    if (dir.empty()) continue;  // "" means the current directory; never pick fio from there
    const std::string candidate = dir + (dir.back() == '/' ? "" : "/") + "fio";
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return std::nullopt;
}

namespace {

// Writes `job_text` into `scratch_dir`, runs fio on it (killed after
// `timeout_s`, `runtime_note` saying why that long), parses its output.
Expected<FioResult> run_fio_job(const std::string& fio_path, const std::string& job_text, double timeout_s,
                                const std::string& runtime_note, const std::string& scratch_dir) {
  if (Status st = ensure_directory(scratch_dir); !st) return st.error();
  static std::atomic<unsigned> counter{0};
  const std::string stem = scratch_dir + "/fio-" + std::to_string(::getpid()) + "-" +
                           std::to_string(counter.fetch_add(1));
  const std::string job_path = stem + ".fio";
  ProcessOptions po;
  po.stdout_path = stem + ".stdout.json";  // kept beside the job file as evidence
  po.stderr_path = stem + ".stderr.txt";
  po.scratch_dir = scratch_dir;
  po.timeout_s = timeout_s;
  if (Status st = write_file_atomic(job_path, job_text); !st) return st.error();

  const std::vector<std::string> argv = {fio_path, "--readonly", "--output-format=json", job_path};
  const std::string cmd = command_line(argv);
  auto proc = run_process(argv, po);
  if (!proc) {
    return make_error(proc.error().message + " (install fio or fix its path)");
  }
  if (proc->timed_out) {
    return make_error("fio did not finish within " + format_fixed(po.timeout_s, 0) + " s (" + runtime_note +
                      "); killed it with SIGKILL. The storage may be hung or far slower "
                      "than expected (check dmesg).\n  command: " + cmd +
                      fio_messages(proc->out, po.stderr_path));
  }
  const std::string& out_text = proc->out;
  const std::string messages = fio_messages(out_text, po.stderr_path);
  if (proc->exit_code != 0) {
    // fio's JSON often still names the failure (jobs[0].error), e.g. ENOENT.
    std::string detail;
    if (auto parsed = parse_fio_json(out_text, po.stdout_path); !parsed) {
      detail = "\n  " + parsed.error().message;
    }
    return make_error("fio " + proc->describe() + "; its figures are not used." + detail + "\n  command: " + cmd +
                      messages);
  }
  auto result = parse_fio_json(out_text, po.stdout_path);
  if (!result) return make_error(result.error().message + "\n  command: " + cmd + messages);
  return result;
}

}  // namespace

Expected<FioResult> run_fio(const std::string& fio_path, const FioCell& cell, const std::string& scratch_dir) {
  if (Status st = check_cell(fio_path, cell); !st) return st.error();
  return run_fio_job(fio_path, fio_job_text(cell), static_cast<double>(job_runtime_s(cell.runtime_s)) + cell.kill_slack_s,
                     "runtime " + std::to_string(job_runtime_s(cell.runtime_s)) + " s + " + format_fixed(cell.kill_slack_s, 0) + " s",
                     scratch_dir);
}

std::string fio_replay_job_text(const FioReplay& replay) {
  std::string t;
  t += "; moebench fio replay: the reads of an iolog, in order, read-only (generated; do not edit)\n";
  t += "[replay]\n";
  t += "read_iolog=" + fio_escape_filename(replay.iolog_path) + "\n";
  t += "replay_no_stall=1\n";  // as fast as the depth allows, not at recorded times
  t += "iodepth=" + std::to_string(std::max(1, replay.queue_depth)) + "\n";
  t += "ioengine=" + replay.ioengine + "\n";
  t += "direct=1\n";
  if (replay.fixed_buffers && replay.ioengine == "io_uring") t += "fixedbufs=1\n";
  if (replay.batch_submit > 1) t += "iodepth_batch_submit=" + std::to_string(replay.batch_submit) + "\n";
  t += "invalidate=1\n";
  return t;
}

std::string fio_replay_label(const FioReplay& replay) {
  return replay.ioengine + (replay.fixed_buffers && replay.ioengine == "io_uring" ? " fixedbufs" : "") + " QD" +
         std::to_string(replay.queue_depth) + (replay.batch_submit > 1 ? " batch " + std::to_string(replay.batch_submit) : "");
}

Expected<FioResult> run_fio_replay(const std::string& fio_path, const FioReplay& replay, const std::string& scratch_dir) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(replay.iolog_path, ec)) {
    return make_error("fio replay: no iolog file at " + replay.iolog_path +
                      " (the streaming engine writes one with read_log=PATH; engines/io/expert_io.h fio_read_iolog)");
  }
  return run_fio_job(fio_path, fio_replay_job_text(replay), replay.timeout_s,
                     "the replay's limit, " + format_fixed(replay.timeout_s, 0) + " s", scratch_dir);
}

Expected<double> run_fio_seq_write(const std::string& fio_path, const std::string& dir, std::uint64_t bytes,
                                   std::uint64_t block_bytes, int queue_depth) {
  static std::atomic<unsigned> counter{0};
  const std::string stem = dir + "/fio-write-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
  const std::vector<std::string> argv = {fio_path, "--name=seqwrite", "--filename=" + stem + ".tmp", "--rw=write",
                                         "--bs=" + std::to_string(block_bytes), "--size=" + std::to_string(bytes),
                                         "--direct=1", "--ioengine=io_uring", "--iodepth=" + std::to_string(queue_depth),
                                         "--end_fsync=1", "--output-format=json"};
  ProcessOptions po;
  po.stderr_path = stem + ".stderr.txt";
  po.scratch_dir = dir;
  po.timeout_s = 600;
  auto proc = run_process(argv, po);
  std::error_code ec;
  std::filesystem::remove(stem + ".tmp", ec);
  const std::string messages = fio_messages(proc ? proc->out : std::string(), po.stderr_path);
  std::filesystem::remove(po.stderr_path, ec);
  if (!proc) return make_error(proc.error().message + " (install fio or fix its path)");
  if (proc->timed_out || proc->exit_code != 0) {
    return make_error("fio sequential write " + proc->describe() + "\n  command: " + command_line(argv) + messages);
  }
  try {
    const Json j = Json::parse(proc->out);
    return j.at("jobs").at(0).at("write").at("bw_bytes").get<double>();
  } catch (const std::exception& e) {
    return make_error("fio sequential write: cannot read jobs[0].write.bw_bytes from its JSON (" + std::string(e.what()) +
                      ")");
  }
}

}  // namespace moebench
