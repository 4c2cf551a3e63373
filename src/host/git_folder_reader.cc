#include "host/git_folder_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/paths.h"
#include "core/strings.h"
#include "host/git_runner.h"
#include "host/path_info.h"

namespace cordon {

std::optional<std::string> read_regular_beneath(const Beneath& root, const std::string& rel,
                                                size_t max_bytes) {
  Fd fd(open_beneath(root.fd(), rel, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (fd.fd < 0) return std::nullopt;
  struct stat st;
  if (fstat(fd.fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::string out;
  char buf[8192];
  ssize_t n;
  while (out.size() <= max_bytes && (n = read(fd.fd, buf, sizeof buf)) > 0)
    out.append(buf, static_cast<size_t>(n));
  if (out.size() > max_bytes) return std::nullopt;
  return out;
}

GitConfigFact read_git_config(const Beneath& root, const std::string& rel, const EnvMap& env) {
  GitConfigFact c;
  BeneathStat st = root.lstat(rel);
  c.kind = st.error ? Kind::kOther : st.kind;
  if (c.kind != Kind::kFile) return c;
  auto text = read_regular_beneath(root, rel);
  if (!text) return c;  // listed stays false: not known clean
  if (text->empty()) {
    c.listed = true;
    return c;
  }
  auto out = run_git({"config", "--file", "-", "--list", "-z", "--no-includes"}, "/", env, {},
                     *text);
  if (!out.ok() || out->status != 0) return c;
  c.listed = true;
  c.entries = parse_git_config_list(out->out);
  return c;
}

void read_git_hooks(const Beneath& root, const std::string& rel, Kind& kind, bool& listed,
                    std::vector<std::pair<std::string, Kind>>& entries) {
  BeneathStat st = root.lstat(rel);
  kind = st.error ? Kind::kOther : st.kind;
  listed = true;
  if (kind != Kind::kDir) return;
  Fd d = root.open_dir(rel);
  if (d.fd < 0) {
    listed = false;
    return;
  }
  for (const auto& name : list_names_at(d.fd)) {
    struct stat hs;
    Kind k = Kind::kOther;
    if (fstatat(d.fd, name.c_str(), &hs, AT_SYMLINK_NOFOLLOW) == 0) k = kind_of(hs.st_mode);
    entries.push_back({name, k});
  }
}

GitFolderFacts read_git_folder(const Beneath& root, const std::string& rel,
                               const std::string& common_dir, const EnvMap& env) {
  GitFolderFacts f;
  BeneathStat st = root.lstat(rel);
  f.kind = st.error ? Kind::kOther : st.kind;
  if (f.kind != Kind::kDir) return f;
  f.config = read_git_config(root, rel + "/config", env);
  f.config_worktree = read_git_config(root, rel + "/config.worktree", env);
  read_git_hooks(root, rel + "/hooks", f.hooks_kind, f.hooks_listed, f.hooks);
  f.commondir_kind = root.lstat(rel + "/commondir").kind;
  f.gitdir_kind = root.lstat(rel + "/gitdir").kind;
  if (f.commondir_kind == Kind::kFile && !common_dir.empty()) {
    if (auto text = read_regular_beneath(root, rel + "/commondir", 4096)) {
      std::string target = *text;
      while (!target.empty() && (target.back() == '\n' || target.back() == '\r'))
        target.pop_back();
      std::string folder = path_join(root.root(), rel);
      f.commondir_leads_home =
          target.find('\n') == std::string::npos &&
          real_or_lexical(path_join(folder, target)) == real_or_lexical(common_dir);
    }
  }
  return f;
}

}  // namespace cordon
