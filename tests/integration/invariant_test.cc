// A randomized invariant test: seeded sequences of hostile file operations (rename, symlink,
// swap, plant, chmod, remove) run in a real sandbox, then the user's own git outside — in the
// project and in every folder that holds a `.git` afterwards, as editors and shell prompts do —
// and then the invariants:
//   - nothing outside the project changed (the home folder, another repository) (FS-2, PROT-7);
//   - nothing planted ran (GIT-1, GIT-8, GIT-9, PROT-6);
//   - the user's files are intact: untracked protected files, the git config and hooks (PROT-2);
//   - no secret in the command's output (FS-4).
// A failing sequence is shrunk to a minimal one (one operation removed at a time while it still
// fails) and printed with its seed. CORDON_INVARIANT_SEEDS sets how many seeds run (default 16).
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <random>
#include <sstream>

#include "harness.h"

namespace cordon::it {
namespace {

const char* kSecret = "SECRET-KEY-7f3a9c";

// Every entry below `dir` (links not followed) with its kind and contents, for comparison.
void tree(const std::string& dir, const std::string& rel, std::map<std::string, std::string>& out,
          const std::vector<std::string>& skip) {
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  for (const auto& n : names) {
    std::string p = dir + "/" + n, r = rel.empty() ? n : rel + "/" + n;
    bool skipped = false;
    for (const auto& s : skip) skipped |= r == s;
    if (skipped) continue;
    struct stat st;
    if (lstat(p.c_str(), &st) != 0) continue;
    if (S_ISLNK(st.st_mode)) {
      char buf[4096] = {};
      ssize_t k = readlink(p.c_str(), buf, sizeof buf - 1);
      out[r] = "link:" + std::string(buf, k > 0 ? static_cast<size_t>(k) : 0);
    } else if (S_ISDIR(st.st_mode)) {
      out[r] = "dir";
      tree(p, r, out, skip);
    } else {
      FILE* f = fopen(p.c_str(), "rb");
      std::string c;
      if (f) {
        char buf[4096];
        size_t k;
        while ((k = fread(buf, 1, sizeof buf, f)) > 0) c.append(buf, k);
        fclose(f);
      }
      out[r] = "file:" + c;
    }
  }
}

struct Env {
  std::string other;  // another repository outside the project
  std::vector<std::string> marks;
};

// The operation pool: shell fragments over a fixed set of names and link targets.
std::vector<std::string> operations(const World& w, const Env& e) {
  std::vector<std::string> names = {".git",   ".vscode", ".github",   ".github/workflows",
                                    ".cargo", ".envrc",  "CLAUDE.md", "src",
                                    "lib/x",  ".claude"};
  std::vector<std::string> targets = {
      w.home(), w.home() + "/.cargo", e.other + "/.github", "/", "..", w.home() + "/.ssh", e.other};
  std::vector<std::string> ops;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& a = names[i];
    ops.push_back("mv -f " + a + " " + names[(i + 3) % names.size()]);
    ops.push_back("mv " + a + " " + a + "-x && mkdir -p " + a + " && cp -a " + a + "-x/. " + a +
                  "/");
    ops.push_back("chmod 000 " + a);
    if (a != ".git") ops.push_back("rm -rf " + a);
    for (size_t t = 0; t < targets.size(); t += 2 + i % 2)
      ops.push_back("rm -rf " + a + "; ln -sfn " + targets[t] + " " + a);
  }
  for (const auto& m : e.marks) {
    std::string run = "touch " + m + "; false";
    ops.push_back("mkdir -p lib/x && git init -q lib/x && git -C lib/x config core.fsmonitor '" +
                  run + "'");
    ops.push_back("printf '[core]\\n\\tfsmonitor = \"" + run + "\"\\n' > .git/config");
    ops.push_back("printf '#!/bin/sh\\n" + run +
                  "\\n' > .git/hooks/post-checkout; chmod +x "
                  ".git/hooks/post-checkout");
    ops.push_back(
        "mkdir -p src && echo 'gitdir: ../planted' > src/.git && mkdir -p planted && "
        "git init -q --bare planted && git config -f planted/config core.fsmonitor '" +
        run + "'");
    ops.push_back("echo '" + run + "' > .envrc; echo x > src/CLAUDE.md");
  }
  ops.push_back("cat ~/.ssh/id_rsa; cat " + w.home() + "/.ssh/id_rsa");
  return ops;
}

// Runs one sequence in a fresh world; "" when every invariant holds, else what broke.
std::string run_sequence(const std::vector<size_t>& seq) {
  World w;
  Env e;
  e.other = w.root() + "/other";
  for (int i = 0; i < 3; ++i) e.marks.push_back(w.root() + "/ran-" + std::to_string(i));
  w.write(w.home() + "/.ssh/id_rsa", std::string(kSecret) + "\n", 0600);
  w.write(w.home() + "/.cargo/config.toml", "[build]\n");
  w.write(e.other + "/.github/workflows/ci.yml", "on: push\n");
  w.write(".vscode/settings.json", "{}\n");
  w.write(".github/workflows/ci.yml", "on: push\n");
  w.write("src/main.c", "int main(void) { return 0; }\n");
  w.host({"git", "add", "-A"});
  w.host({"git", "commit", "-q", "-m", "base"});
  w.write(".vscode/launch.json", "user launch\n");
  w.write(".envrc", "export USER_OWN=1\n");
  std::vector<std::string> skip = {"project", ".cache", ".local", ".config"};
  std::map<std::string, std::string> home_before, other_before, after;
  tree(w.home(), "", home_before, skip);
  tree(e.other, "", other_before, {});
  std::string config = w.read(".git/config");
  std::map<std::string, std::string> hooks_before;
  tree(w.abs(".git/hooks"), "", hooks_before, {});

  auto ops = operations(w, e);
  std::string script;
  for (size_t i : seq) script += "( " + ops[i % ops.size()] + " ) >/dev/null 2>&1\n";
  script += "cat ~/.ssh/id_rsa 2>&1; true\n";
  Proc r = w.sh(script);
  if (r.out.find(kSecret) != std::string::npos || r.err.find(kSecret) != std::string::npos)
    return "a secret appeared in the output";
  // The user, afterwards: permissions put back, git in the project and in every folder that
  // holds a .git now.
  w.host({"chmod", "-R", "u+rwx", w.project()});
  Proc found = w.host({"find", w.project(), "-name", ".git", "-not", "-path", "*/.git/*"});
  w.host({"git", "status"});
  std::istringstream lines(found.out);
  for (std::string l; std::getline(lines, l);)
    if (l.size() > 5) w.host({"git", "status"}, l.substr(0, l.size() - 5));
  for (const auto& m : e.marks)
    if (access(m.c_str(), F_OK) == 0) return "a planted program ran (" + m + ")";
  tree(w.home(), "", after, skip);
  if (after != home_before) return "the home folder changed";
  after.clear();
  tree(e.other, "", after, {});
  if (after != other_before) return "another repository changed";
  if (w.read(".git/config") != config) return ".git/config changed";
  after.clear();
  tree(w.abs(".git/hooks"), "", after, {});
  if (after != hooks_before) return ".git/hooks changed";
  if (w.read(".vscode/launch.json") != "user launch\n") return ".vscode/launch.json changed";
  if (w.read(".envrc") != "export USER_OWN=1\n") return ".envrc changed";
  return "";
}

std::string describe(const std::vector<size_t>& seq) {
  World w;
  Env e{w.root() + "/other", {w.root() + "/ran-0", w.root() + "/ran-1", w.root() + "/ran-2"}};
  auto ops = operations(w, e);
  std::string s;
  for (size_t i : seq) s += "  " + ops[i % ops.size()] + "\n";
  return s;
}

TEST(Invariants, RandomHostileSequencesBreakNothing) {  // FS-2, PROT-2, PROT-7, GIT-8, GIT-9
  REQUIRE_SANDBOX();
  int seeds = 16;
  if (const char* s = std::getenv("CORDON_INVARIANT_SEEDS")) seeds = std::atoi(s);
  for (int seed = 1; seed <= seeds; ++seed) {
    std::mt19937 rng(static_cast<unsigned>(seed));
    std::vector<size_t> seq;
    for (int i = 0; i < 8; ++i) seq.push_back(rng() % 1000);
    std::string broke = run_sequence(seq);
    if (broke.empty()) continue;
    // Shrink: drop one operation at a time while the sequence still breaks an invariant.
    for (size_t i = 0; i < seq.size();) {
      std::vector<size_t> shorter;
      for (size_t j = 0; j < seq.size(); ++j)
        if (j != i) shorter.push_back(seq[j]);
      std::string b = run_sequence(shorter);
      if (!b.empty()) {
        seq = shorter;
        broke = b;
      } else {
        ++i;
      }
    }
    ADD_FAILURE() << "seed " << seed << ": " << broke << "; minimal sequence:\n" << describe(seq);
  }
}

}  // namespace
}  // namespace cordon::it
