// LL-1: `[sandbox] backend = "auto"` where bubblewrap cannot make namespaces. Each test runs
// cordon under tests/standin/no_userns (Docker's default seccomp profile's refusals: unshare,
// clone with namespace flags, clone3, mount), so the fallback is reached on any machine.
#include <linux/landlock.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "harness.h"

namespace cordon::it {
namespace {

bool landlock_serves() {
  return syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION) >= 4;
}

#define REQUIRE_FALLBACK()                                                                \
  do {                                                                                    \
    const char* must = std::getenv("CORDON_MUST_WORK");                                   \
    const bool need = must && std::string(must) == "1";                                   \
    if (!landlock_serves()) {                                                             \
      if (need) FAIL() << "Landlock ABI 4 is unavailable";                                \
      GTEST_SKIP() << "Landlock ABI 4 is unavailable";                                    \
    }                                                                                     \
    if (access(no_userns_binary().c_str(), X_OK) != 0) {                                  \
      if (need) FAIL() << "the stand-in " << no_userns_binary() << " is missing";         \
      GTEST_SKIP() << "the stand-in " << no_userns_binary() << " is missing";             \
    }                                                                                     \
  } while (0)

// A world whose cordon runs where namespaces are refused; its config says `setting`.
struct ContainerWorld : World {
  explicit ContainerWorld(const std::string& setting = "auto") {
    config("[sandbox]\nbackend = \"" + setting + "\"\n");
    wrapper = {no_userns_binary()};
  }
};

TEST(BackendFallback, AutoRunsUnderLandlockAndSaysWhy) {  // LL-1, FS-2
  REQUIRE_FALLBACK();
  ContainerWorld w;
  w.write(w.home() + "/outside.txt", "original\n");
  Proc r = w.sh("echo made > made.txt; echo changed > \"$HOME/outside.txt\"; echo done");
  EXPECT_EQ(r.out, "done\n") << r.err;
  EXPECT_EQ(w.read("made.txt"), "made\n");
  EXPECT_EQ(w.read(w.home() + "/outside.txt"), "original\n");
  // Said at the session's start: which backend, why, and how to refuse instead.
  EXPECT_NE(r.err.find("Landlock + seccomp because bubblewrap cannot run here"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("backend = \"bwrap\" to refuse"), std::string::npos) << r.err;
}

TEST(BackendFallback, PolicyAndProbeNameTheFallbackAndItsLimits) {  // LL-1
  REQUIRE_FALLBACK();
  ContainerWorld w;
  Proc r = w.cordon({"policy", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["backend"], "landlock");
  EXPECT_EQ(j["backend_detail"]["fallback_from"]["backend"], "bubblewrap");
  EXPECT_FALSE(j["backend_detail"]["fallback_from"]["cause"].get<std::string>().empty());
  EXPECT_FALSE(j["backend_detail"]["gives_up"].empty());
  r = w.cordon({"probe", "--json"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["backend"], "landlock");
  EXPECT_EQ(j["fallback_from"]["backend"], "bubblewrap");
  bool bwrap_failed = false;
  for (const auto& c : j["fallback_from"]["checks"])
    if (c["name"] == "bwrap_runs") bwrap_failed = c["ok"] == false;
  EXPECT_TRUE(bwrap_failed) << r.out;
  EXPECT_FALSE(j["gives_up"].empty());
  r = w.cordon({"probe"});
  EXPECT_NE(r.out.find("bubblewrap cannot run here"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gives up"), std::string::npos) << r.out;
}

TEST(BackendFallback, BwrapSettingKeepsTheRefusal) {  // LL-1, MODE-4
  REQUIRE_FALLBACK();
  ContainerWorld w("bwrap");
  Proc r = w.sh("echo ran > ran.txt");
  EXPECT_NE(r.status, 0);
  EXPECT_FALSE(w.exists("ran.txt"));
  EXPECT_NE(r.err.find("the sandbox is unavailable"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Landlock"), std::string::npos) << r.err;
}

// The failure is kept for this boot so that each command of a container does not start a
// failing bwrap; it must not make the machine's own commands (outside the container's filter,
// same cache folder) fall back.
TEST(BackendFallback, AKeptFailureDoesNotWeakenCommandsOutsideTheContainer) {  // LL-1
  REQUIRE_FALLBACK();
  REQUIRE_SANDBOX();
  ContainerWorld w;
  Proc r = w.sh("true");
  ASSERT_EQ(r.status, 0) << r.err;
  r = w.sh("true");  // the kept failure: straight to Landlock, still said
  EXPECT_EQ(r.status, 0) << r.err;
  w.wrapper.clear();
  r = w.cordon({"policy", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["backend"], "bubblewrap") << r.out;
  r = w.sh("echo ok");
  EXPECT_EQ(r.out, "ok\n") << r.err;
  EXPECT_EQ(r.err.find("Landlock"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cordon::it
