// cmd_container.cpp — `moebench container`: GGUF containers. `make` writes
// (or reuses) a container's trunk file and expert files; `verify` rechecks
// either kind; `inspect` prints the header of any GGUF file (moebench's or
// llama.cpp's): version, alignment, which part of a moebench container it is,
// every metadata entry with its type, and the tensor table.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "engines/container/container.h"
#include "engines/container/gguf.h"
#include "engines/container/gguf_inspect.h"
#include "engines/quant/kernels_q8.h"
#include "cli/commands.h"
#include "harness/terminal_progress.h"
#include "vocab/text.h"
#include "vocab/units.h"
#include "probes/fio_adapter.h"

namespace moebench {
namespace {

struct MakeArgs {
  std::string model;
  std::string scale;
  std::string quant;
  std::vector<std::string> drives;
  std::string layout = "replicate";
  bool packed = false;
  bool rows8 = false;
  std::string quantizer = "fast";
  bool fio_baseline = false;
  std::uint64_t seed = 42;
  bool quiet = false;
};

Expected<int> make_command(const MakeArgs& a, const CliState& state) {
  auto sc = state.scaled_card(a.model, a.scale);
  if (!sc) return fail(sc.error().message);
  ContainerSpec spec;
  spec.card_name = sc->card.name;
  spec.card = sc->scaled;
  spec.scale = sc->scale;
  spec.quant = a.quant.empty() ? sc->card.expert_quant : a.quant;
  spec.seed = a.seed;
  spec.drive_dirs = a.drives;
  spec.drive_layout = a.layout;
  spec.packed = a.packed;
  spec.rows8 = a.rows8;
  if (spec.rows8 && !has_rows8_layout(spec.quant, kRows8, 256)) {
    return fail("--rows8: " + spec.quant + " has no 8-row layout (q4_0, q8_0, mxfp4 and q4_k have)");
  }
  spec.quantizer = a.quantizer;
  SteadyClock clock;
  StderrProgress shown(clock, a.quiet);
  Progress& progress = shown.get();
  progress.sweep_started(1, 0);
  progress.point_started(1, "container make");
  auto files = make_container(spec, progress);
  progress.sweep_finished();
  if (!files) return fail(files.error().message);
  std::vector<ContainerFile> all = {files->trunk};
  all.insert(all.end(), files->experts.begin(), files->experts.end());
  for (const ContainerFile& f : all) {
    const bool trunk = f.part == ContainerPart::kTrunk;
    const std::string how =
        f.reused ? (trunk ? "trunk, reused (same card, scale, trunk quant and seed: shared by every quant)"
                          : "experts, reused (same card, scale, quant, seed and layout)")
        : !f.hard_link_of.empty() ? "experts, hard link to " + f.hard_link_of + " (one filesystem: no second copy)"
                                  : std::string(trunk ? "trunk" : "experts") + ", written in " +
                                        format_duration_s(f.write_s) + " (" +
                                        format_rate(static_cast<double>(f.bytes) / std::max(f.write_s, 1e-9)) + ")";
    fmt::print("{}  {}  {}\n", f.path, format_bytes(static_cast<double>(f.bytes)), how);
  }
  if (a.fio_baseline) {
    // fio's sequential write in the same run, same pattern as our writer
    // (16 MiB blocks, 4 in flight, O_DIRECT), half the first written file's size.
    const ContainerFile& f = files->trunk.reused ? files->experts.front() : files->trunk;
    if (f.reused || f.write_s <= 0) return fail("--fio-baseline: the file was reused, nothing was written to compare");
    auto fio = find_fio();
    if (!fio) return fail("--fio-baseline: fio is not on PATH (apt install fio)");
    const std::uint64_t bytes = std::max<std::uint64_t>(1ull << 30, f.bytes / 2 / (16u << 20) * (16u << 20));
    auto bw = run_fio_seq_write(*fio, spec.drive_dirs.front(), bytes, 16u << 20, 4);
    if (!bw) return fail("--fio-baseline: " + bw.error().message);
    const double ours = static_cast<double>(f.bytes) / f.write_s;
    fmt::print("fio sequential write (16 MiB blocks, QD 4, O_DIRECT, {}, same drive, just now): {}; container make "
               "wrote at {} = {:.0f} % of it\n",
               format_bytes(static_cast<double>(bytes)), format_rate(*bw), format_rate(ours),
               100.0 * ours / *bw);
  }
  return 0;
}

}  // namespace

void add_container_command(CLI::App& app, CliState& state) {
  CLI::App* cmd = app.add_subcommand("container", "GGUF containers: make, verify, inspect.");
  cmd->require_subcommand(1);
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* inspect = cmd->add_subcommand("inspect", "Print a GGUF file's header, metadata and tensor table.");
  inspect->footer(
      "Reads only the header (no tensor data), checking every count, type, offset and alignment; a broken or "
      "hostile file gets an error naming the byte offset and field.\n\n"
      "Example:\n"
      "  moebench container inspect model.gguf\n"
      "  moebench container inspect tests/data/gguf/tiny-qwen3moe-Q4_K.gguf");
  inspect->add_option("files", *files, "GGUF files")->required();
  auto margs = std::make_shared<MakeArgs>();
  CLI::App* make = cmd->add_subcommand("make", "Write a container of a (scaled) model card to one or more drives.");
  make->footer(
      "Seeded synthetic weights with a realistic distribution go through the real quantizers into a GGUF v3 file "
      "(alignment 4096, llama.cpp tensor names, experts slowest): a trunk file on the first drive (every tensor "
      "but the routed experts, in the card's trunk_quant, shared by every quant of the card, scale and seed) and "
      "an expert file per drive directory that names the trunk it pairs with. --layout replicate "
      "puts a byte-identical copy of the experts on every drive (a hard link where two drive directories share a "
      "filesystem); stripe gives each expert one home drive (expert e on drive e mod "
      "D, the trunk on the first). --packed stores each expert's gate, up and down as one aligned record (one read "
      "per expert). --rows8 stores q4_0/q8_0/mxfp4/q4_k experts interleaved by 8 rows, as the streaming engine's "
      "integer kernels read them (what it makes itself unless kernels=float). Files are written under a temporary name and renamed when complete; an existing file with the "
      "same card, scale, quant, seed, layout and quantizer is reused.\n\n"
      "Example:\n"
      "  moebench container make --model kimi-k3 --scale layers=4,experts=112 --quant mxfp4 --drive /mnt/nvme0/mb\n"
      "  moebench container make --model tiny-moe --quant q4_k --drive d0 --drive d1 --layout stripe --packed");
  make->add_option("--model", margs->model, "model card name or file")->required();
  make->add_option("--scale", margs->scale, "\"layers=N,experts=M\" (either optional) or full");
  make->add_option("--quant", margs->quant, "quant of the routed experts (default: the card's)");
  make->add_option("--drive", margs->drives, "drive directory (repeatable)")->required();
  make->add_option("--layout", margs->layout, "replicate (default) or stripe")
      ->check(CLI::IsMember({"replicate", "stripe"}));
  make->add_flag("--packed", margs->packed, "one contiguous record per expert");
  make->add_flag("--rows8", margs->rows8, "experts in the 8-row interleaved layout (q4_0, q8_0, mxfp4, q4_k)");
  make->add_option("--quantizer", margs->quantizer,
                   "fast (default: single-pass k-quant scales, keeps up with the disk) or ggml (ggml's reference "
                   "search, byte-identical to llama.cpp, 20-70x slower for q4_k/q3_k/q2_k)")
      ->check(CLI::IsMember({"fast", "ggml"}));
  make->add_flag("--fio-baseline", margs->fio_baseline,
                 "after writing, measure fio's sequential O_DIRECT write on the first drive (same block size and "
                 "depth) and print the make's rate as a share of it");
  make->add_option("--seed", margs->seed, "weight seed (default 42)");
  make->add_flag("--quiet,-q", margs->quiet, "no progress line");
  make->callback([margs, &state] { finish(state, "container make", make_command(*margs, state)); });

  auto vfiles = std::make_shared<std::vector<std::string>>();
  CLI::App* verify = cmd->add_subcommand("verify", "Recompute every checksum of container files.");
  verify->footer(
      "Reads each file front to back and recomputes the XXH64 of every tensor and of every expert record; a "
      "mismatch names the tensor and the expert. Exit code 1 on any mismatch.\n\n"
      "Example:\n"
      "  moebench container verify /mnt/nvme0/mb/*.gguf");
  verify->add_option("files", *vfiles, "container files")->required();
  verify->callback([vfiles, &state] {
    state.exit_code = 0;
    SteadyClock clock;
    StderrProgress shown(clock, false);
    Progress& progress = shown.get();
    for (const std::string& path : *vfiles) {
      const auto t0 = std::chrono::steady_clock::now();
      auto r = verify_container(path, progress);
      progress.sweep_finished();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!r) {
        say("{}", r.error().message);
        state.exit_code = std::max(state.exit_code, kExitBadInput);  // could not read it (worse than a mismatch)
        continue;
      }
      for (const std::string& n : r->notes) fmt::print("{}: {}\n", path, n);
      if (r->ok()) {
        fmt::print("ok: {} — {} tensors, {} expert records, {} bytes verified in {} ({})\n", path,
                   r->tensors, r->expert_records, static_cast<unsigned long long>(r->bytes_verified),
                   format_duration_s(s), format_rate(static_cast<double>(r->bytes_verified) / s));
      } else {
        state.exit_code = std::max(state.exit_code, kExitNo);  // read, and it does not match
        fmt::print("FAILED: {} — {} mismatch(es):\n", path, r->mismatches.size());
        for (const std::string& m : r->mismatches) fmt::print("  {}\n", m);
      }
    }
  });

  inspect->callback([files, &state] {
    state.exit_code = 0;
    for (const std::string& path : *files) {
      auto f = read_gguf(path);
      if (!f) {
        say("{}", f.error().message);
        state.exit_code = kExitBadInput;
        continue;
      }
      fmt::print("{}", inspect_gguf(*f));
    }
  });
}

}  // namespace moebench
