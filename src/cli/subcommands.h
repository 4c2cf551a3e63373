// The subcommands of `cordon`: each one's options, registered on the top-level CLI::App, and
// what runs when it was the one given. main registers only the subcommand its first word
// names (PERF-1: building all of them is a third of a millisecond a command), and all of them
// for anything else (--help, --version, a word that names none, the man page).
//
//   Dashes dashes;  // what followed `--`, cut off before parsing
//   for (const auto& e : subcommands()) made.push_back(e.make(app, dashes));
//   app.parse(argc, argv);  ...  if (made[i].app->parsed()) return made[i].run(ctx);
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "cli/context.h"

namespace cordon {

// `cordon run [options] -- CMD ARGS...`: the words after the first `--` (run and classify),
// never seen by the option parser, so the command's own flags stay its own.
struct Dashes {
  bool had = false;
  std::vector<std::string> command;
};

struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int(const CliContext&)> run;  // called when `app` was parsed
  // A one-shot run has written and removed all it will when it returns: the program may end
  // without unwinding its statics.
  bool exit_at_once = false;
};

struct SubcommandEntry {
  const char* name;
  Subcommand (*make)(CLI::App& parent, const Dashes& dashes);  // `dashes` outlives the run
};

// In the order `cordon --help` lists them.
const std::vector<SubcommandEntry>& subcommands();

}  // namespace cordon
