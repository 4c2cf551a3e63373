#include "host/git_facts.h"

#include <fstream>
#include <sstream>

#include "core/paths.h"
#include "core/strings.h"
#include "host/path_info.h"

namespace cordon {

GitFacts read_git_facts(const std::string& project, const EnvMap&, const std::string&) {
  GitFacts g;
  g.dot_git = path_join(project, ".git");
  PathInfo dg = read_path_info(g.dot_git);
  g.dot_git_kind = dg.kind;
  if (!dg.exists()) return g;
  if (dg.real_kind == Kind::kDir) {
    g.repo = true;
    g.git_dir = dg.real;
  } else if (dg.real_kind == Kind::kFile) {
    std::ifstream in(dg.real);
    std::string line;
    std::getline(in, line);
    if (starts_with(line, "gitdir:")) {
      std::string target = line.substr(7);
      while (!target.empty() && (target[0] == ' ' || target[0] == '\t')) target.erase(0, 1);
      while (!target.empty() && (target.back() == '\r' || target.back() == ' '))
        target.pop_back();
      std::string abs = path_join(path_parent(dg.real), target);
      PathInfo gd = read_path_info(abs);
      if (gd.real_kind == Kind::kDir) {
        g.repo = true;
        g.git_dir = gd.real;
      }
    }
  }
  g.common_dir = g.git_dir;
  return g;
}

}  // namespace cordon
