#include "plan/git_folder_rules.h"

#include <fmt/format.h>

#include "core/strings.h"

namespace cordon {

const std::vector<AllowedGitKey>& allowed_git_folder_keys() {
  using V = GitFolderValue;
  // Each: what `git init`/`git clone`/`git submodule`/`git worktree` write, and why it names no
  // program and points nowhere git would run or read code from.
  static const std::vector<AllowedGitKey> kKeys = {
      {"core.repositoryformatversion", V::kAny, "a format number git checks; runs nothing"},
      {"core.filemode", V::kBoolean, "whether the executable bit is tracked"},
      {"core.bare", V::kBoolean, "whether the repository has a checkout"},
      {"core.logallrefupdates", V::kBoolean, "whether reflogs are kept"},
      {"core.ignorecase", V::kBoolean, "written by git init on case-insensitive filesystems"},
      {"core.precomposeunicode", V::kBoolean, "written by git init on macOS"},
      {"core.symlinks", V::kBoolean, "written by git init where links cannot be made"},
      {"core.sparsecheckout", V::kBoolean, "git sparse-checkout: which paths are checked out"},
      {"core.sparsecheckoutcone", V::kBoolean, "git sparse-checkout's pattern mode"},
      {"remote.*.url", V::kUrl, "where fetch reads from; plain transports only (no helper)"},
      {"remote.*.pushurl", V::kUrl, "where push writes to; plain transports only (no helper)"},
      {"remote.*.fetch", V::kAny, "a refspec: which refs a fetch copies"},
      {"remote.*.promisor", V::kBoolean, "git clone --filter: the remote may fill in objects"},
      {"remote.*.partialclonefilter", V::kAny, "git clone --filter: the object filter"},
      {"branch.*.remote", V::kAny, "the branch's upstream remote (a name)"},
      {"branch.*.merge", V::kAny, "the branch's upstream ref (a name)"},
      {"branch.*.rebase", V::kRebase, "pull rebases (true/false/merges; not interactive)"},
      {"extensions.objectformat", V::kAny, "sha1 or sha256 object names"},
      {"extensions.refstorage", V::kAny, "files or reftable ref storage"},
      {"extensions.worktreeconfig", V::kBoolean, "config.worktree is read (it is judged too)"},
      {"extensions.partialclone", V::kAny, "git clone --filter: the promisor remote's name"},
      {"submodule.*.url", V::kUrl, "where the submodule is cloned from; plain transports only"},
      {"submodule.*.active", V::kBoolean, "whether the submodule is used"},
      {"lfs.repositoryformatversion", V::kAny, "git lfs install: a format number"},
      {"user.name", V::kAny, "the commit author's name (a string git records)"},
      {"user.email", V::kAny, "the commit author's address (a string git records)"},
  };
  return kKeys;
}

namespace {

// `key` as git lists it matches `pattern`; `*` is one subsection (which may hold dots).
bool key_matches(std::string_view pattern, std::string_view key) {
  size_t star = pattern.find('*');
  if (star == std::string_view::npos) return to_lower(std::string(key)) == pattern;
  std::string_view head = pattern.substr(0, star), tail = pattern.substr(star + 1);
  if (key.size() <= head.size() + tail.size()) return false;
  std::string lk = to_lower(std::string(key));
  std::string_view k = lk;
  // Section and name are case-insensitive; the subsection is the rest (anything but empty).
  return k.substr(0, head.size()) == head && k.substr(k.size() - tail.size()) == tail &&
         key.rfind('.') == key.size() - tail.size();
}

bool boolean_value(const GitConfigEntry& e) {
  if (!e.has_value) return true;
  std::string l = to_lower(e.value);
  return l.empty() || l == "true" || l == "false" || l == "yes" || l == "no" || l == "on" ||
         l == "off" || l == "1" || l == "0";
}

std::string kind_word(Kind k) {
  switch (k) {
    case Kind::kSymlink: return "a link";
    case Kind::kDir: return "a folder";
    case Kind::kFile: return "a file";
    default: return "not a regular file (a FIFO, socket or device)";
  }
}

}  // namespace

bool plain_git_url(std::string_view url) {
  if (url.empty() || url[0] == '-') return false;
  for (char c : url)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  if (url.find("::") != std::string_view::npos) return false;  // <transport>::<address>
  size_t scheme = url.find("://");
  if (scheme != std::string_view::npos) {
    std::string s = to_lower(std::string(url.substr(0, scheme)));
    return s == "https" || s == "http" || s == "ssh" || s == "git" || s == "file" ||
           s == "git+ssh" || s == "ssh+git";
  }
  // scp-like `[user@]host:path` or a local path: no transport helper is involved.
  return true;
}

std::string git_key_unclean(const GitConfigEntry& e, GitFolderRole role) {
  // A submodule's git folder names its checkout (`git submodule` writes core.worktree there).
  if (role == GitFolderRole::kSubmodule && to_lower(e.key) == "core.worktree") return "";
  for (const auto& k : allowed_git_folder_keys()) {
    if (!key_matches(k.pattern, e.key)) continue;
    switch (k.value) {
      case GitFolderValue::kAny: return "";
      case GitFolderValue::kBoolean:
        return boolean_value(e) ? "" : fmt::format("{} is not true or false", e.key);
      case GitFolderValue::kUrl:
        return e.has_value && plain_git_url(e.value)
                   ? ""
                   : fmt::format("{} names a program transport or an unknown scheme", e.key);
      case GitFolderValue::kRebase: {
        std::string l = to_lower(e.value);
        return boolean_value(e) || l == "merges"
                   ? ""
                   : fmt::format("{} is not true, false or merges", e.key);
      }
    }
  }
  return fmt::format("{} is not a key known to run nothing", e.key);
}

std::string git_config_unclean(const GitConfigFact& c, std::string_view name, GitFolderRole role) {
  if (c.kind == Kind::kMissing) return "";
  if (c.kind != Kind::kFile) return fmt::format("its {} is {}", name, kind_word(c.kind));
  if (!c.listed) return fmt::format("git could not read its {}", name);
  for (const auto& e : c.entries)
    if (std::string why = git_key_unclean(e, role); !why.empty())
      return fmt::format("its {} sets {}", name, why);
  return "";
}

std::string git_hooks_unclean(Kind kind, bool listed,
                              const std::vector<std::pair<std::string, Kind>>& entries) {
  if (kind == Kind::kMissing) return "";
  if (kind != Kind::kDir) return fmt::format("its hooks folder is {}", kind_word(kind));
  if (!listed) return "its hooks folder cannot be listed";
  for (const auto& [name, k] : entries) {
    if (k != Kind::kFile) return fmt::format("its hook {} is {}", name, kind_word(k));
    if (!ends_with(name, ".sample")) return fmt::format("it holds the hook {}", name);
  }
  return "";
}

std::string git_folder_unclean(const GitFolderFacts& f, GitFolderRole role) {
  if (f.kind != Kind::kDir) return fmt::format("it is {}", kind_word(f.kind));
  if (auto why = git_config_unclean(f.config, "config", role); !why.empty()) return why;
  if (auto why = git_config_unclean(f.config_worktree, "config.worktree", role); !why.empty())
    return why;
  if (auto why = git_hooks_unclean(f.hooks_kind, f.hooks_listed, f.hooks); !why.empty())
    return why;
  if (role == GitFolderRole::kWorktree) {
    if (f.commondir_kind != Kind::kFile)
      return fmt::format("its commondir is {}", f.commondir_kind == Kind::kMissing
                                                    ? "missing"
                                                    : kind_word(f.commondir_kind));
    if (!f.commondir_leads_home) return "its commondir leads to another repository";
    if (f.gitdir_kind != Kind::kFile && f.gitdir_kind != Kind::kMissing)
      return fmt::format("its gitdir is {}", kind_word(f.gitdir_kind));
  } else {
    if (f.commondir_kind != Kind::kMissing)
      return "it has a commondir, which sends git to another repository's config and hooks";
    if (f.gitdir_kind != Kind::kMissing) return "it has a gitdir file git does not expect there";
  }
  return "";
}

std::string git_file_unclean(std::string_view text, std::string* gitdir) {
  constexpr std::string_view kPrefix = "gitdir: ";
  if (text.substr(0, kPrefix.size()) != kPrefix) return "it is not a `gitdir:` line";
  // git strips every trailing newline and carriage return, then takes the rest whole.
  size_t end = text.size();
  while (end > kPrefix.size() && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
  std::string_view path = text.substr(kPrefix.size(), end - kPrefix.size());
  if (path.empty()) return "its `gitdir:` line names no folder";
  if (path.find_first_of(std::string_view("\n\r\0", 3)) != std::string_view::npos)
    return "it holds more than one line";
  if (gitdir) *gitdir = std::string(path);
  return "";
}

}  // namespace cordon
