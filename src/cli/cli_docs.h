// DIST-1: the man page and the shell completions, generated from the CLI definition itself
// (the CLI11 App that parses the command line and prints --help), so that they never drift.
// The build runs `cordon __man` and `cordon __completion SHELL` and installs what they print.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace cordon {

// cordon(1) in roff (man(7)): the same descriptions, options and footers as --help.
std::string man_page(const CLI::App& app, const std::string& version);

// A completion script for "bash", "zsh" or "fish"; "" for another shell.
std::string completion_script(const CLI::App& app, const std::string& shell);

}  // namespace cordon
