// PKG-1..5 with real tools: npm installs real packages from the npm registry inside
// `cordon run --network`, a second install is served offline from cordon's cache, and a mocha
// suite that starts HTTP servers on loopback passes inside as outside; a CMake project builds
// and passes ctest inside, its second build served by ccache from cordon's cache. The user's own
// caches are never written.
#include <sys/stat.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "harness.h"
#include "test_paths.h"

namespace cordon::it {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(test_source_dir() + "/tests/data/npm_project/" + name,
                   std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_npm_project(const World& w) {
  for (const char* f :
       {"package.json", "package-lock.json", "app.js", ".mocharc.json", "test/app.test.js"}) {
    std::string text = fixture(f);
    ASSERT_FALSE(text.empty()) << "tests/data/npm_project/" << f << " is missing or unreadable";
    w.write(f, text);
  }
}

bool on_path(const std::string& program) {
  return run_program({"/bin/sh", "-c", "command -v " + program},
                     {{"PATH", "/usr/local/bin:/usr/bin:/bin"}}, "/")
             .status == 0;
}

// The registry is the one outside host these machines reach; a machine without it skips.
bool registry_reachable(const World& w) {
  // npm trusts the system's bundle (Debian's /usr/etc/npmrc cafile); node alone needs telling.
  Proc r = w.host({"env", "NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt", "node", "-e",
                   "require('https').get('https://registry.npmjs.org/express', "
                   "r => process.exit(r.statusCode === 200 ? 0 : 1))"
                   ".on('error', () => process.exit(1)).setTimeout(15000, () => process.exit(1))"});
  return r.status == 0;
}

int passing(const std::string& out) {
  std::smatch m;
  static const std::regex re("([0-9]+) passing");
  return std::regex_search(out, m, re) ? std::stoi(m[1]) : -1;
}

TEST(RealTools, NpmInstallsFromTheRegistryIntoCordonsCacheAndMochaPasses) {  // PKG-1, PKG-2
  REQUIRE_SANDBOX();
  if (!on_path("npm") || !on_path("node")) GTEST_SKIP() << "node and npm are not installed";
  World w;
  write_npm_project(w);
  if (!registry_reachable(w)) GTEST_SKIP() << "registry.npmjs.org cannot be reached from here";
  Proc r = w.cordon({"run", "--network", "--", "npm", "install", "--no-audit", "--no-fund"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(w.exists("node_modules/express/package.json"));
  EXPECT_FALSE(w.exists(w.home() + "/.npm")) << "the user's own npm cache was written";
  // PKG-2: the cache is cordon's, for this project, and outlives the command.
  Proc list = w.cordon({"cache"});
  EXPECT_EQ(list.status, 0) << list.err;
  EXPECT_NE(list.out.find(w.project()), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("MiB"), std::string::npos) << list.out;

  // The same lock file again, without the network: served from cordon's cache.
  w.host({"rm", "-rf", "node_modules"});
  r = w.cordon({"run", "--", "npm", "ci", "--offline", "--no-audit", "--no-fund"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(w.exists("node_modules/mocha/package.json"));

  // The suite starts HTTP servers on loopback: the same tests pass inside and outside.
  Proc in = w.cordon({"run", "--", "node", "node_modules/.bin/mocha", "--reporter", "dot"});
  Proc out = w.host({"node", "node_modules/.bin/mocha", "--reporter", "dot"});
  EXPECT_EQ(in.status, 0) << in.out << in.err;
  EXPECT_EQ(out.status, 0) << out.out << out.err;
  EXPECT_EQ(passing(in.out), 31) << in.out;
  EXPECT_EQ(passing(in.out), passing(out.out)) << out.out;
  EXPECT_FALSE(w.exists(w.home() + "/.npm"));

  // PKG-5: cleaning removes this project's caches; the next offline install has nothing.
  r = w.cordon({"cache", "clean"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("removed"), std::string::npos) << r.out;
  list = w.cordon({"cache"});
  EXPECT_EQ(list.out.find(w.project()), std::string::npos) << list.out;
  w.host({"rm", "-rf", "node_modules"});
  r = w.cordon({"run", "--", "npm", "ci", "--offline", "--no-audit", "--no-fund"});
  EXPECT_NE(r.status, 0) << "an offline install succeeded after `cordon cache clean`";
}

const char* kCMakeLists = R"(cmake_minimum_required(VERSION 3.16)
project(adder C)
enable_testing()
add_library(adder adder.c)
add_executable(adder_test adder_test.c)
target_link_libraries(adder_test adder)
add_test(NAME adds COMMAND adder_test 2 3 5)
add_test(NAME adds_negative COMMAND adder_test -4 1 -3)
)";
const char* kAdder = "int add(int a, int b) { return a + b; }\n";
const char* kAdderTest = R"(#include <stdio.h>
#include <stdlib.h>
int add(int a, int b);
int main(int argc, char** argv) {
  if (argc != 4) return 2;
  int got = add(atoi(argv[1]), atoi(argv[2]));
  if (got != atoi(argv[3])) { fprintf(stderr, "got %d\n", got); return 1; }
  return 0;
}
)";

TEST(RealTools, CMakeBuildAndCtestWithCcacheInCordonsCache) {  // PKG-1 (ccache)
  REQUIRE_SANDBOX();
  for (const char* p : {"cmake", "ctest", "cc", "make"})
    if (!on_path(p)) GTEST_SKIP() << p << " is not installed";
  World w;
  w.write("CMakeLists.txt", kCMakeLists);
  w.write("adder.c", kAdder);
  w.write("adder_test.c", kAdderTest);
  std::string build =
      "cmake -S . -B build -DCMAKE_C_COMPILER_LAUNCHER=ccache >/dev/null && "
      "cmake --build build >/dev/null && ctest --test-dir build 2>&1 | tail -3";
  bool ccache = on_path("ccache");
  if (!ccache)
    build =
        "cmake -S . -B build >/dev/null && cmake --build build >/dev/null && "
        "ctest --test-dir build 2>&1 | tail -3";
  Proc r = w.sh(build);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("100% tests passed, 0 tests failed out of 2"), std::string::npos) << r.out;
  if (ccache) {
    // The second build of the same sources: ccache hits in cordon's cache for this project.
    r = w.sh("rm -rf build && " + build + " && ccache --print-stats");
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex("direct_cache_hit\t([0-9]+)"))) << r.out;
    EXPECT_GE(std::stoi(m[1]), 2) << r.out;
    EXPECT_FALSE(w.exists(w.home() + "/.cache/ccache"));
    EXPECT_FALSE(w.exists(w.home() + "/.ccache"));
  }
  // The same outside: the same tests pass.
  w.host({"rm", "-rf", "build"});
  Proc out = w.host({"/bin/sh", "-c",
                     "cmake -S . -B build >/dev/null && cmake --build build >/dev/null && "
                     "ctest --test-dir build 2>&1 | tail -3"});
  EXPECT_NE(out.out.find("100% tests passed, 0 tests failed out of 2"), std::string::npos)
      << out.out;
}

TEST(RealTools, CacheModesAsAUserSeesThem) {  // PKG-3, PKG-4
  REQUIRE_SANDBOX();
  World w;
  w.write(w.home() + "/.cache/pip/kept", "mine\n");
  // "project": the variable points into cordon's folder; the user's own cache stays read-only.
  Proc r = w.sh(
      "echo \"$PIP_CACHE_DIR\"; mkdir -p \"$PIP_CACHE_DIR/http\" && echo ok; "
      "touch \"$HOME/.cache/pip/planted\" 2>/dev/null || echo refused");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(w.home() + "/.cache/cordon/packages/project-"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ok\nrefused\n"), std::string::npos) << r.out;
  EXPECT_FALSE(w.exists(w.home() + "/.cache/pip/planted"));
  // PKG-3: nothing is made in the home for tools the user does not have.
  for (const char* p : {"/.npm", "/.cargo", "/go", "/.m2", "/.gradle", "/.cache/yarn"})
    EXPECT_FALSE(w.exists(w.home() + p)) << p;
  Proc pol = w.cordon({"policy"});
  EXPECT_NE(pol.out.find("package caches ([sandbox] caches = \"project\")"), std::string::npos)
      << pol.out;
  EXPECT_NE(pol.out.find("PIP_CACHE_DIR"), std::string::npos) << pol.out;

  // "shared": the user's own cache is writable, and `cordon policy` says what that risks.
  w.config("[sandbox]\ncaches = \"shared\"\n");
  pol = w.cordon({"policy"});
  EXPECT_NE(pol.out.find("a sandboxed command can then poison your caches"), std::string::npos)
      << pol.out;
  r = w.sh("echo \"[$PIP_CACHE_DIR]\"; touch \"$HOME/.cache/pip/shared\" && echo written");
  EXPECT_EQ(r.out, "[]\nwritten\n") << r.err;

  // "off": read-only, as before.
  w.config("[sandbox]\ncaches = \"off\"\n");
  r = w.sh("echo \"[$PIP_CACHE_DIR]\"; touch \"$HOME/.cache/pip/off\" 2>/dev/null || echo refused");
  EXPECT_EQ(r.out, "[]\nrefused\n") << r.err;
}

}  // namespace
}  // namespace cordon::it
