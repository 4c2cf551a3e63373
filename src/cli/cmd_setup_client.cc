// `cordon setup <client> [--print] [--project]` (DIST-4): the face of integrations/setup_plan:
// reads the client's files, prints the plan, or carries it out: the client's own command when
// it is installed, else the file edits, each file backed up beside itself first.
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"
#include "integrations/setup_plan.h"
#include "process/process.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

// The project: the nearest folder up from here holding .git, else here.
std::string project_of(const std::string& cwd) {
  std::string d = cwd;
  for (;;) {
    struct stat st;
    if (::lstat((d + "/.git").c_str(), &st) == 0) return d;
    size_t slash = d.rfind('/');
    if (slash == 0 || slash == std::string::npos) return cwd;
    d = d.substr(0, slash);
  }
}

std::optional<std::string> read_existing(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  auto r = read_file(path, 64 << 20);
  if (!r.ok()) return std::string();  // unreadable: planned against as empty, then refused
  return *r;
}

// `<path>.cordon-backup`, or with .1, .2, ... when that exists: an old backup is never replaced.
Result<std::string> back_up(const std::string& path, const std::string& content, mode_t mode) {
  for (int n = 0; n < 100; ++n) {
    std::string b = path + ".cordon-backup" + (n ? "." + std::to_string(n) : "");
    auto st = write_file_exclusive(b, content, mode);
    if (st.ok()) return b;
    if (st.error().sys_errno != EEXIST) return st.error();
  }
  return make_error(ErrorKind::kInvalid, "too many backups of " + path + " already; remove some");
}

Status carry_out(const SetupStep& s, const CliContext& ctx) {
  if (s.kind == SetupStep::kRun) {
    ProcessSpec p;
    p.path = resolve_command(s.argv[0], ctx.env, ctx.cwd);
    p.argv = s.argv;
    p.env = ctx.env;
    p.new_process_group = false;
    auto r = run_process(p);
    if (!r.ok()) return r.error();
    if (r->exit_code != 0)
      return make_error(ErrorKind::kInvalid,
                        fmt::format("`{}` failed (exit status {})", s.argv[0], r->exit_code));
    return ok_status();
  }
  // The file must be as it was when planned: never write over a change made meanwhile.
  auto now = read_existing(s.path);
  if (now.value_or("") != s.before || now.has_value() == s.creates)
    return make_error(ErrorKind::kInvalid,
                      s.path + " changed while cordon was planning; run it again");
  mode_t mode = 0644;
  if (now) {
    struct stat st;
    if (::stat(s.path.c_str(), &st) == 0) mode = st.st_mode & 07777;
    auto b = back_up(s.path, *now, mode);
    if (!b.ok()) return b.error();
    std::printf("backed up %s to %s\n", s.path.c_str(), b->c_str());
  } else {
    auto d = make_dirs(s.path.substr(0, s.path.rfind('/')), 0755);
    if (!d.ok()) return d;
  }
  // A settings file that is a link (a dotfiles checkout) stays one: its target is written.
  std::string target = s.path;
  char real[PATH_MAX];
  if (now && ::realpath(s.path.c_str(), real)) target = real;
  return write_file_atomic(target, s.after, true, mode);
}

}  // namespace

int cmd_setup_client(const CliContext& ctx, const std::string& client, bool print_only,
                     bool project, const std::string& project_dir) {
  auto c = setup_client(client);
  if (!c) {
    print_error("no client named " + client);
    return 2;
  }
  SetupInput in;
  in.client = *c;
  in.project = project;
  in.home = ctx.home;
  const std::string xdg = ctx.env.value("XDG_CONFIG_HOME");
  in.config_home = !xdg.empty() && xdg.front() == '/' ? xdg : ctx.home + "/.config";
  if (project && !project_dir.empty()) {
    // DIST-4: `--project DIR`, as `run` and `policy` take it; relative to here.
    std::string dir = project_dir.front() == '/' ? project_dir : ctx.cwd + "/" + project_dir;
    char real[PATH_MAX];
    struct stat st;
    if (!::realpath(dir.c_str(), real) || ::stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
      print_error("--project " + project_dir + ": no such folder");
      return 2;
    }
    in.project_dir = real;
  } else {
    in.project_dir = project_of(ctx.cwd);
  }
  in.cordon = ctx.exe;
  in.has_command = [&ctx](const std::string& prog) {
    return !resolve_command(prog, ctx.env, ctx.cwd).empty();
  };
  in.read = read_existing;
  SetupPlan plan = plan_setup(in);
  if (print_only) {
    std::fputs(describe_setup(plan).c_str(), stdout);
    return plan.registered ? 0 : 1;
  }
  for (const auto& s : plan.steps) {
    auto st = carry_out(s, ctx);
    if (!st.ok()) {
      print_error(
          fmt::format("{} (nothing after this step was done): {}", s.what, st.error().message));
      return 1;
    }
    std::printf("%s: %s\n", s.kind == SetupStep::kRun ? "ran" : (s.creates ? "created" : "edited"),
                s.kind == SetupStep::kRun ? s.argv[0].c_str() : s.path.c_str());
  }
  if (plan.steps.empty()) std::printf("cordon is set up for %s already.\n", client.c_str());
  for (const auto& n : plan.notes) std::printf("note: %s\n", n.c_str());
  std::printf("undo: %s\n", plan.undo.c_str());
  return plan.registered ? 0 : 1;
}

}  // namespace cordon
