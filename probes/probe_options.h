// probe_options.h — what `moebench probe` is asked to measure: the drive
// directories, quick or full, the test file's size, fio's part, the pairs per
// storage cell (machine_probe.h runs it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace moebench {

struct ProbeOptions {
  std::vector<std::string> drive_dirs;
  bool quick = false;
  std::uint64_t file_bytes = 4ull << 30;
  std::optional<std::uint64_t> max_touch_bytes;  // cap the usable-memory probe (shared machines, tests)
  bool use_fio = true;
  // fio's side of each cell is the best of a search over engines
  // (probes/fio_search.h); unset: the full probe searches, --quick does not.
  std::optional<bool> fio_search;
  int pairs = 0;  // built-in/fio pairs per storage cell; 0 = the default (3 quick, 5 full)
  std::vector<std::uint64_t> record_bytes;  // expert record sizes of the cards
  std::string profile_name;
  std::string build_label;
  std::string scratch_dir;  // for fio job files and tool output
};

}  // namespace moebench
