// Command classification (CMD-2..CMD-6): is a command line read-only, does it need approval, or
// is it denied? Pure: paths are resolved against the cwd and home passed in, and symlinks only
// through the resolver the caller supplies (src/host/path_resolver.h on a real machine).
//
//   auto classifier = CommandClassifier::create(policy.commands);   // once, at start-up
//   ClassifyContext ctx{.cwd = "/home/u/proj", .home = "/home/u",
//                       .resolve = host_path_resolver()};
//   Classification c = classifier->classify_line("git -C src log --oneline | head", ctx);
//   // c.cls == CommandClass::kReadOnly, c.rule == "read-only-list"
//   c = classifier->classify_line("cat ~/.ssh/id_rsa", ctx);
//   // c.cls == kNeedsApproval, c.rule == "sensitive-path", c.word == "~/.ssh/id_rsa"
//   c = classifier->classify_argv({"sudo", "reboot"}, ctx);
//   // c.cls == kDenied, c.rule == "denied-command", c.word == "reboot"
//
// The answer is the strictest finding anywhere in the line: denied beats needs-approval, which
// beats read-only; among findings of the same class the first in the line is reported.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands/expansion.h"
#include "config/command_entry.h"  // check_command_entry, for the config and the tests
#include "config/policy.h"
#include "core/result.h"

namespace cordon {

enum class CommandClass { kReadOnly, kNeedsApproval, kDenied };
// "read-only", "needs-approval", "denied".
const char* to_string(CommandClass c);

struct Classification {
  CommandClass cls = CommandClass::kNeedsApproval;
  std::string reason;  // a sentence for a person, naming the word and the rule (with its id)
  std::string word;    // the word (or entry, or path) the decision turned on
  // A stable machine word for the rule: read-only-list, nothing-to-run, not-read-only,
  // write-option, unknown-option, output-redirection, sensitive-path, network, expansion,
  // environment, privileged, unparsed, denied-command, denied-path.
  std::string rule;
};

// Maps a path to where it really leads (realpath), "" when unknown. The classifier calls it
// with absolute, lexically normalized paths.
using PathResolver = std::function<std::string(const std::string&)>;

struct ClassifyContext {
  std::string cwd;       // absolute: where the command would run
  std::string home;      // absolute: the user's home folder, for `~`
  bool network = false;  // the caller asks for the network: never read-only (CMD-3)
  PathResolver resolve;  // may be empty: then only the lexical paths are checked
  // Pathname expansion for the deny rules (CMD-4): `rm -rf /home/u?` is judged by what the glob
  // names (host_expander() on a real machine). Null: globs are judged as written.
  const Expander* expander = nullptr;
  // Commands run without a sandbox (mode `external` or `off`): what a sandbox would keep from
  // them, other processes' environments (`ps e`, /proc/*/environ), is not read-only (CMD-3).
  bool unconfined = false;
  // The project's root, absolute: `git --git-dir` and `--work-tree` (and GIT_DIR,
  // GIT_WORK_TREE) may name its own git folder and work tree, nothing else. "" when unknown:
  // they always ask.
  std::string project;
};

class CommandClassifier {
 public:
  // Builds the lists once: the built-in read-only tables (src/commands/data) plus
  // `[commands] read_only` (whose entries accept any further words), the default
  // denied commands plus `[commands] denied`, the default sensitive paths plus
  // `[commands] sensitive`, and `[commands] denied_paths`. Fails on a malformed entry.
  static Result<CommandClassifier> create(const CommandsConfig& config);

  // A command line as a shell would read it (`cordon classify -c`, a harness's shell tool).
  Classification classify_line(std::string_view line, const ClassifyContext& ctx) const;
  // An argv run directly, without a shell (`cordon classify -- CMD...`, `exec` of argv).
  Classification classify_argv(const std::vector<std::string>& argv,
                               const ClassifyContext& ctx) const;

  struct Lists;  // the compiled lists (classify.cc)

 private:
  explicit CommandClassifier(std::shared_ptr<const Lists> lists) : lists_(std::move(lists)) {}
  std::shared_ptr<const Lists> lists_;
};

}  // namespace cordon
