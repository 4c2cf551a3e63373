// CFG-2, CMD-2, CMD-4, CMD-5: the [commands] table is checked when the config loads.
#include <gtest/gtest.h>

#include "config/config_file.h"

namespace cordon {
namespace {

TEST(CommandsConfig, Parses) {  // CMD-2, CMD-4, CMD-5
  auto p = parse_config(R"(
[commands]
read_only = ["terraform plan", "just --list"]
denied = ["docker", "git push", "mkfs*"]
denied_paths = ["/srv/secret", "~/private"]
[commands.sensitive]
dirs = ["config/secrets"]
files = ["service-account.json"]
prefixes = [".secret"]
extensions = ["gpg"]
)",
                        "/c.toml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->commands.read_only.size(), 2u);
  EXPECT_EQ(p->commands.denied.size(), 3u);
  EXPECT_EQ(p->commands.denied_paths.size(), 2u);
  EXPECT_EQ(p->commands.sensitive.extensions[0], "gpg");
}

TEST(CommandsConfig, RefusesMalformedEntries) {  // CFG-2: file, line and key in the message
  struct Bad {
    const char* toml;
    const char* says;
  } cases[] = {
      {"[commands]\nread_only = [\"npm run build --prod\"]\n", "more than three words"},
      {"[commands]\nread_only = [\"ls; rm -rf /\"]\n", "shell syntax"},
      {"[commands]\nread_only = [\"/bin/ls\"]\n", "names a path"},
      {"[commands]\nread_only = [\"l*\"]\n", "`*`"},
      {"[commands]\ndenied = [\"rm $(x)\"]\n", "shell syntax"},
      {"[commands]\ndenied_paths = [\"/\"]\n", "root"},
      {"[commands]\ndenied_paths = [\"relative\"]\n", "absolute"},
      {"[commands]\nsensitive = { colors = [\"x\"] }\n", "colors"},
  };
  for (const auto& c : cases) {
    auto p = parse_config(c.toml, "/c.toml");
    ASSERT_FALSE(p.ok()) << c.toml;
    EXPECT_NE(p.error().message.find(c.says), std::string::npos) << p.error().message;
    EXPECT_NE(p.error().message.find("/c.toml"), std::string::npos) << p.error().message;
  }
}

}  // namespace
}  // namespace cordon
