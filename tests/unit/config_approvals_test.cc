// [approvals] and [away] in config.toml (APR-2, APR-4, APR-5, CFG-2, CFG-4).
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>

#include "config/config_file.h"

namespace cordon {
namespace {

using std::chrono::milliseconds;

Result<Policy> parse(const std::string& text) { return parse_config(text, "/home/u/config.toml"); }

TEST(ConfigApprovals, DefaultsWhenAbsent) {
  // APR-2, APR-4, APR-5: manual, cutoffs 0.2, a 15-minute timeout.
  auto p = parse("");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->approvals.mode, ApprovalMode::kManual);
  EXPECT_EQ(p->approvals.judge, "");
  EXPECT_DOUBLE_EQ(p->approvals.cutoff, 0.2);
  EXPECT_DOUBLE_EQ(p->approvals.away_cutoff, 0.2);
  ASSERT_TRUE(p->away_timeout.has_value());
  EXPECT_EQ(*p->away_timeout, std::chrono::minutes(15));
}

TEST(ConfigApprovals, Modes) {
  // APR-2
  struct Case {
    std::string text;
    std::optional<ApprovalMode> mode;  // nullopt: an error
  };
  const Case cases[] = {
      {"[approvals]\nmode = \"manual\"\n", ApprovalMode::kManual},
      {"[approvals]\nmode = \"approve-all\"\n", ApprovalMode::kApproveAll},
      {"[approvals]\nmode = \"auto\"\njudge = \"/usr/local/bin/judge\"\n", ApprovalMode::kAuto},
      {"[approvals]\nmode = \"auto\"\n", std::nullopt},  // auto needs a judge
      {"[approvals]\nmode = \"auto\"\njudge = \"\"\n", std::nullopt},
      {"[approvals]\nmode = \"approve_all\"\n", std::nullopt},
      {"[approvals]\nmode = \"Manual\"\n", std::nullopt},
      {"[approvals]\nmode = 1\n", std::nullopt},
      {"[approvals]\nmodes = \"manual\"\n", std::nullopt},  // unknown key (CFG-2)
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    auto p = parse(c.text);
    if (c.mode) {
      ASSERT_TRUE(p.ok()) << p.error().message;
      EXPECT_EQ(p->approvals.mode, *c.mode);
    } else {
      ASSERT_FALSE(p.ok());
      EXPECT_EQ(p.error().code, ErrorKind::kConfig);
      EXPECT_NE(p.error().message.find("/home/u/config.toml"), std::string::npos)
          << p.error().message;
    }
  }
}

TEST(ConfigApprovals, AutoWithoutJudgeSaysHowToFix) {
  // APR-2
  auto p = parse("[approvals]\nmode = \"auto\"\n");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("judge"), std::string::npos) << p.error().message;
}

TEST(ConfigApprovals, JudgeProgramForms) {
  // APR-2: the judge is a program: an absolute path, ~/..., or a name looked up on PATH.
  // A relative path with a folder would depend on where cordon happens to start.
  struct Case {
    std::string judge;
    bool ok;
  };
  const Case cases[] = {
      {"/usr/local/bin/judge", true},
      {"~/bin/judge", true},
      {"cordon-judge", true},
      {"./judge", false},
      {"bin/judge", false},
      {"~", false},
      {"~other/judge", false},
      {"/usr/bin/\\u0000judge", false},
  };
  for (const auto& c : cases) {
    std::string text = "[approvals]\nmode = \"auto\"\njudge = \"" + c.judge + "\"\n";
    SCOPED_TRACE(text);
    auto p = parse(text);
    EXPECT_EQ(p.ok(), c.ok) << (p.ok() ? std::string("parsed") : p.error().message);
  }
  // The judge may be named in manual mode too (ignored until auto), but it is still checked.
  EXPECT_FALSE(parse("[approvals]\njudge = \"./judge\"\n").ok());
  auto manual = parse("[approvals]\njudge = \"/opt/judge\"\n");
  ASSERT_TRUE(manual.ok());
  EXPECT_EQ(manual->approvals.judge, "/opt/judge");
}

TEST(ConfigApprovals, Cutoffs) {
  // APR-2, APR-4: both cutoffs are numbers from 0 to 1.
  struct Case {
    std::string value;
    std::optional<double> parsed;
  };
  const Case cases[] = {
      {"0", 0.0},       {"1", 1.0},       {"0.0", 0.0},         {"1.0", 1.0},
      {"0.35", 0.35},   {"-0.1", std::nullopt}, {"1.01", std::nullopt}, {"2", std::nullopt},
      {"-1", std::nullopt}, {"nan", std::nullopt}, {"inf", std::nullopt},
      {"\"0.3\"", std::nullopt}, {"true", std::nullopt},
  };
  for (const char* key : {"cutoff", "away_cutoff"}) {
    for (const auto& c : cases) {
      std::string text = std::string("[approvals]\n") + key + " = " + c.value + "\n";
      SCOPED_TRACE(text);
      auto p = parse(text);
      if (c.parsed) {
        ASSERT_TRUE(p.ok()) << p.error().message;
        double got = std::string(key) == "cutoff" ? p->approvals.cutoff : p->approvals.away_cutoff;
        EXPECT_DOUBLE_EQ(got, *c.parsed);
        // The other one keeps its default.
        double other =
            std::string(key) == "cutoff" ? p->approvals.away_cutoff : p->approvals.cutoff;
        EXPECT_DOUBLE_EQ(other, 0.2);
      } else {
        ASSERT_FALSE(p.ok());
        EXPECT_NE(p.error().message.find(key), std::string::npos) << p.error().message;
        EXPECT_NE(p.error().message.find(":2:"), std::string::npos) << p.error().message;
      }
    }
  }
}

TEST(ConfigApprovals, AwayTimeout) {
  // APR-5, CFG-4: "off", or Ns / Nm / Nh, up to 24h.
  struct Case {
    std::string value;
    bool ok;
    std::optional<milliseconds> timeout;  // when ok; nullopt means "off"
  };
  const Case cases[] = {
      {"\"off\"", true, std::nullopt},
      {"\"30s\"", true, milliseconds(30'000)},
      {"\"15m\"", true, milliseconds(900'000)},
      {"\"2h\"", true, milliseconds(7'200'000)},
      {"\"24h\"", true, milliseconds(86'400'000)},
      {"\"1440m\"", true, milliseconds(86'400'000)},
      {"\"86400s\"", true, milliseconds(86'400'000)},
      {"\"1s\"", true, milliseconds(1'000)},
      {"\"25h\"", false, std::nullopt},
      {"\"1441m\"", false, std::nullopt},
      {"\"86401s\"", false, std::nullopt},
      {"\"0s\"", false, std::nullopt},
      {"\"0m\"", false, std::nullopt},
      {"\"500ms\"", false, std::nullopt},  // not one of the documented units
      {"\"15\"", false, std::nullopt},     // a unit is required
      {"\"15 m\"", false, std::nullopt},
      {"\"1h30m\"", false, std::nullopt},
      {"\"-5m\"", false, std::nullopt},
      {"\"1.5h\"", false, std::nullopt},
      {"\"15M\"", false, std::nullopt},
      {"\"Off\"", false, std::nullopt},
      {"\"\"", false, std::nullopt},
      {"\"99999999999999999999h\"", false, std::nullopt},
      {"900", false, std::nullopt},  // a number, not a string
      {"false", false, std::nullopt},
  };
  for (const auto& c : cases) {
    std::string text = "[away]\ntimeout = " + c.value + "\n";
    SCOPED_TRACE(text);
    auto p = parse(text);
    ASSERT_EQ(p.ok(), c.ok) << (p.ok() ? std::string("parsed") : p.error().message);
    if (c.ok) {
      EXPECT_EQ(p->away_timeout, c.timeout);
    } else {
      EXPECT_NE(p.error().message.find("[away] timeout"), std::string::npos)
          << p.error().message;
    }
  }
  auto unknown = parse("[away]\ntimeout = \"15m\"\ncutoff = 0.1\n");
  ASSERT_FALSE(unknown.ok());  // CFG-2: unknown key inside [away]
  EXPECT_NE(unknown.error().message.find("cutoff"), std::string::npos);
}

}  // namespace
}  // namespace cordon
