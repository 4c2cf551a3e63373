// The backend chosen at one place (MAC-5). The Seatbelt launcher's pure half is checked in
// tests/integration/seatbelt_launch_test.cc (the launch layer, above the pure archive).
#include "render/backend_choice.h"

#include "render/backend_limits.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

EnvMap env_of(std::vector<std::pair<std::string, std::string>> vars) {
  EnvMap e;
  e.vars = std::move(vars);
  return e;
}

TEST(BackendChoice, EachSystemHasItsOwn) {  // MAC-5
  auto linux_ = choose_backend(env_of({}), false);
  ASSERT_TRUE(linux_.ok());
  EXPECT_EQ(linux_->backend, Backend::kBwrap);
  EXPECT_FALSE(linux_->forced);
  EXPECT_EQ(linux_->sandbox_exec, "");
  auto mac = choose_backend(env_of({}), true);
  ASSERT_TRUE(mac.ok());
  EXPECT_EQ(mac->backend, Backend::kSeatbelt);
  EXPECT_EQ(mac->sandbox_exec, "/usr/bin/sandbox-exec");
  EXPECT_EQ(backend_title(*linux_), "bubblewrap (Linux)");
}

TEST(BackendChoice, SeatbeltCanBeForcedAnywhere) {  // MAC-5
  auto c = choose_backend(env_of({{"CORDON_BACKEND", "seatbelt"}}), false);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->backend, Backend::kSeatbelt);
  EXPECT_TRUE(c->forced);
  EXPECT_EQ(c->sandbox_exec, "/usr/bin/sandbox-exec");
  EXPECT_FALSE(c->stand_in);
  // On a Mac (and in the macOS build) Seatbelt is the backend anyway: nothing to name.
  EXPECT_EQ(backend_title(*c).find("forced by CORDON_BACKEND") != std::string::npos, !kOnMacos);
}

TEST(BackendChoice, AutoStartsFromBubblewrapAndMayFallBack) {  // LL-1
  auto auto_ = choose_backend(env_of({}), false, BackendSetting::kAuto);
  ASSERT_TRUE(auto_.ok());
  EXPECT_EQ(auto_->backend, Backend::kBwrap);  // the probes decide (settle_backend)
  EXPECT_TRUE(auto_->may_fall_back);
  // Forced or named, or on macOS: never a fallback.
  EXPECT_FALSE(choose_backend(env_of({}), false, BackendSetting::kBwrap)->may_fall_back);
  EXPECT_FALSE(choose_backend(env_of({}), false, BackendSetting::kLandlock)->may_fall_back);
  EXPECT_FALSE(choose_backend(env_of({{"CORDON_BACKEND", "bwrap"}}), false)->may_fall_back);
  EXPECT_FALSE(choose_backend(env_of({}), true)->may_fall_back);
}

TEST(BackendChoice, AFallbackSaysWhyAndHowToRefuseInstead) {  // LL-1
  BackendChoice c = fall_back_to_landlock(*choose_backend(env_of({}), false), "no namespaces");
  EXPECT_EQ(c.backend, Backend::kLandlock);
  EXPECT_FALSE(c.may_fall_back);
  EXPECT_FALSE(c.configured);
  EXPECT_NE(backend_title(c).find("bubblewrap cannot run here: no namespaces"), std::string::npos);
  const std::string notice = backend_notice(c);
  EXPECT_NE(notice.find("bubblewrap cannot run here (no namespaces)"), std::string::npos);
  EXPECT_NE(notice.find("backend = \"bwrap\" to refuse"), std::string::npos);
  // Configured, it names the setting instead.
  BackendChoice set = *choose_backend(env_of({}), false, BackendSetting::kLandlock);
  EXPECT_NE(backend_notice(set).find("[sandbox] backend = \"landlock\""), std::string::npos);
  EXPECT_EQ(backend_notice(*choose_backend(env_of({}), false)), "");
  EXPECT_STREQ(backend_name(Backend::kLandlock), "landlock");
  EXPECT_STREQ(backend_name(Backend::kBwrap), "bubblewrap");
}

TEST(BackendChoice, LandlockOnlyWhenConfiguredOrFallenBackTo) {  // LL-1
  auto auto_ = choose_backend(env_of({}), false, BackendSetting::kAuto);
  ASSERT_TRUE(auto_.ok());
  EXPECT_EQ(auto_->backend, Backend::kBwrap);
  auto ll = choose_backend(env_of({}), false, BackendSetting::kLandlock);
  ASSERT_TRUE(ll.ok());
  EXPECT_EQ(ll->backend, Backend::kLandlock);
  EXPECT_TRUE(ll->configured);
  EXPECT_NE(backend_title(*ll).find("Landlock"), std::string::npos);
  EXPECT_FALSE(choose_backend(env_of({}), true, BackendSetting::kLandlock).ok());
  auto named =
      choose_backend(env_of({{"CORDON_BACKEND", "bwrap"}}), false, BackendSetting::kLandlock);
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->backend, Backend::kBwrap);
}

TEST(BackendChoice, StandInOnlyWithSeatbeltForced) {  // MAC-5
  auto forced = choose_backend(
      env_of({{"CORDON_BACKEND", "seatbelt"}, {"CORDON_SANDBOX_EXEC", "/t/fake-sandbox-exec"}}),
      false);
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(forced->sandbox_exec, "/t/fake-sandbox-exec");
  EXPECT_TRUE(forced->stand_in);
  EXPECT_FALSE(forced->stand_in_ignored);
  EXPECT_NE(backend_title(*forced).find("/t/fake-sandbox-exec (CORDON_SANDBOX_EXEC)"),
            std::string::npos);
  // Never silently instead of bwrap, nor instead of the real sandbox-exec on a Mac.
  for (bool mac : {false, true}) {
    auto stray = choose_backend(env_of({{"CORDON_SANDBOX_EXEC", "/t/fake-sandbox-exec"}}), mac);
    ASSERT_TRUE(stray.ok());
    EXPECT_FALSE(stray->stand_in);
    EXPECT_TRUE(stray->stand_in_ignored);
    EXPECT_NE(stray->sandbox_exec, "/t/fake-sandbox-exec");
  }
}

TEST(BackendChoice, BadValuesAreClearErrors) {  // MAC-5
  auto bad = choose_backend(env_of({{"CORDON_BACKEND", "docker"}}), false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("CORDON_BACKEND=docker"), std::string::npos);
  EXPECT_NE(bad.error().message.find("seatbelt or bwrap"), std::string::npos);
  auto bwrap_on_mac = choose_backend(env_of({{"CORDON_BACKEND", "bwrap"}}), true);
  ASSERT_FALSE(bwrap_on_mac.ok());
  EXPECT_NE(bwrap_on_mac.error().message.find("unset CORDON_BACKEND"), std::string::npos);
  auto relative = choose_backend(
      env_of({{"CORDON_BACKEND", "seatbelt"}, {"CORDON_SANDBOX_EXEC", "fake"}}), false);
  ASSERT_FALSE(relative.ok());
  EXPECT_NE(relative.error().message.find("CORDON_SANDBOX_EXEC=fake"), std::string::npos);
  auto bwrap = choose_backend(env_of({{"CORDON_BACKEND", "bwrap"}}), false);
  ASSERT_TRUE(bwrap.ok());
  EXPECT_EQ(bwrap->backend, Backend::kBwrap);
}

}  // namespace
}  // namespace cordon
