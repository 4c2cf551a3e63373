#include "review/review.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>

#include "core/paths.h"
#include "core/strings.h"
#include "host/git_runner.h"
#include "review/blob_compare.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

std::vector<std::string> nul_list(const std::string& out) {
  std::vector<std::string> v;
  for (auto& s : split(out, '\0'))
    if (!s.empty()) v.push_back(std::move(s));
  return v;
}

Result<GitOutput> git_ok(const std::vector<std::string>& args, const std::string& project,
                         const EnvMap& env,
                         const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  // --no-replace-objects: refs/replace must not change what the review sees.
  std::vector<std::string> a = {"--no-replace-objects"};
  a.insert(a.end(), args.begin(), args.end());
  auto r = run_git(a, project, env, extra, {}, kReviewGitTimeout);
  if (!r.ok()) return r.error();
  if (r->status != 0)
    return make_error(ErrorKind::kGit,
                      fmt::format("git {} failed: {}", join(args, " "), trim(r->err)));
  return r;
}

}  // namespace

std::string review_record_path(const Folders& folders, const std::string& project,
                               const std::string& session) {
  if (!session.empty()) return path_join(folders.state, "review/session-" + session + ".json");
  return path_join(folders.state,
                   fmt::format("review/project-{:016x}.json", std::hash<std::string>{}(project)));
}

Result<ReviewRecord> review_start(const std::string& project, const EnvMap& env,
                                  const std::string& record_path) {
  auto head = git_ok({"rev-parse", "--verify", "HEAD^{commit}"}, project, env);
  if (!head.ok())
    return make_error(ErrorKind::kReview,
                      "cannot record the current commit: " + head.error().message +
                          ". `cordon review` needs a git repository with a commit.");
  auto ignored = git_ok({"ls-files", "-z", "--others", "--ignored", "--exclude-standard"},
                        project, env);
  if (!ignored.ok()) return ignored.error();
  ReviewRecord rec;
  rec.project = project;
  rec.commit = trim(head->out);
  rec.ignored = nul_list(ignored->out);
  rec.started = static_cast<long long>(std::time(nullptr));
  nlohmann::json j{{"project", rec.project}, {"commit", rec.commit}, {"ignored", rec.ignored},
                   {"started", rec.started}};
  if (auto s = make_dirs(path_parent(record_path), 0700); !s.ok()) return s.error();
  if (auto s = write_file_atomic(record_path, j.dump(), true); !s.ok()) return s.error();
  return rec;
}

Result<ReviewReport> review_run(const std::string& project, const EnvMap& env,
                                const std::string& record_path) {
  auto text = read_file(record_path, 256 << 20);
  if (!text.ok())
    return make_error(ErrorKind::kReview,
                      fmt::format("no review was started for this project ({}). Run "
                                  "`cordon review start` before the work.",
                                  record_path));
  ReviewRecord rec;
  try {
    auto j = nlohmann::json::parse(*text);
    rec.project = j.at("project");
    rec.commit = j.at("commit");
    rec.ignored = j.at("ignored").get<std::vector<std::string>>();
  } catch (...) {
    return make_error(ErrorKind::kReview,
                      fmt::format("the review record {} is damaged; run `cordon review "
                                  "start` again.",
                                  record_path));
  }
  ReviewReport r;
  r.commit = rec.commit;
  // A replace ref can make any object look like another: nothing after it can be trusted.
  auto refs = git_ok({"for-each-ref", "--format=%(refname)", "refs/replace"}, project, env);
  if (!refs.ok()) return refs.error();
  for (auto& l : split(refs->out, '\n'))
    if (!trim(l).empty()) r.replace_refs.push_back(trim(l));
  if (!r.replace_refs.empty()) return r;

  // A fresh index built from the recorded commit, in a temporary file: not the repo's index.
  char tmpl[] = "/tmp/cordon-review-index-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) return make_error(ErrorKind::kIo, "cannot create a temporary index file");
  close(fd);
  unlink(tmpl);  // git creates it; only the name is needed
  std::vector<std::pair<std::string, std::string>> idx = {{"GIT_INDEX_FILE", tmpl}};
  auto cleanup = [&] {
    unlink(tmpl);
    unlink((std::string(tmpl) + ".lock").c_str());
  };
  auto rt = git_ok({"read-tree", rec.commit}, project, env, idx);
  if (!rt.ok()) {
    cleanup();
    return rt.error();
  }
  // REV-1: compared by blob ids here, never through the project's filters or drivers.
  auto diff = changed_since(project, rec.commit, env);
  auto added = git_ok({"ls-files", "-z", "--others", "--exclude-standard"}, project, env, idx);
  auto ign = git_ok({"ls-files", "-z", "--others", "--ignored", "--exclude-standard"}, project,
                    env, idx);
  cleanup();
  if (!diff.ok()) return diff.error();
  if (!added.ok()) return added.error();
  if (!ign.ok()) return ign.error();
  r.changed = std::move(*diff);
  r.added = nul_list(added->out);
  std::set<std::string> before(rec.ignored.begin(), rec.ignored.end());
  for (const auto& f : nul_list(ign->out))
    if (!before.count(f)) r.added_ignored.push_back(f);
  r.limits = {
      "a change inside a file that was already ignored (in .venv/, node_modules/, build/ ...) "
      "shows nowhere",
      "submodules have their own index and are not covered",
      "tracked protected files (CLAUDE.md, workflows, .cargo/config.toml) and build files "
      "(Makefile, package.json, build.rs, conftest.py) run code the next time you build: read "
      "their changes above, not just their names"};
  return r;
}

std::string format_review(const ReviewReport& r) {
  std::string out;
  if (!r.replace_refs.empty()) {
    out += "STOP: this repository has refs/replace refs, which can make git show one object as "
           "another. A line you did not make means the work cannot be reviewed with git; "
           "inspect the files themselves:\n";
    for (const auto& x : r.replace_refs) out += "  " + x + "\n";
    return out;
  }
  out += fmt::format("review against commit {}\n", r.commit);
  auto section = [&](const char* title, const std::vector<std::string>& v) {
    out += fmt::format("\n{} ({}):\n", title, v.size());
    if (v.empty()) out += "  (none)\n";
    for (const auto& x : v) out += "  " + x + "\n";
  };
  section("tracked files changed since then", r.changed);
  section("files added", r.added);
  section("files added but ignored (check any new ignore rule)", r.added_ignored);
  out += "\nwhat this review cannot see:\n";
  for (const auto& l : r.limits) out += "  - " + l + "\n";
  return out;
}

}  // namespace cordon
