// printer.cpp — the one place the command line writes to stderr: status
// lines (say) and a command's outcome (finish), errors printed once, in
// one format: "moebench COMMAND: error: MESSAGE" and exit 2.
#include <cstdio>
#include <utility>

#include <fmt/format.h>

#include "cli/commands.h"

namespace moebench {

void say(const std::string& line) { fmt::print(stderr, "{}\n", line); }

void finish(CliState& state, const std::string& command, const Expected<int>& outcome) {
  if (outcome) {
    state.exit_code = *outcome;
    return;
  }
  std::fflush(stdout);  // an answer printed before the failure comes first
  // Library errors of a sweep name their command already ("moebench run: …").
  std::string message = outcome.error().message;
  const std::string prefix = "moebench " + command + ": ";
  if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
  say_error(command, message);
  state.exit_code = kExitBadInput;
}

Error fail(std::string message) { return Error{std::move(message)}; }

void say_error(const std::string& command, const std::string& message) {
  say("moebench " + command + ": error: " + message);
}

}  // namespace moebench
