#pragma once

#include <string_view>

namespace CLI {
class App;
}

namespace gpuroof {

// The help of one subcommand: its one-line summary and the footer of its --help (examples first,
// then what the reader must know). All of them live in command_help.cc, one table, so the help,
// the man page (scripts/gen_manpage_and_completions.py reads --help) and docs/cli.md are checked
// against one place.
struct CommandHelp {
  std::string_view name;
  std::string_view summary;
  std::string_view footer;
};

// The help of `name`; throws std::logic_error for a name the table lacks (a programming error).
const CommandHelp& HelpOf(std::string_view name);

// Adds the subcommand `name` to `app` with its summary and footer from the help table.
CLI::App* AddCommand(CLI::App& app, std::string_view name);

}  // namespace gpuroof
