// DIST-4: `cordon setup <client>` through the real binary, with a throw-away HOME. The agents
// are not installed here: where setup would run an agent's own command, a stand-in script on
// PATH records the arguments it was given; without it, setup edits the agent's settings file.
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness.h"
#include "test_paths.h"

namespace cordon::it {
namespace {

using json = nlohmann::json;

std::string data(const std::string& name) {
  std::ifstream in(test_source_dir() + "/tests/data/integrations/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A world whose PATH holds no agent's command.
struct AgentHome {
  AgentHome() {
    w.env["PATH"] = w.root() + "/bin:/usr/bin:/bin";
    w.host({"mkdir", "-p", w.root() + "/bin"});
  }
  Proc setup(const std::vector<std::string>& args) {
    std::vector<std::string> a = {"setup"};
    a.insert(a.end(), args.begin(), args.end());
    return w.cordon(a);
  }
  World w;
};

TEST(SetupClient, PrintChangesNothing) {  // DIST-4: --print shows exactly, changes nothing
  AgentHome s;
  s.w.write(s.w.home() + "/.claude/settings.json", data("claude_settings.json"));
  const std::pair<const char*, const char*> clients[] = {
      {"claude-code", "/.claude.json"},          {"codex", "/.codex/config.toml"},
      {"gemini", "/.gemini/settings.json"},      {"cursor", "/.cursor/mcp.json"},
      {"vscode", "/.config/Code/User/mcp.json"}, {"zed", "/.config/zed/settings.json"}};
  for (const auto& [client, file] : clients) {
    SCOPED_TRACE(client);
    Proc p = s.setup({client, "--print"});
    EXPECT_EQ(p.status, 0) << p.err;
    EXPECT_NE(p.out.find("create " + s.w.home() + file), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("undo: "), std::string::npos) << p.out;
    EXPECT_FALSE(s.w.exists(s.w.home() + file));
  }
  EXPECT_EQ(s.w.read(s.w.home() + "/.claude/settings.json"), data("claude_settings.json"));
  EXPECT_FALSE(s.w.exists(s.w.home() + "/.claude/settings.json.cordon-backup"));
}

TEST(SetupClient, EditsWithABackupAndKeepsEveryByte) {  // DIST-4
  AgentHome s;
  const std::string path = s.w.home() + "/.claude/settings.json";
  const std::string before = data("claude_settings.json");
  s.w.write(path, before);
  Proc p = s.setup({"claude-code"});
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_EQ(s.w.read(path + ".cordon-backup"), before);
  json settings = json::parse(s.w.read(path));
  EXPECT_EQ(settings["permissions"]["deny"], json::array({"Read(./.env)", "Bash"}));
  EXPECT_EQ(settings["hooks"], json::parse(before)["hooks"]);
  json user = json::parse(s.w.read(s.w.home() + "/.claude.json"));
  EXPECT_EQ(user["mcpServers"]["cordon"]["args"], json::array({"mcp"}));
  EXPECT_EQ(user["mcpServers"]["cordon"]["command"], cordon_binary());
  // Again: nothing to do, and no second backup.
  p = s.setup({"claude-code"});
  EXPECT_EQ(p.status, 0);
  EXPECT_NE(p.out.find("set up for claude-code already"), std::string::npos) << p.out;
  EXPECT_FALSE(s.w.exists(path + ".cordon-backup.1"));
}

TEST(SetupClient, RunsTheAgentsOwnCommandWhenThere) {  // DIST-4
  AgentHome s;
  const std::string log = s.w.root() + "/claude-args";
  s.w.write(s.w.root() + "/bin/claude", "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + log + "\n", 0755);
  Proc p = s.setup({"claude-code"});
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_EQ(s.w.read(log), "mcp\nadd\n-s\nuser\ncordon\n--\n" + cordon_binary() + "\nmcp\n");
  EXPECT_FALSE(s.w.exists(s.w.home() + "/.claude.json"));  // the command's job, not ours
  // A failing command stops setup with its status named.
  s.w.write(s.w.root() + "/bin/claude", "#!/bin/sh\nexit 3\n", 0755);
  p = s.setup({"claude-code"});
  EXPECT_EQ(p.status, 1);
  EXPECT_NE(p.err.find("exit status 3"), std::string::npos) << p.err;
}

TEST(SetupClient, NeverClobbersAndProjectScope) {  // DIST-4
  AgentHome s;
  const std::string mine = R"({"mcpServers": {"cordon": {"command": "/opt/old/cordon"}}})";
  s.w.write(".cursor/mcp.json", mine);
  Proc p = s.setup({"cursor", "--project"});
  EXPECT_EQ(p.status, 1);
  EXPECT_NE(p.out.find("is there already"), std::string::npos) << p.out;
  EXPECT_EQ(s.w.read(".cursor/mcp.json"), mine);
  p = s.setup({"vscode", "--project"});
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_EQ(json::parse(s.w.read(".vscode/mcp.json"))["servers"]["cordon"]["type"], "stdio");
  p = s.setup({"codex", "--project"});
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_NE(s.w.read(".codex/config.toml").find("shell_tool = false"), std::string::npos);
}

}  // namespace
}  // namespace cordon::it
