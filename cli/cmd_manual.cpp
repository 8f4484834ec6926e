// cmd_manual.cpp — `moebench man` and `moebench completion bash`: the manual
// pages and the bash completion, generated from the command line's own
// definition (every command, option and help text as `--help` shows them),
// so they cannot drift from it. The build writes both next to the binary
// and `make install` / the Debian package install them (CMakeLists.txt).
//   moebench man                  the page of moebench(1) on stdout
//   moebench man run              the page of one command (moebench-run(1))
//   moebench man --out DIR        every page, as DIR/moebench[-cmd[-sub]].1
//   moebench completion bash      the completion script on stdout (--out FILE)
#include <cctype>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "vocab/build_info.h"
#include "vocab/file_io.h"
#include "vocab/text.h"

namespace moebench {
namespace {

std::vector<const CLI::App*> children(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

std::vector<const CLI::Option*> options_of(const CLI::App& app) {
  return app.get_options([](const CLI::Option* o) { return o->get_name() != "--help" && o->get_name() != "-h,--help"; });
}

// roff text: backslashes and hyphens escaped, a line that would start with a
// control character protected.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
    line_start = c == '\n';
  }
  return out;
}

// A help text as roff: paragraphs at blank lines, indented lines (the
// examples) verbatim.
std::string roff_paragraphs(const std::string& text) {
  std::string out;
  bool verbatim = false;
  for (const std::string& line : split(text, '\n')) {
    const bool indented = line.rfind("  ", 0) == 0;
    if (indented && !verbatim) out += ".nf\n";
    if (!indented && verbatim) out += ".fi\n";
    verbatim = indented;
    if (line.empty()) out += ".PP\n";
    else out += roff(line) + "\n";
  }
  if (verbatim) out += ".fi\n";
  return out;
}

std::string option_synopsis(const CLI::Option& o) {
  std::string names = o.get_name(false, true);
  const std::string type = o.get_type_name();
  return names + (type.empty() ? "" : " " + type);
}

std::string page_name(const std::vector<std::string>& path) {
  return path.empty() ? "moebench" : "moebench-" + join(path, "-");
}

std::string man_page(const CLI::App& app, const std::vector<std::string>& path) {
  const std::string name = page_name(path);
  std::string upper = name;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string out = fmt::format(".TH {} 1 \"\" \"moebench {}\" \"moebench manual\"\n", upper, build_info::kVersion);
  const std::string description = app.get_description();
  const std::string first = description.substr(0, description.find('\n'));
  out += ".SH NAME\n" + roff(name) + " \\- " + roff(first) + "\n";
  out += ".SH SYNOPSIS\n.B " + roff("moebench" + (path.empty() ? "" : " " + join(path, " "))) + "\n";
  const std::vector<const CLI::App*> subs = children(app);
  std::vector<std::string> positionals;
  for (const CLI::Option* o : options_of(app)) {
    if (o->get_positional()) positionals.push_back(o->get_name(true));
  }
  out += roff("[OPTIONS]" + (subs.empty() ? "" : std::string(" COMMAND")) +
              (positionals.empty() ? "" : " " + join(positionals, " "))) + "\n";
  out += ".SH DESCRIPTION\n" + roff_paragraphs(description);
  if (!app.get_footer().empty()) out += ".PP\n" + roff_paragraphs(app.get_footer());
  if (!subs.empty()) {
    out += ".SH COMMANDS\n";
    for (const CLI::App* sub : subs) {
      std::vector<std::string> p = path;
      p.push_back(sub->get_name());
      out += ".TP\n.B " + roff(sub->get_name()) + "\n" + roff(sub->get_description()) + " See \\fB" + roff(page_name(p)) + "\\fR(1).\n";
    }
  }
  out += ".SH OPTIONS\n";
  for (const CLI::Option* o : options_of(app)) {
    out += ".TP\n.B " + roff(option_synopsis(*o)) + "\n" + roff(o->get_description()) + "\n";
  }
  if (path.empty()) {
    out += ".SH EXIT STATUS\n";
    out += fmt::format(".TP\n{}\ndone (rows may still have status failed or infeasible: a result, not a crash)\n", kExitOk);
    out += fmt::format(".TP\n{}\nthe answer is no: a regression, a file that fails validation\n", kExitNo);
    out += fmt::format(".TP\n{}\nnothing judged: bad input, or the command could not do its work\n", kExitBadInput);
    out += fmt::format(".TP\n{}\ninconclusive: the judgement rests on disturbed repetitions\n", kExitInconclusive);
  }
  out += ".SH SEE ALSO\n" + std::string(path.empty() ? "The README and docs/ of the source tree.\n" : "\\fBmoebench\\fR(1)\n");
  return out;
}

// Every page: path → the command's app.
void collect(const CLI::App& app, std::vector<std::string> path, std::vector<std::pair<std::vector<std::string>, const CLI::App*>>& out) {
  out.emplace_back(path, &app);
  for (const CLI::App* sub : children(app)) {
    std::vector<std::string> p = path;
    p.push_back(sub->get_name());
    collect(*sub, p, out);
  }
}

Expected<int> man_command(const CLI::App& root, const std::vector<std::string>& command, const std::string& out_dir) {
  std::vector<std::pair<std::vector<std::string>, const CLI::App*>> pages;
  collect(root, {}, pages);
  if (!out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    for (const auto& [path, app] : pages) {
      const std::string file = out_dir + "/" + page_name(path) + ".1";
      if (Status st = write_file_atomic(file, man_page(*app, path)); !st) return st.error();
    }
    say("moebench man: {} pages in {}", pages.size(), out_dir);
    return kExitOk;
  }
  for (const auto& [path, app] : pages) {
    if (path == command) {
      fmt::print("{}", man_page(*app, path));
      return kExitOk;
    }
  }
  return Error{"no command \"" + join(command, " ") + "\" (moebench --help lists them)"};
}

std::string bash_word_list(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string bash_completion(const CLI::App& root) {
  std::vector<std::pair<std::vector<std::string>, const CLI::App*>> pages;
  collect(root, {}, pages);
  std::string subs, opts;
  for (const auto& [path, app] : pages) {
    const std::string key = path.empty() ? "" : " " + join(path, " ");
    std::vector<std::string> kids, names;
    for (const CLI::App* sub : children(*app)) kids.push_back(sub->get_name());
    for (const CLI::Option* o : app->get_options()) {
      for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
      for (const std::string& n : o->get_snames()) names.push_back("-" + n);
    }
    if (!kids.empty()) subs += fmt::format("    \"{}\") echo \"{}\" ;;\n", key, bash_word_list(kids));
    opts += fmt::format("    \"{}\") echo \"{}\" ;;\n", key, bash_word_list(names));
  }
  return "# bash completion for moebench, generated by `moebench completion bash` from its own command line.\n"
         "_moebench_subcommands() {\n  case \"$1\" in\n" + subs + "  esac\n}\n"
         "_moebench_options() {\n  case \"$1\" in\n" + opts + "  esac\n}\n"
         "_moebench() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} path=\"\" i w kid\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    w=${COMP_WORDS[i]}\n"
         "    for kid in $(_moebench_subcommands \"$path\"); do\n"
         "      if [ \"$kid\" = \"$w\" ]; then path=\"$path $w\"; break; fi\n"
         "    done\n"
         "  done\n"
         "  if [[ $cur == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$(_moebench_options \"$path\")\" -- \"$cur\"))\n"
         "  else\n"
         "    COMPREPLY=($(compgen -W \"$(_moebench_subcommands \"$path\")\" -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -o default -F _moebench moebench\n";
}

}  // namespace

void add_manual_commands(CLI::App& app, CliState& state) {
  auto command = std::make_shared<std::vector<std::string>>();
  auto out_dir = std::make_shared<std::string>();
  CLI::App* man = app.add_subcommand("man", "Print the manual page of moebench or of one command (roff), or write every page.");
  man->footer("Generated from the command line's own help, so it says what --help says.\n\n"
              "Example:\n"
              "  moebench man | man -l -\n"
              "  moebench man card show | man -l -\n"
              "  moebench man --out /usr/local/share/man/man1");
  man->add_option("command", *command, "a command (and subcommand), e.g. run, or card show (default: moebench itself)");
  man->add_option("--out", *out_dir, "write every page to this directory as moebench[-COMMAND[-SUB]].1");
  man->callback([&app, command, out_dir, &state] { finish(state, "man", man_command(app, *command, *out_dir)); });

  auto shell = std::make_shared<std::string>();
  auto script = std::make_shared<std::string>();
  CLI::App* completion = app.add_subcommand("completion", "Print the shell completion script (bash).");
  completion->footer("Example:\n"
                     "  source <(moebench completion bash)\n"
                     "  moebench completion bash --out /etc/bash_completion.d/moebench");
  completion->add_option("shell", *shell, "the shell: bash")->required()->check(CLI::IsMember({"bash"}));
  completion->add_option("--out", *script, "write the script to this file instead of stdout");
  completion->callback([&app, script, shell, &state] {
    const std::string text = bash_completion(app);
    if (script->empty()) {
      fmt::print("{}", text);
      state.exit_code = kExitOk;
    } else {
      const Status st = write_file_atomic(*script, text);
      finish(state, "completion", st ? Expected<int>(kExitOk) : Expected<int>(st.error()));
    }
  });
}

}  // namespace moebench
