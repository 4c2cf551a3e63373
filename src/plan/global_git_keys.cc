#include "plan/global_git_keys.h"

#include "core/strings.h"

namespace cordon {

namespace {
constexpr GitSubsection N = GitSubsection::kNone;
constexpr GitSubsection A = GitSubsection::kAny;
constexpr GitSubsection O = GitSubsection::kOptional;
constexpr GlobalGitValue kAny = GlobalGitValue::kAny;
constexpr GlobalGitValue kLfs = GlobalGitValue::kGitLfsCommand;
}  // namespace

const std::vector<GlobalGitKeyRow>& global_git_key_rows() {
  // Source for every key: git-config(1) (git-scm.com/docs/git-config), git-lfs-config(5).
  static const std::vector<GlobalGitKeyRow> rows = {
      // Identity: what `git commit` needs.
      {"user", "name", N, kAny, "the author's name, for commits"},
      {"user", "email", N, kAny, "the author's address, for commits"},
      {"user", "useconfigonly", N, kAny, "a boolean: refuse to guess an identity"},
      {"user", "signingkey", N, kAny,
       "a key id or a public key (signing itself cannot run inside the sandbox: the private "
       "keys and the agents are out of reach)"},
      {"author", "name", N, kAny, "an identity for commits"},
      {"author", "email", N, kAny, "an identity for commits"},
      {"committer", "name", N, kAny, "an identity for commits"},
      {"committer", "email", N, kAny, "an identity for commits"},
      {"gpg", "format", N, kAny, "which kind of signature (openpgp, x509, ssh): a word"},
      {"gpg", "allowedsignersfile", A, kAny,
       "public keys git checks signatures against (gpg.ssh.allowedSignersFile)"},
      // core.*: how the work tree and the object store behave; no program, no place to run.
      {"core", "autocrlf", N, kAny, "line endings"},
      {"core", "eol", N, kAny, "line endings"},
      {"core", "safecrlf", N, kAny, "line endings"},
      {"core", "filemode", N, kAny, "a boolean about the file system"},
      {"core", "ignorecase", N, kAny, "a boolean about the file system"},
      {"core", "precomposeunicode", N, kAny, "a boolean about the file system"},
      {"core", "protecthfs", N, kAny, "a boolean about the file system"},
      {"core", "protectntfs", N, kAny, "a boolean about the file system"},
      {"core", "symlinks", N, kAny, "a boolean about the file system"},
      {"core", "trustctime", N, kAny, "a boolean about the file system"},
      {"core", "checkstat", N, kAny, "a word about the file system"},
      {"core", "longpaths", N, kAny, "a boolean about the file system"},
      {"core", "quotepath", N, kAny, "how paths are printed"},
      {"core", "whitespace", N, kAny, "which whitespace errors are shown"},
      {"core", "abbrev", N, kAny, "a length"},
      {"core", "compression", N, kAny, "a level"},
      {"core", "loosecompression", N, kAny, "a level"},
      {"core", "bigfilethreshold", N, kAny, "a size"},
      {"core", "deltabasecachelimit", N, kAny, "a size"},
      {"core", "packedgitlimit", N, kAny, "a size"},
      {"core", "packedgitwindowsize", N, kAny, "a size"},
      {"core", "preloadindex", N, kAny, "a boolean"},
      {"core", "untrackedcache", N, kAny, "a boolean"},
      {"core", "splitindex", N, kAny, "a boolean"},
      {"core", "multipackindex", N, kAny, "a boolean"},
      {"core", "commitgraph", N, kAny, "a boolean"},
      {"core", "fsync", N, kAny, "which files are synced"},
      {"core", "fsyncmethod", N, kAny, "a word"},
      {"core", "fsyncobjectfiles", N, kAny, "a boolean"},
      {"core", "commentchar", N, kAny, "a character"},
      {"core", "commentstring", N, kAny, "a string for comments in messages"},
      {"core", "logallrefupdates", N, kAny, "a boolean"},
      {"core", "warnambiguousrefs", N, kAny, "a boolean"},
      {"core", "sparsecheckout", N, kAny, "a boolean"},
      {"core", "sparsecheckoutcone", N, kAny, "a boolean"},
      {"core", "checkroundtripencoding", N, kAny, "encodings"},
      {"core", "usereplacerefs", N, kAny, "a boolean"},
      {"core", "excludesfile", N, kAny,
       "the user's global ignore file: without it `git add -A` inside the sandbox would add "
       "what the user ignores everywhere (often .env); a path, no secret"},
      {"core", "attributesfile", N, kAny,
       "the user's global attributes (line endings, LFS, diff drivers by name); a path"},
      // Aliases are the user's own commands (a `!` alias runs in the sandbox like any command).
      {"alias", "*", N, kAny, "the user's own shorthands"},
      {"init", "defaultbranch", N, kAny, "a branch name"},
      {"color", "*", O, kAny, "colours (color.ui, color.diff.meta, ...)"},
      // diff and merge settings that are not drivers (diff.<driver>.* and merge.<driver>.*
      // name programs, and are not here).
      {"diff", "algorithm", N, kAny, "a word"},
      {"diff", "renames", N, kAny, "a word"},
      {"diff", "renamelimit", N, kAny, "a number"},
      {"diff", "colormoved", N, kAny, "a word"},
      {"diff", "colormovedws", N, kAny, "a word"},
      {"diff", "mnemonicprefix", N, kAny, "a boolean"},
      {"diff", "noprefix", N, kAny, "a boolean"},
      {"diff", "srcprefix", N, kAny, "a prefix"},
      {"diff", "dstprefix", N, kAny, "a prefix"},
      {"diff", "relative", N, kAny, "a boolean"},
      {"diff", "context", N, kAny, "a number"},
      {"diff", "interhunkcontext", N, kAny, "a number"},
      {"diff", "indentheuristic", N, kAny, "a boolean"},
      {"diff", "statgraphwidth", N, kAny, "a number"},
      {"diff", "statnamewidth", N, kAny, "a number"},
      {"diff", "submodule", N, kAny, "a word"},
      {"diff", "wordregex", N, kAny, "a pattern"},
      {"diff", "ignoresubmodules", N, kAny, "a word"},
      {"diff", "suppressblankempty", N, kAny, "a boolean"},
      {"diff", "dirstat", N, kAny, "options"},
      {"diff", "autorefreshindex", N, kAny, "a boolean"},
      {"merge", "conflictstyle", N, kAny, "a word"},
      {"merge", "ff", N, kAny, "a word"},
      {"merge", "log", N, kAny, "a boolean or a number"},
      {"merge", "renames", N, kAny, "a word"},
      {"merge", "renamelimit", N, kAny, "a number"},
      {"merge", "directoryrenames", N, kAny, "a word"},
      {"merge", "stat", N, kAny, "a boolean"},
      {"merge", "autostash", N, kAny, "a boolean"},
      {"merge", "defaulttoupstream", N, kAny, "a boolean"},
      {"merge", "renormalize", N, kAny, "a boolean"},
      {"merge", "verifysignatures", N, kAny, "a boolean"},
      // Behaviour of pull, push, fetch, rebase: words, booleans, numbers.
      {"pull", "*", N, kAny, "how pull integrates (rebase, ff)"},
      {"push", "default", N, kAny, "a word"},
      {"push", "autosetupremote", N, kAny, "a boolean"},
      {"push", "followtags", N, kAny, "a boolean"},
      {"push", "recursesubmodules", N, kAny, "a word"},
      {"push", "useforceifincludes", N, kAny, "a boolean"},
      {"push", "negotiate", N, kAny, "a boolean"},
      {"fetch", "*", N, kAny, "how fetch behaves (prune, parallel, ...)"},
      {"rebase", "*", N, kAny, "how rebase behaves (autoSquash, updateRefs, ...)"},
      {"rerere", "*", N, kAny, "booleans"},
      {"status", "*", N, kAny, "how status prints"},
      {"log", "*", N, kAny, "how log prints"},
      {"grep", "*", N, kAny, "how grep matches and prints"},
      {"blame", "*", N, kAny, "how blame prints; ignoreRevsFile names a file of the project"},
      {"column", "*", N, kAny, "layout"},
      {"advice", "*", N, kAny, "which hints are shown"},
      {"help", "*", N, kAny, "autocorrect"},
      {"i18n", "*", N, kAny, "encodings"},
      {"versionsort", "*", N, kAny, "tag ordering"},
      {"pretty", "*", N, kAny, "the user's own log formats"},
      {"gc", "*", N, kAny, "housekeeping thresholds"},
      {"index", "*", N, kAny, "index format"},
      {"pack", "*", N, kAny, "packing sizes and threads"},
      {"feature", "*", N, kAny, "groups of defaults"},
      {"checkout", "*", N, kAny, "defaultRemote, workers"},
      {"clone", "*", N, kAny, "defaultRemoteName, rejectShallow"},
      {"worktree", "*", N, kAny, "guessRemote"},
      {"stash", "*", N, kAny, "what stash show prints"},
      {"am", "*", N, kAny, "how am applies"},
      {"apply", "*", N, kAny, "whitespace"},
      {"branch", "*", N, kAny, "autoSetupMerge, sort (branch.<name>.* is not here)"},
      {"tag", "sort", N, kAny, "an ordering"},
      {"commit", "verbose", N, kAny, "a boolean"},
      {"commit", "cleanup", N, kAny, "a word"},
      {"commit", "status", N, kAny, "a boolean"},
      {"submodule", "recurse", N, kAny, "a boolean"},
      {"submodule", "fetchjobs", N, kAny, "a number"},
      {"submodule", "propagatebranches", N, kAny, "a boolean"},
      {"notes", "*", N, kAny, "which notes refs are shown"},
      {"mailmap", "*", N, kAny, "a file or blob of name mappings"},
      {"interactive", "singlekey", N, kAny, "a boolean"},
      {"safe", "directory", N, kAny, "which repositories git may use (ownership check)"},
      {"safe", "barerepository", N, kAny, "a word"},
      {"protocol", "version", N, kAny, "a number"},
      {"protocol", "allow", O, kAny, "which transports git may use: the user's own limits"},
      {"transfer", "*", N, kAny, "fsckObjects, credentialsInUrl (a warning level), hideRefs"},
      // HTTP settings, also per URL (`http.<url>.*`, the URL holding no user).
      {"http", "sslverify", O, kAny, "a boolean"},
      {"http", "sslversion", O, kAny, "a word"},
      {"http", "sslbackend", O, kAny, "a word"},
      {"http", "sslcainfo", O, kAny, "a CA bundle's path (public certificates)"},
      {"http", "sslcapath", O, kAny, "a CA folder's path (public certificates)"},
      {"http", "sslcipherlist", O, kAny, "ciphers"},
      {"http", "schannelcheckrevoke", O, kAny, "a boolean"},
      {"http", "schannelusesslcainfo", O, kAny, "a boolean"},
      {"http", "postbuffer", O, kAny, "a size"},
      {"http", "lowspeedlimit", O, kAny, "a number"},
      {"http", "lowspeedtime", O, kAny, "a number"},
      {"http", "version", O, kAny, "HTTP/1.1 or HTTP/2"},
      {"http", "maxrequests", O, kAny, "a number"},
      {"http", "minsessions", O, kAny, "a number"},
      {"http", "followredirects", O, kAny, "a word"},
      {"http", "noepsv", O, kAny, "a boolean"},
      {"http", "useragent", O, kAny, "a string"},
      {"http", "emptyauth", O, kAny, "a boolean"},
      {"http", "delegation", O, kAny, "a word"},
      {"http", "proxy", O, kAny, "a proxy's URL (never one with a user or password)"},
      {"http", "proxysslcainfo", O, kAny, "a CA bundle's path"},
      // URL rewrites (https -> ssh): kept when neither URL holds a user or token.
      {"url", "insteadof", A, kAny, "a URL rewrite without a user or token"},
      {"url", "pushinsteadof", A, kAny, "a URL rewrite without a user or token"},
      // Includes are kept: each included file is itself seen as a copy judged by this list.
      {"include", "path", N, kAny, "an included file, itself judged by this list"},
      {"includeif", "path", A, kAny, "an included file, itself judged by this list"},
      // Git LFS as `git lfs install` sets it up: without it, `git add` inside the sandbox
      // would store large files whole and `git status` would show them changed.
      {"filter", "clean", A, kLfs, "git-lfs's own clean filter (filter.lfs.clean)"},
      {"filter", "smudge", A, kLfs, "git-lfs's own smudge filter (filter.lfs.smudge)"},
      {"filter", "process", A, kLfs, "git-lfs's own filter process (filter.lfs.process)"},
      {"filter", "required", A, kLfs, "true, for git-lfs (filter.lfs.required)"},
      {"lfs", "*", N, kAny, "git-lfs settings (URLs without a user or token)"},
      {"lfs", "access", A, kAny, "a word per LFS endpoint (lfs.<url>.access)"},
      {"lfs", "locksverify", A, kAny, "a boolean per LFS endpoint"},
  };
  return rows;
}

namespace {

// Section and name lower-cased (git compares them so); the subsection as written.
GitKeyParts split_key(const std::string& key) {
  GitKeyParts k = split_git_key(key);
  k.section = to_lower(k.section);
  k.name = to_lower(k.name);
  return k;
}

// What `git lfs install` (and `--skip-smudge`) writes (git-lfs-install(1)).
bool git_lfs_value(const GitKeyParts& k, const GitConfigEntry& e) {
  if (k.sub != "lfs") return false;
  static const std::vector<std::pair<std::string, std::string>> kValues = {
      {"clean", "git-lfs clean -- %f"},
      {"smudge", "git-lfs smudge -- %f"},
      {"smudge", "git-lfs smudge --skip -- %f"},
      {"process", "git-lfs filter-process"},
      {"process", "git-lfs filter-process --skip"},
      {"required", "true"},
  };
  for (const auto& [name, value] : kValues)
    if (k.name == name && e.has_value && e.value == value) return true;
  return false;
}

}  // namespace

const GlobalGitKeyRow* global_git_key_row(const GitConfigEntry& e) {
  if (!git_config_credential(e).empty()) return nullptr;
  GitKeyParts k = split_key(e.key);
  if (k.name.empty()) return nullptr;
  for (const auto& r : global_git_key_rows()) {
    if (k.section != r.section) continue;
    if (std::string(r.name) != "*" && k.name != r.name) continue;
    if (r.sub == GitSubsection::kNone && !k.sub.empty()) continue;
    if (r.sub == GitSubsection::kAny && k.sub.empty()) continue;
    if (r.value == GlobalGitValue::kGitLfsCommand && !git_lfs_value(k, e)) continue;
    return &r;
  }
  return nullptr;
}

std::string global_git_key_removal(const GitConfigEntry& e) {
  if (std::string why = git_config_credential(e); !why.empty()) return why;
  if (global_git_key_row(e)) return "";
  return "not on the list of keys known to hold no secret";
}

}  // namespace cordon
