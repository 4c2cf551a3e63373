#include "file_rules/file_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "core/paths.h"
#include "core/strings.h"
#include "file_rules/credential_rules.h"
#include "plan/project_rules.h"

namespace cordon {

const char* to_string(FileTool t) {
  switch (t) {
    case FileTool::kRead:
      return "read_file";
    case FileTool::kWrite:
      return "write_file";
    case FileTool::kEdit:
      return "edit_file";
    case FileTool::kSearch:
      return "search";
  }
  return "?";
}

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::kAllow:
      return "allow";
    case Verdict::kAsk:
      return "ask";
    case Verdict::kRefuse:
      return "refuse";
  }
  return "?";
}

namespace {

bool has_glob(std::string_view s) { return s.find_first_of("*?") != std::string_view::npos; }

}  // namespace

std::string resolve_file_path(const FileContext& ctx, std::string_view path) {
  std::string p(path);
  if (p == "~" || starts_with(p, "~/")) p = expand_home(p, ctx.home);
  std::string abs;
  if (starts_with(p, "/")) {
    abs = normalize_path(p);
  } else {
    bool cwd_inside = !ctx.cwd.empty() && path_within(ctx.cwd, ctx.project);
    abs = path_join(cwd_inside ? ctx.cwd : ctx.project, p);
  }
  // FS-3: inside the sandbox, /tmp is the session's own folder, except where the project or a
  // writable root lives under the machine's /tmp (those stay at their own paths).
  if (!ctx.session_tmp.empty() && path_within(abs, "/tmp") && !path_within(abs, ctx.project) &&
      !path_within(abs, ctx.session_tmp)) {
    bool in_root = false;
    for (const auto& w : ctx.writable_roots)
      if (path_within(abs, w)) in_root = true;
    if (!in_root) abs = path_join(ctx.session_tmp, path_relative(abs, "/tmp"));
  }
  return abs;
}

const HiddenPath* hidden_match(const FileContext& ctx, std::string_view abs) {
  for (const auto& h : ctx.hidden) {
    if (!h.glob) {
      if (path_within(abs, h.path)) return &h;
      continue;
    }
    // A glob in the last component: the component of `abs` at that depth must match it.
    std::string parent = path_parent(h.path);
    if (abs == parent || !path_within(abs, parent)) continue;
    std::string rest = path_relative(abs, parent);
    std::string first = rest.substr(0, rest.find('/'));
    if (glob_match(path_base(h.path), first)) return &h;
  }
  return nullptr;
}

bool git_control_rel(std::string_view rel) {
  for (std::string_view f : {"config", "config.worktree", "commondir", "gitdir", "info/attributes",
                             "objects/info/alternates", "objects/info/http-alternates", "hooks"})
    if (rel == f) return true;
  if (starts_with(rel, "hooks/")) return true;
  // worktrees/NAME/anything: each worktree's HEAD, gitdir, commondir and config.
  if (starts_with(rel, "worktrees/") && rel.find('/', 10) != std::string_view::npos) return true;
  // modules/NAME/...: a submodule's git folder (NAME may hold slashes): every split counts.
  if (starts_with(rel, "modules/")) {
    for (size_t at = rel.find('/', 8); at != std::string_view::npos; at = rel.find('/', at + 1))
      if (git_control_rel(rel.substr(at + 1))) return true;
  }
  return false;
}

std::string git_control_file(const FileContext& ctx, std::string_view abs) {
  for (const auto& g : ctx.git_dirs) {
    if (g.empty() || abs == g || !path_within(abs, g)) continue;
    std::string rel = path_relative(abs, g);
    if (git_control_rel(rel)) return fmt::format("the git folder's {}", rel);
  }
  // Any `.git` on the way: a nested repository's, a worktree's `.git` file (`gitdir: ...`).
  if (path_base(abs) == ".git") return "a .git file or folder, which says where the repository is";
  size_t at = abs.rfind("/.git/");
  if (at != std::string_view::npos) {
    std::string_view rel = abs.substr(at + 6);
    if (git_control_rel(rel)) return fmt::format("the git folder's {}", rel);
  }
  return "";
}

std::vector<std::string> git_shape_folders(std::string_view abs) {
  std::vector<std::string> out;
  std::vector<std::string> comps;
  for (auto& c : split(abs, '/'))
    if (!c.empty() && c != ".") comps.push_back(std::move(c));
  std::string so_far = "/";
  for (size_t i = 0; i < comps.size(); ++i) {
    const bool last = i + 1 == comps.size();
    if ((comps[i] == "HEAD" && last) || ((comps[i] == "objects" || comps[i] == "refs") && !last))
      if (std::find(out.begin(), out.end(), so_far) == out.end()) out.push_back(so_far);
    so_far = path_join(so_far, comps[i]);
  }
  return out;
}

std::string git_shape_completed(const FileContext& ctx, std::string_view abs,
                                const std::vector<GitShape>& shapes) {
  for (GitShape s : shapes) {
    if (std::find(ctx.git_dirs.begin(), ctx.git_dirs.end(), s.folder) != ctx.git_dirs.end())
      continue;
    if (abs == path_join(s.folder, "HEAD")) s.head = true;
    if (path_within(abs, path_join(s.folder, "objects"))) s.objects = true;
    if (path_within(abs, path_join(s.folder, "refs"))) s.refs = true;
    if (s.head && s.objects && s.refs) return s.folder;
  }
  return "";
}

const LockedPath* locked_match(const FileContext& ctx, std::string_view abs) {
  for (const auto& l : ctx.locked) {
    if (abs == l.path) return &l;
    if (l.folder && path_within(abs, l.path)) return &l;
  }
  return nullptr;
}

bool in_writable_place(const FileContext& ctx, std::string_view abs) {
  if (path_within(abs, ctx.project)) return true;
  if (!ctx.session_tmp.empty() && path_within(abs, ctx.session_tmp)) return true;
  for (const auto& r : ctx.read_only_roots)
    if (path_within(abs, r)) return false;
  for (const auto& w : ctx.writable_roots)
    if (path_within(abs, w)) return true;
  return false;
}

bool in_proc_or_sys(std::string_view abs) {
  return path_within(abs, "/proc") || path_within(abs, "/sys");
}

Error refuse_not_regular(std::string_view shown, std::string_view abs) {
  return make_error(ErrorKind::kRefused,
                    fmt::format("refused: {} is not a regular file; the file tools work only on "
                                "regular files",
                                shown),
                    std::string(abs));
}

Error refuse_kernel_file(std::string_view shown, std::string_view abs) {
  return make_error(
      ErrorKind::kRefused,
      fmt::format("refused: {} is in /proc or /sys; the file tools do not read there", shown),
      std::string(abs));
}

Error refuse_too_large(std::string_view shown, std::string_view abs) {
  return make_error(ErrorKind::kRefused,
                    fmt::format("refused: {} is larger than 16 MiB; the file tools read files up "
                                "to 16 MiB",
                                shown),
                    std::string(abs));
}

FileDecision decide_file_access(const FileContext& ctx, const FileRequest& req,
                                const std::string& abs, const FileFacts& facts) {
  FileDecision d;
  const std::string shown = req.path.empty() ? abs : req.path;
  auto refuse = [&](ErrorKind code, std::string message) {
    d.verdict = Verdict::kRefuse;
    d.error = make_error(code, std::move(message), abs, 0);
    return d;
  };
  auto refuse_with = [&](Error e) {
    d.verdict = Verdict::kRefuse;
    d.error = std::move(e);
    return d;
  };
  const char* tool = to_string(req.tool);
  if (req.path.empty())
    return refuse(ErrorKind::kInvalid, fmt::format("{}: no path was given", tool));
  if (req.path.find('\0') != std::string::npos)
    return refuse(ErrorKind::kInvalid, fmt::format("{}: the path holds a NUL byte", tool));
  if (facts.err != 0)
    return refuse(ErrorKind::kIo, fmt::format("{}: {} cannot be examined ({}); nothing was done",
                                              tool, shown, std::strerror(facts.err)));

  const std::string real = facts.real.empty() ? abs : normalize_path(facts.real);
  d.target = real;
  if (path_within(real, ctx.project) && real != ctx.project)
    d.rel = path_relative(real, ctx.project);

  // FILE-3: a link inside the project that leads out of it is refused, naming where it leads.
  if (path_within(abs, ctx.project) && !path_within(real, ctx.project)) {
    if (facts.kind == Kind::kSymlink)
      return refuse(ErrorKind::kRefused,
                    fmt::format("refused: {} is a symlink leading out of the project, to {}; the "
                                "file tools do not follow links out of the project",
                                shown, real));
    return refuse(ErrorKind::kRefused,
                  fmt::format("refused: {} leads out of the project through a symlink, to {}; "
                              "the file tools do not follow links out of the project",
                              shown, real));
  }

  // FS-4, FILE-5: what the sandbox hides, the file tools neither read nor write.
  const HiddenPath* hidden = hidden_match(ctx, abs);
  if (!hidden) hidden = hidden_match(ctx, real);
  if (hidden) {  // AUD-2: with its violation, the message made of its rule
    api::Violation v{req.tool == FileTool::kWrite || req.tool == FileTool::kEdit ? "write" : "read",
                     real, "",
                     fmt::format("hidden from sandboxed commands ({}, {}); the file tools do not "
                                 "read or write hidden paths",
                                 hidden->entry, hidden->why),
                     "carry on without it; if the step needs it, ask the user to do it or to "
                     "change the hidden list in their config",
                     "cordon"};
    refuse(ErrorKind::kRefused, fmt::format("refused: {} is {}", shown, v.rule));
    d.error.violations.push_back(std::move(v));
    return d;
  }

  // FILE-1: kernel files first (a /proc file looks like a regular file of size 0).
  if (in_proc_or_sys(abs) || in_proc_or_sys(real) || facts.kernel_fs)
    return refuse_with(refuse_kernel_file(shown, abs));
  if (facts.dangling)
    return refuse(ErrorKind::kRefused,
                  fmt::format("refused: {} is a symlink to {}, which does not exist; the file "
                              "tools do not create files through a link",
                              shown, real));
  if (facts.real_kind == Kind::kMissing) {
    if (req.tool != FileTool::kWrite)
      return refuse(ErrorKind::kInvalid, fmt::format("{}: {} does not exist", tool, shown));
  } else if (!(facts.real_kind == Kind::kFile ||
               (req.tool == FileTool::kSearch && facts.real_kind == Kind::kDir))) {
    if (req.tool == FileTool::kSearch)
      return refuse(ErrorKind::kRefused,
                    fmt::format("refused: {} is neither a folder nor a regular file; "
                                "search works only on folders and regular files",
                                shown));
    return refuse_with(refuse_not_regular(shown, abs));
  }

  // FILE-2: read_file and edit_file never start on a file over the limit.
  if ((req.tool == FileTool::kRead || req.tool == FileTool::kEdit) &&
      facts.size > kFileToolMaxBytes)
    return refuse_with(refuse_too_large(shown, abs));

  // The asks. One question per call: its kind is the strongest reason, its text names them all.
  std::vector<std::string> reasons;
  std::optional<AskKind> kind;
  auto raise = [&](AskKind k, std::string why) {
    if (!kind || static_cast<int>(k) > static_cast<int>(*kind)) kind = k;
    reasons.push_back(std::move(why));
  };
  const bool writes = req.tool == FileTool::kWrite || req.tool == FileTool::kEdit;
  // FILE-4. edit_file asks too: whether an edit matches would tell the file's contents.
  if ((req.tool == FileTool::kRead || req.tool == FileTool::kEdit) &&
      ctx.approval_mode != ApprovalMode::kApproveAll &&
      (is_credential_path(abs) || is_credential_path(real)))
    raise(AskKind::kCredentialRead, "it reads a credential file");
  if (writes) {
    // FILE-5
    if (!in_writable_place(ctx, real))
      raise(AskKind::kWriteOutside, "it writes outside the project and the writable folders");
    // FILE-6: the protected list, `**/` entries included, by the path as given and as followed.
    bool prot = false;
    for (const std::string* p : {&abs, &real}) {
      if (path_within(*p, ctx.project) && *p != ctx.project &&
          is_protected_path(ctx.protected_entries, path_relative(*p, ctx.project)))
        prot = true;
    }
    if (prot)
      raise(AskKind::kProtectedWrite,
            "it changes a protected file (one that runs code "
            "or steers an agent later)");
    const LockedPath* lock = locked_match(ctx, abs);
    if (!lock) lock = locked_match(ctx, real);
    std::string control = git_control_file(ctx, abs);
    if (control.empty()) control = git_control_file(ctx, real);
    // A folder shaped like a git folder: `git --git-dir=g` or `git -C g` would use it as a
    // repository and run what its config names (issue 27).
    std::string shaped = git_shape_completed(ctx, real, facts.git_shapes);
    if (shaped.empty()) shaped = git_shape_completed(ctx, abs, facts.git_shapes);
    if (!shaped.empty())
      raise(AskKind::kProtectedWrite,
            fmt::format("it makes {} a git folder (HEAD beside objects/ and refs/), which git "
                        "would use as a repository and run what its config names",
                        shaped));
    if (lock)
      raise(AskKind::kProtectedWrite,
            fmt::format("it changes a git file that can make git run code ({})", lock->why));
    else if (!control.empty())
      raise(AskKind::kProtectedWrite,
            fmt::format("it changes a git file that decides what git runs or where the "
                        "repository is ({})",
                        control));
  }
  if (!kind) {
    d.verdict = Verdict::kAllow;
    return d;
  }
  Ask ask;
  ask.kind = *kind;
  ask.path = real;
  std::string where = shown == real ? shown : fmt::format("{} ({})", shown, real);
  ask.reason = fmt::format("{} on {}: {}", tool, where, join_sentence(reasons));
  if (req.approved && *req.approved == ask) {
    d.verdict = Verdict::kAllow;
    return d;
  }
  d.verdict = Verdict::kAsk;
  d.ask = std::move(ask);
  return d;
}

FileContext make_file_context(const Policy& policy, const Facts& facts) {
  FileContext ctx;
  ctx.project = normalize_path(facts.project);
  ctx.cwd = normalize_path(facts.cwd);
  ctx.home = normalize_path(facts.home);
  ctx.session_tmp = normalize_path(facts.session_tmp);
  for (const auto& w : facts.writable) {
    if (w.real.empty()) continue;  // absent: nothing to write there
    // The planner refuses a writable path that holds the home folder; never widen it here.
    if (!ctx.home.empty() && path_within(ctx.home, w.real)) continue;
    ctx.writable_roots.push_back(normalize_path(w.real));
  }
  for (const auto& c : facts.cordon_dirs) {
    if (!c.path.empty()) ctx.read_only_roots.push_back(normalize_path(c.path));
    if (!c.real.empty() && c.real != c.path) ctx.read_only_roots.push_back(normalize_path(c.real));
  }
  // FS-7: an entry that holds the project or its git folder stays visible.
  auto keeps_visible = [&](const std::string& p) {
    if (path_within(ctx.project, p)) return true;
    for (const std::string* g : {&facts.git.git_dir, &facts.git.common_dir})
      if (!g->empty() && path_within(*g, p)) return true;
    return false;
  };
  auto add_hidden = [&](const std::string& path, const std::string& entry, const std::string& why) {
    // An unset folder ("" joined to "logs") gives a relative path: it names nothing.
    if (!starts_with(path, "/")) return;
    std::string p = normalize_path(path);
    bool glob = has_glob(path_base(p));
    if (!glob && keeps_visible(p)) return;
    for (const auto& h : ctx.hidden)
      if (h.path == p) return;
    ctx.hidden.push_back(HiddenPath{p, entry, why, glob});
  };
  // The entries as configured (so a hidden path made after the session started is still
  // refused here), then what they matched at the start, links and their targets (FS-5).
  for (const auto& e : hide_entries(policy, facts.folders, facts.home)) {
    // cordon's own folders, when unset (a test, a library caller), name nothing: without this
    // an empty data folder would hide /logs and /sessions.
    if (e.why == "cordon's own records" && facts.folders.data.empty()) continue;
    if (starts_with(e.why, "cordon's config") && facts.folders.config_dir.empty() &&
        facts.folders.config_file.empty())
      continue;
    add_hidden(e.path, e.entry, e.why);
  }
  for (const auto& h : facts.hidden) {
    for (const auto& m : h.matches) {
      add_hidden(m.path, h.entry, h.why);
      add_hidden(m.real, h.entry, h.why);
    }
    for (const auto& l : h.links)  // FS-5: targets of links inside hidden folders
      if (link_target_kept_because(l.real, facts.home, facts.project).empty())
        add_hidden(l.real, h.entry, h.why + " (link target)");
  }
  for (const auto& c : facts.git_config_copies)  // FS-12: the original holds credentials
    add_hidden(c.path, c.shown, "git config with credentials");
  for (const auto& c : facts.home_config_copies)  // FS-4: the original holds a credential
    add_hidden(c.path, c.shown, "config with credentials");
  ctx.protected_entries = protected_entries(policy);
  for (const auto& l : facts.git.locks) {
    if (!l.info.path.empty())
      ctx.locked.push_back(LockedPath{normalize_path(l.info.path), l.why, l.folder});
    if (!l.info.real.empty() && l.info.real != l.info.path)
      ctx.locked.push_back(LockedPath{normalize_path(l.info.real), l.why, l.folder});
  }
  for (const std::string* g : {&facts.git.dot_git, &facts.git.git_dir, &facts.git.common_dir})
    if (!g->empty() && (*g)[0] == '/') ctx.git_dirs.push_back(normalize_path(*g));
  ctx.approval_mode = policy.approvals.mode;
  return ctx;
}

}  // namespace cordon
