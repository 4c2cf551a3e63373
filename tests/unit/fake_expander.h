// A fake filesystem for the command policy's pathname expansion (CMD-2, CMD-4): the tests name
// the files that exist; globs match them as the host expander does (leading dots included,
// which the classifier filters as sh does). Header-only, for the unit tests.
#pragma once

#include <fnmatch.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "commands/expansion.h"
#include "commands/sensitive_paths.h"
#include "core/paths.h"
#include "core/strings.h"

namespace cordon::testing {

class FakeExpander : public Expander {
 public:
  // Files (and, ending in `/`, folders); every folder above each is made too.
  explicit FakeExpander(const std::vector<std::string>& paths) {
    for (auto p : paths) {
      bool dir = p.size() > 1 && p.back() == '/';
      if (dir) p.pop_back();
      (dir ? dirs_ : files_).insert(p);
      for (std::string d = path_parent(p); d != "/" && !d.empty(); d = path_parent(d))
        dirs_.insert(d);
    }
    dirs_.insert("/");
  }
  // A project with the usual files and no secrets in view (.env and .git are not matched by a
  // bare `*`), and an attacker's attack/ and g/ folders.
  static FakeExpander project() {
    return FakeExpander({"/home/u/proj/README.md",
                         "/home/u/proj/package.json",
                         "/home/u/proj/a.txt",
                         "/home/u/proj/b.txt",
                         "/home/u/proj/src/main.rs",
                         "/home/u/proj/src/app.py",
                         "/home/u/proj/src/lib.rs",
                         "/home/u/proj/build/",
                         "/home/u/proj/node_modules/",
                         "/home/u/proj/.git/",
                         "/home/u/proj/.env",
                         "/home/u/proj/dist/app.tar.gz",
                         "/home/u/.ssh/id_rsa",
                         "/etc/passwd",
                         "/etc/group",
                         "/proc/1/environ",
                         "/proc/1/status",
                         "/proc/1/task/1/environ",
                         "/proc/123/environ",
                         "/proc/cpuinfo",
                         // An attacker's files (issue 27): option-shaped names reached through a
                         // glob, and a folder shaped like a git folder.
                         "/home/u/proj/attack/--compress-program=sh",
                         "/home/u/proj/attack/--buffer-size=1k",
                         "/home/u/proj/attack/p.txt",
                         "/home/u/proj/attack/--output=victim",
                         "/home/u/proj/attack/victim",
                         "/home/u/proj/attack/-n",
                         "/home/u/proj/g/HEAD",
                         "/home/u/proj/g/config",
                         "/home/u/proj/g/objects/",
                         "/home/u/proj/g/refs/heads/"});
  }
  void add(const std::string& p) { *this = FakeExpander(all_plus(p)); }

  Matches glob(const std::string& pattern, size_t limit) const override {
    Matches m;
    const bool dirs_only = pattern.size() > 1 && pattern.back() == '/';
    std::vector<std::string> now = {"/"};
    for (auto c : path_components(pattern)) {
      std::vector<std::string> next;
      for (const auto& d : now)
        for (const auto& e : entries(d))
          if (fnmatch(std::string(c).c_str(), path_base(e).c_str(), 0) == 0) next.push_back(e);
      now = std::move(next);
    }
    for (const auto& n : now) {
      if (dirs_only && !dirs_.count(n)) continue;
      if (m.paths.size() >= limit) {
        m.complete = false;
        break;
      }
      m.paths.push_back(dirs_only ? n + "/" : n);
    }
    return m;
  }

 private:
  std::vector<std::string> entries(const std::string& d) const {
    std::vector<std::string> out;
    for (const auto* set : {&files_, &dirs_})
      for (const auto& p : *set)
        if (p != "/" && path_parent(p) == d) out.push_back(p);
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> all_plus(const std::string& p) const {
    std::vector<std::string> v(files_.begin(), files_.end());
    for (const auto& d : dirs_) v.push_back(d + "/");
    v.push_back(p);
    return v;
  }
  std::set<std::string> files_, dirs_;
};

}  // namespace cordon::testing
