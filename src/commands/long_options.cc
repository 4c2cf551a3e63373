#include "commands/long_options.h"

#include <fmt/format.h>

#include "core/strings.h"

namespace cordon {

namespace {

// A table written as words: `name` is read-only, `!name` writes, `^name` runs a program,
// `@name` reads a list of file names, `%name` reads code from a file.
OptionTable table(std::string_view program, std::string_view words, bool complete) {
  OptionTable t;
  t.program = program;
  t.complete = complete;
  size_t i = 0;
  while (i < words.size()) {
    while (i < words.size() && words[i] == ' ') ++i;
    size_t j = words.find(' ', i);
    if (j == std::string_view::npos) j = words.size();
    std::string_view w = words.substr(i, j - i);
    i = j;
    if (w.empty()) continue;
    OptionKind kind = OptionKind::kSafe;
    switch (w[0]) {
      case '!':
        kind = OptionKind::kWrites;
        break;
      case '^':
        kind = OptionKind::kRuns;
        break;
      case '@':
        kind = OptionKind::kFileList;
        break;
      case '%':
        kind = OptionKind::kScript;
        break;
      default:
        break;
    }
    if (kind != OptionKind::kSafe) w.remove_prefix(1);
    t.options.push_back(LongOption{w, kind});
  }
  return t;
}

// The options git's diff and log machinery gives every subcommand that shows changes.
constexpr std::string_view kGitDiffOptions =
    "!output ^ext-diff no-ext-diff output-indicator-new output-indicator-old "
    "output-indicator-context";
// The names point into these literals: a table never holds a temporary's characters.
constexpr std::string_view kGitGrepOptions =
    "!output ^ext-diff no-ext-diff output-indicator-new output-indicator-old "
    "output-indicator-context ^open-files-in-pager";

std::vector<OptionTable> build_tables() {
  std::vector<OptionTable> v;
  // coreutils 9.1 (complete lists, from --help).
  v.push_back(table("sort",
                    "ignore-leading-blanks debug dictionary-order ignore-case "
                    "general-numeric-sort ignore-nonprinting month-sort human-numeric-sort "
                    "numeric-sort random-sort random-source reverse sort version-sort batch-size "
                    "check ^compress-program @files0-from key merge !output stable buffer-size "
                    "field-separator temporary-directory parallel unique zero-terminated help "
                    "version",
                    true));
  v.push_back(table("date",
                    "date debug file iso-8601 resolution rfc-email rfc-3339 reference !set "
                    "universal utc help version",
                    true));
  v.push_back(table("shuf",
                    "echo input-range head-count !output random-source repeat zero-terminated "
                    "help version",
                    true));
  v.push_back(
      table("wc", "bytes chars lines @files0-from max-line-length words total help version", true));
  v.push_back(table("du",
                    "null all apparent-size block-size bytes total dereference-args "
                    "@files0-from human-readable inodes si dereference max-depth count-links "
                    "no-dereference separate-dirs summarize threshold time time-style "
                    "exclude-from exclude one-file-system help version",
                    true));
  v.push_back(
      table("iconv", "from-code to-code list !output silent verbose help usage version", true));
  v.push_back(table("sdiff",
                    "!output ignore-case ignore-tab-expansion ignore-trailing-space "
                    "ignore-space-change ignore-all-space ignore-blank-lines "
                    "ignore-matching-lines strip-trailing-cr text minimal speed-large-files "
                    "tabsize suppress-common-lines left-column width expand-tabs "
                    "^diff-program help version",
                    true));
  // Partial lists: the options that matter, and the read-only ones they could be confused
  // with.
  v.push_back(table("file",
                    "@files-from !compile !preserve-date mime mime-type mime-encoding brief "
                    "dereference no-dereference magic-file",
                    false));
  v.push_back(table("tar",
                    "^to-command ^checkpoint-action checkpoint ^use-compress-program "
                    "^info-script ^new-volume-script ^rsh-command ^rmt-command !index-file "
                    "!volno-file !listed-incremental @files-from !extract !get !create !append "
                    "!update !delete !concatenate !catenate !remove-files list to-stdout totals "
                    "touch file force-local",
                    false));
  v.push_back(table("dmesg",
                    "!clear !read-clear !console-off !console-on !console-level color ctime "
                    "decode follow follow-new force-prefix human json kernel level noescape "
                    "nopager notime raw reltime show-delta since syslog time-format until "
                    "userspace buffer-size facility file help version",
                    false));
  v.push_back(table("journalctl",
                    "!vacuum-size !vacuum-files !vacuum-time !rotate !flush !sync "
                    "!relinquish-var !smart-relinquish-var !setup-keys !update-catalog "
                    "since until reverse root",
                    false));
  v.push_back(table("ss", "!kill", false));
  v.push_back(table("zstd", "!rm !output-dir-flat !output-dir-mirror @filelist", false));
  v.push_back(table("rg", "^pre pre-glob ^hostname-bin", false));
  v.push_back(table("fd", "^exec ^exec-batch", false));
  v.push_back(table("fdfind", "^exec ^exec-batch", false));
  v.push_back(table("ag", "^pager", false));
  v.push_back(table("yq", "!inplace !in-place !split-exp %from-file indent", false));
  v.push_back(table("xmllint", "!output ^shell", false));
  v.push_back(table("sysctl", "!write !load !system", false));
  v.push_back(table("rpm",
                    "!setperms !setugids !setcaps !restore !erase !install !upgrade !freshen "
                    "!reinstall !import !initdb !rebuilddb !delete ^eval ^define ^pipe "
                    "%macros %rcfile",
                    false));
  // git 2.39; git's parse-options takes unambiguous prefixes, `--no-` forms included.
  v.push_back(table("git", kGitDiffOptions, false));
  v.push_back(table("git grep", kGitGrepOptions, false));
  v.push_back(table("git branch",
                    "verbose quiet !track !no-track !set-upstream-to !set-upstream "
                    "!unset-upstream color no-color remotes contains no-contains abbrev "
                    "no-abbrev all !delete !move !copy list show-current !create-reflog "
                    "!edit-description !force merged no-merged column no-column sort points-at "
                    "ignore-case omit-empty format !recurse-submodules",
                    false));
  v.push_back(table("git tag",
                    "!annotate !sign no-sign !local-user !force !delete !message !file !edit "
                    "!create-reflog !trailer !cleanup verify list contains no-contains merged "
                    "no-merged points-at sort format color column no-column ignore-case "
                    "omit-empty",
                    false));
  v.push_back(table("git config",
                    "!add !unset !unset-all !replace-all !rename-section !remove-section !edit "
                    "get get-all get-regexp get-urlmatch list get-color get-colorbool global "
                    "system local worktree file blob type bool int bool-or-int path "
                    "expiry-date null name-only includes no-includes show-origin show-scope "
                    "default fixed-value",
                    false));
  v.push_back(table("git apply",
                    "!apply !build-fake-ancestor check stat numstat summary index cached "
                    "verbose quiet",
                    false));
  v.push_back(table("git help", "^web ^info man all guides config", false));
  return v;
}

const char* why(OptionKind k) {
  switch (k) {
    case OptionKind::kWrites:
      return "writes a file or changes the system";
    case OptionKind::kRuns:
      return "runs another program";
    case OptionKind::kFileList:
      return "reads the names of the files to read from a file or standard input, which "
             "cannot be checked (CMD-3)";
    case OptionKind::kScript:
      return "reads its code from a file, which cannot be checked";
    case OptionKind::kSafe:
      break;
  }
  return "only reads";
}

}  // namespace

const std::vector<OptionTable>& option_tables() {
  static const std::vector<OptionTable> tables = build_tables();
  return tables;
}

const OptionTable* option_table(std::string_view program) {
  for (const auto& t : option_tables())
    if (t.program == program) return &t;
  return nullptr;
}

OptionHit find_option(const OptionTable& t, std::string_view word) {
  OptionHit hit;
  if (!starts_with(word, "--") || word.size() < 3) return hit;
  std::string_view name = word.substr(
      2, word.find('=') == std::string_view::npos ? std::string_view::npos : word.find('=') - 2);
  for (const auto& o : t.options) {
    if (o.name == name) {
      hit.match = OptionMatch::kOne;
      hit.option = &o;
      return hit;
    }
    if (starts_with(o.name, name)) hit.candidates.push_back(&o);
  }
  if (hit.candidates.size() == 1) {
    hit.match = OptionMatch::kOne;
    hit.option = hit.candidates[0];
    hit.candidates.clear();
  } else if (hit.candidates.size() > 1) {
    hit.match = OptionMatch::kAmbiguous;
  }
  return hit;
}

std::optional<WriteOption> first_unsafe_option(const OptionTable& t,
                                               const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--") break;
    if (!starts_with(a, "--") || a.size() < 3) continue;
    OptionHit h = find_option(t, a);
    if (h.match == OptionMatch::kOne && h.option->kind != OptionKind::kSafe)
      return WriteOption{
          a, h.option->name == std::string_view(a).substr(2, h.option->name.size())
                 ? why(h.option->kind)
                 : fmt::format("is --{}, which {}", h.option->name, why(h.option->kind))};
    if (h.match == OptionMatch::kAmbiguous) {
      std::vector<std::string> names;
      for (const auto* c : h.candidates) names.push_back("--" + std::string(c->name));
      return WriteOption{a, fmt::format("is an ambiguous abbreviation ({}), so it is not "
                                        "known to only read",
                                        join(names, ", "))};
    }
    if (h.match == OptionMatch::kNone && t.complete)
      return WriteOption{a, "is an option not known to only read"};
  }
  return std::nullopt;
}

}  // namespace cordon
