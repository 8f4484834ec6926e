// probe_steps.cpp — see probe_steps.h: what the probe's steps share.
#include "probes/probe_steps.h"

#include <algorithm>

#include "vocab/text.h"

namespace moebench {

void ProbeNotes::add(const std::string& s) {
  if (std::find(list.begin(), list.end(), s) == list.end()) list.push_back(s);
  progress.note("note: " + s);
}

void PhaseClock::lap(const std::string& what) {
  const auto now = std::chrono::steady_clock::now();
  laps_.push_back(what + " " + format_fixed(std::chrono::duration<double>(now - start_).count(), 1) + " s");
  start_ = now;
}

Figure measured_figure(double value, std::string source) {
  Figure f;
  f.value = value;
  f.provenance = Provenance::kMeasured;
  f.source = std::move(source);
  return f;
}

}  // namespace moebench
