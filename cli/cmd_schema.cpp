// cmd_schema.cpp — `moebench schema`: prints the results column table
// (name, unit, type, group, meaning), the single source every writer uses.
#include <cstdio>

#include "cli/commands.h"
#include "reports/writers.h"

namespace moebench {

void add_schema_command(CLI::App& app, CliState& state) {
  auto format = std::make_shared<std::string>("md");
  CLI::App* cmd = app.add_subcommand("schema", "Print the results columns: name, unit, type, group, meaning.");
  cmd->footer("Print the results table's columns: name, unit, type, group and meaning. Metric columns are "
      "medians over repetitions; units are part of the names (_s, _tok_s, _bytes).\n\n"
      "Example:\n"
      "  moebench schema\n"
      "  moebench schema --format csv > columns.csv");
  cmd->add_option("--format", *format, "md (default), csv or json")
      ->check(CLI::IsMember({"md", "csv", "json"}));
  cmd->callback([format, &state] {
    std::fputs(write_schema(*format).c_str(), stdout);
    state.exit_code = 0;
  });
}

}  // namespace moebench
