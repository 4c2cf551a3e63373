// PKG-1..4: the package-cache table, one test per tool, and the planner's cache rules.
#include "plan/cache_tools.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "fake_facts.h"
#include "plan/cache_rules.h"
#include "plan/planner.h"

namespace cordon {
namespace {

const CacheTool& tool(const std::string& name) {
  for (const auto& t : cache_tools())
    if (t.tool == name) return t;
  ADD_FAILURE() << "no cache tool " << name;
  static CacheTool none;
  return none;
}

const std::string kTools = "/home/u/.cache/cordon/packages/proj-0000000000000000/tools";

// What a sandboxed command of the tool sees: the variable's value in "project" mode.
std::string value_of(const std::string& variable, const EnvMap& start = {}) {
  EnvMap env = start;
  set_cache_variables(CacheMode::kProject, kTools, env);
  return env.value(variable);
}

void expect_variable(const std::string& name, const std::string& variable,
                     const std::string& folder, const std::string& home_path) {
  const CacheTool& t = tool(name);
  EXPECT_EQ(t.way, CacheWay::kVariable) << name;
  EXPECT_EQ(t.variable, variable) << name;
  EXPECT_EQ(t.home_path, home_path) << name;
  EXPECT_EQ(value_of(variable), kTools + "/" + folder) << name;
}

void expect_mount(const std::string& name, const std::string& home_path,
                  const std::string& anchor) {
  const CacheTool& t = tool(name);
  EXPECT_EQ(t.way, CacheWay::kMount) << name;
  EXPECT_EQ(t.home_path, home_path) << name;
  EXPECT_EQ(t.anchor, anchor) << name;
  EXPECT_TRUE(t.variable.empty()) << name;
}

// PKG-3: one test per tool: its variable (or the path mounted over) and its folder.
TEST(CacheTools, Npm) { expect_variable("npm", "npm_config_cache", "npm", "~/.npm"); }
TEST(CacheTools, Pnpm) {
  expect_variable("pnpm", "pnpm_config_store_dir", "pnpm-store", "~/.local/share/pnpm/store");
}
TEST(CacheTools, YarnV1) {
  expect_variable("yarn (v1)", "YARN_CACHE_FOLDER", "yarn", "~/.cache/yarn");
}
TEST(CacheTools, YarnBerry) {
  expect_variable("yarn (berry)", "YARN_GLOBAL_FOLDER", "yarn-berry", "~/.yarn/berry");
}
TEST(CacheTools, Bun) {
  expect_variable("bun", "BUN_INSTALL_CACHE_DIR", "bun", "~/.bun/install/cache");
}
TEST(CacheTools, Pip) { expect_variable("pip", "PIP_CACHE_DIR", "pip", "~/.cache/pip"); }
TEST(CacheTools, Uv) { expect_variable("uv", "UV_CACHE_DIR", "uv", "~/.cache/uv"); }
TEST(CacheTools, Poetry) {
  expect_variable("poetry", "POETRY_CACHE_DIR", "pypoetry", "~/.cache/pypoetry");
}
TEST(CacheTools, CargoRegistry) {
  expect_mount("cargo (registry)", "~/.cargo/registry", "~/.cargo");
}
TEST(CacheTools, CargoGit) { expect_mount("cargo (git)", "~/.cargo/git", "~/.cargo"); }
TEST(CacheTools, GoModules) {
  expect_variable("go (modules)", "GOMODCACHE", "go-mod", "~/go/pkg/mod");
}
TEST(CacheTools, GoBuild) {
  expect_variable("go (build)", "GOCACHE", "go-build", "~/.cache/go-build");
}
TEST(CacheTools, Maven) {
  const CacheTool& t = tool("maven");
  EXPECT_EQ(t.way, CacheWay::kVariable);
  EXPECT_EQ(t.home_path, "~/.m2/repository");
  EXPECT_EQ(value_of("MAVEN_OPTS"), "-Dmaven.repo.local=" + kTools + "/maven");
  // The user's own options stay; the later -D wins.
  EnvMap mine;
  mine.set("MAVEN_OPTS", "-Xmx2g");
  EXPECT_EQ(value_of("MAVEN_OPTS", mine), "-Xmx2g -Dmaven.repo.local=" + kTools + "/maven");
}
TEST(CacheTools, Gradle) { expect_variable("gradle", "GRADLE_USER_HOME", "gradle", "~/.gradle"); }
TEST(CacheTools, Ccache) { expect_variable("ccache", "CCACHE_DIR", "ccache", "~/.cache/ccache"); }
TEST(CacheTools, Sccache) {
  expect_variable("sccache", "SCCACHE_DIR", "sccache", "~/.cache/sccache");
}
TEST(CacheTools, NodeGyp) {
  expect_variable("node-gyp", "npm_package_config_node_gyp_devdir", "node-gyp",
                  "~/.cache/node-gyp");
}

TEST(CacheTools, EveryToolHasATestAndAFolderOfItsOwn) {  // PKG-3
  EXPECT_EQ(cache_tools().size(), 17u);                  // a new row needs its own test above
  std::set<std::string> folders;
  for (const auto& t : cache_tools()) {
    EXPECT_TRUE(folders.insert(t.folder).second) << t.folder;
    EXPECT_EQ(t.home_path.rfind("~/", 0), 0u) << t.tool;
  }
}

TEST(CacheTools, UserValuesAreReplacedInProjectModeOnly) {  // PKG-2, PKG-4
  EnvMap env;
  env.set("npm_config_cache", "/home/u/.npm");
  set_cache_variables(CacheMode::kProject, kTools, env);
  EXPECT_EQ(env.value("npm_config_cache"), kTools + "/npm");
  for (CacheMode m : {CacheMode::kShared, CacheMode::kOff}) {
    EnvMap e;
    e.set("npm_config_cache", "/home/u/.npm");
    set_cache_variables(m, kTools, e);
    EXPECT_EQ(e.value("npm_config_cache"), "/home/u/.npm");
    EXPECT_FALSE(e.get("PIP_CACHE_DIR").has_value());
  }
}

TEST(CacheTools, ProjectFolderIsStableAndPerProject) {  // PKG-2
  std::string a = project_cache_root("/home/u/.cache/cordon", "/home/u/proj");
  EXPECT_EQ(a, project_cache_root("/home/u/.cache/cordon", "/home/u/proj"));
  EXPECT_NE(a, project_cache_root("/home/u/.cache/cordon", "/srv/proj"));
  EXPECT_EQ(a.rfind("/home/u/.cache/cordon/packages/proj-", 0), 0u) << a;
  EXPECT_EQ(project_cache_tools("/home/u/.cache/cordon", "/home/u/proj"), a + "/tools");
}

// ---- the planner ----

struct CacheWorld : testing::FakeWorld {
  std::string tools;
  CacheWorld() {
    tools = project_cache_tools(facts.folders.cache, project);
    facts.caches.tools_dir = tools;
    for (const auto& t : cache_tools()) {
      facts.caches.own.push_back(PathInfo{});
      facts.caches.anchors.push_back(PathInfo{});
      facts.caches.own.back().path = expand_home(t.home_path, home);
    }
  }
  void has(const std::string& home_path, bool anchor_too = true) {
    for (size_t i = 0; i < cache_tools().size(); ++i) {
      const CacheTool& t = cache_tools()[i];
      if (t.home_path == home_path) {
        facts.caches.own[i] = testing::file_info(expand_home(home_path, home), Kind::kDir);
        if (anchor_too && !t.anchor.empty())
          facts.caches.anchors[i] = testing::file_info(expand_home(t.anchor, home), Kind::kDir);
      }
    }
  }
  Plan plan() {
    Request r;
    r.argv = {"npm", "install"};
    return make_plan(policy, facts, r);
  }
};

bool has_mount(const Plan& p, MountKind k, const std::string& src, const std::string& dst) {
  for (const auto& m : p.mounts)
    if (m.kind == k && m.src == src && m.dest == dst) return true;
  return false;
}

TEST(CacheRules, ProjectModeBindsCordonsFolderAndSetsTheVariables) {  // PKG-1, PKG-2
  CacheWorld w;
  Plan p = w.plan();
  ASSERT_FALSE(p.refused());
  EXPECT_TRUE(has_mount(p, MountKind::kBind, w.tools, w.tools));
  EXPECT_NE(std::find(p.writable_roots.begin(), p.writable_roots.end(), w.tools),
            p.writable_roots.end());
  EXPECT_EQ(p.env.value("npm_config_cache"), w.tools + "/npm");
  EXPECT_EQ(p.env.value("GOMODCACHE"), w.tools + "/go-mod");
  // The user's own caches stay read-only.
  for (const auto& m : p.mounts) EXPECT_NE(m.dest, "/home/u/.npm");
}

TEST(CacheRules, HiddenCacheFolderShowsOnlyTheMountPoint) {  // PKG-2, FS-13
  CacheWorld w;
  std::string cache = w.facts.folders.cache;
  w.facts.caches.cache_real = cache;
  w.facts.caches.view = project_cache_root(cache, w.project) + "/view";
  w.exists_hidden(tilde_path(cache, w.home), testing::file_info(cache, Kind::kDir));
  Plan p = w.plan();
  size_t hide = p.mounts.size(), bind = p.mounts.size();
  for (size_t i = 0; i < p.mounts.size(); ++i) {
    if (p.mounts[i].dest == cache) hide = i;
    if (p.mounts[i].dest == w.tools) bind = i;
  }
  ASSERT_LT(hide, p.mounts.size());
  ASSERT_LT(bind, p.mounts.size());
  EXPECT_EQ(p.mounts[hide].src, w.facts.caches.view);
  EXPECT_EQ(p.mounts[hide].kind, MountKind::kRoBind);
  EXPECT_LT(hide, bind);  // the project's caches are bound over the view's mount point
  // Another hidden folder still shows the empty folder.
  w.facts.caches.view.clear();
  p = w.plan();
  for (const auto& m : p.mounts) {
    if (m.dest == cache) {
      EXPECT_EQ(m.src, w.facts.empty_dir);
    }
  }
}

TEST(CacheRules, MountOnlyOverAToolTheUserHas) {  // PKG-3
  CacheWorld w;
  Plan p = w.plan();
  for (const auto& m : p.mounts) EXPECT_NE(m.dest, "/home/u/.cargo/registry");
  w.has("~/.cargo/registry");
  p = w.plan();
  EXPECT_TRUE(
      has_mount(p, MountKind::kBind, w.tools + "/cargo-registry", "/home/u/.cargo/registry"));
  EXPECT_FALSE(has_mount(p, MountKind::kBind, w.tools + "/cargo-git", "/home/u/.cargo/git"));
}

TEST(CacheRules, CredentialsNextToCachesStayHidden) {  // PKG-2
  CacheWorld w;
  w.policy.caches = CacheMode::kShared;
  w.has("~/.gradle");
  w.exists_hidden("~/.gradle/gradle.properties",
                  testing::file_info("/home/u/.gradle/gradle.properties"));
  Plan p = w.plan();
  size_t bind = p.mounts.size(), hide = p.mounts.size();
  for (size_t i = 0; i < p.mounts.size(); ++i) {
    if (p.mounts[i].dest == "/home/u/.gradle" && p.mounts[i].kind == MountKind::kBind) bind = i;
    if (p.mounts[i].dest == "/home/u/.gradle/gradle.properties") hide = i;
  }
  ASSERT_LT(bind, p.mounts.size());
  ASSERT_LT(hide, p.mounts.size());
  EXPECT_LT(bind, hide);  // the hidden file is mounted after, over the writable folder
  for (const char* e :
       {"~/.npmrc", "~/.cargo/credentials*", "~/.gradle/gradle.properties", "~/.m2/settings.xml"}) {
    bool listed = false;
    for (const auto& h : w.facts.hidden) listed = listed || h.entry == e;
    EXPECT_TRUE(listed) << e;
  }
}

TEST(CacheRules, SharedModeMakesTheUsersOwnCachesWritable) {  // PKG-4
  CacheWorld w;
  w.policy.caches = CacheMode::kShared;
  w.has("~/.npm");
  Plan p = w.plan();
  EXPECT_TRUE(has_mount(p, MountKind::kBind, "/home/u/.npm", "/home/u/.npm"));
  EXPECT_FALSE(has_mount(p, MountKind::kBind, w.tools, w.tools));
  EXPECT_FALSE(p.env.get("npm_config_cache").has_value());
  // An absent cache is not created.
  for (const auto& m : p.mounts) EXPECT_NE(m.dest, "/home/u/.cache/pip");
  EXPECT_NE(cache_mode_summary(CacheMode::kShared).find("poison your caches"), std::string::npos);
}

TEST(CacheRules, OffModeLeavesEverythingReadOnly) {  // PKG-4
  CacheWorld w;
  w.policy.caches = CacheMode::kOff;
  w.has("~/.npm");
  Plan p = w.plan();
  for (const auto& m : p.mounts) {
    EXPECT_NE(m.dest, "/home/u/.npm");
    EXPECT_NE(m.dest, w.tools);
  }
  EXPECT_FALSE(p.env.get("npm_config_cache").has_value());
  ASSERT_EQ(p.caches.size(), cache_tools().size());
  EXPECT_EQ(p.caches[0].state, "read-only");
}

TEST(CacheRules, PolicyReportListsEveryTool) {  // PKG-4
  CacheWorld w;
  Plan p = w.plan();
  ASSERT_EQ(p.caches.size(), cache_tools().size());
  EXPECT_EQ(p.caches[0].tool, "npm");
  EXPECT_EQ(p.caches[0].how, "npm_config_cache");
  EXPECT_EQ(p.caches[0].state, "project");
  EXPECT_EQ(p.caches[0].where.rfind("~/.cache/cordon/packages/proj-", 0), 0u) << p.caches[0].where;
}

TEST(CacheRules, AFolderThatCouldNotBeMadeIsAWarning) {  // PKG-2
  CacheWorld w;
  w.facts.caches.tools_dir.clear();
  w.facts.caches.error = "cannot create X (Permission denied)";
  Plan p = w.plan();
  ASSERT_FALSE(p.warnings.empty());
  EXPECT_NE(p.warnings.back().find("cannot create X"), std::string::npos);
}

TEST(CacheRules, SeatbeltLeavesAMountOnlyCacheReadOnlyAndSaysSo) {  // PKG-2, PKG-3, MAC-1
  CacheWorld w;
  w.has("~/.cargo/registry");
  w.facts.machine.sandbox_exec = "/usr/bin/sandbox-exec";
  Request r;
  r.argv = {"cargo", "fetch"};
  PlanOptions po;
  po.backend = Backend::kSeatbelt;
  Plan p = make_plan(w.policy, w.facts, r, po);
  ASSERT_FALSE(p.refused()) << p.refusal->message;
  const std::string own = w.home + "/.cargo/registry";
  // A profile cannot put cordon's folder over the user's: no mount of it is planned, so the
  // profile never makes the user's own cache writable either (PKG-2).
  for (const auto& m : p.mounts) EXPECT_NE(m.dest, own) << m.why;
  bool said = false;
  for (const auto& c : p.caches)
    if (c.tool == "cargo (registry)") {
      said = true;
      EXPECT_EQ(c.state.rfind("read-only: macOS cannot mount a folder over ~/.cargo/registry", 0),
                0u)
          << c.state;
    }
  EXPECT_TRUE(said);
  // The variable tools keep their project caches under Seatbelt.
  EXPECT_EQ(p.env.value("npm_config_cache"), w.tools + "/npm");
  EXPECT_TRUE(has_mount(p, MountKind::kBind, w.tools, w.tools));
  // Under bwrap the same world mounts cordon's folder over it.
  Plan b = w.plan();
  EXPECT_TRUE(has_mount(b, MountKind::kBind, w.tools + "/cargo-registry", own));
}

}  // namespace
}  // namespace cordon
