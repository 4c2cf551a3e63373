// DIST-4: `cordon setup <client>` planned against each client's documented settings files
// (tests/data/integrations/*, written from the clients' documentation): cordon mcp is
// registered, the shell tool turned off where the client allows it, every byte the user wrote
// is kept (insertions only), a second run changes nothing, and a value of the user's own is
// never overwritten.
#include "integrations/setup_plan.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "integrations/json_text_edit.h"
#include "test_paths.h"

namespace cordon {
namespace {

using json = nlohmann::json;

std::string data(const std::string& name) {
  std::ifstream in(test_golden_dir() + "/../data/integrations/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// JSON with comments and trailing commas, as VS Code and Zed read it.
json parse_jsonc(std::string text) {
  std::string out;
  bool in_str = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_str) {
      out += c;
      if (c == '\\')
        out += text[++i];
      else if (c == '"')
        in_str = false;
    } else if (c == '"') {
      in_str = true;
      out += c;
    } else if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i) - 1;
    } else if (text.compare(i, 2, "/*") == 0) {
      i = text.find("*/", i) + 1;
    } else if (c == ',') {
      size_t j = text.find_first_not_of(" \t\r\n", i + 1);
      if (j == std::string::npos || (text[j] != '}' && text[j] != ']')) out += c;
    } else {
      out += c;
    }
  }
  return json::parse(out);
}

// Every byte of `before` is in `after`, in order: only insertions were made.
bool only_insertions(const std::string& before, const std::string& after) {
  size_t j = 0;
  for (char c : before) {
    while (j < after.size() && after[j] != c) ++j;
    if (j == after.size()) return false;
    ++j;
  }
  return true;
}

struct Fs {
  std::map<std::string, std::string> files;
  std::set<std::string> commands;
  SetupInput input(SetupClient c, bool project = false) {
    SetupInput in;
    in.client = c;
    in.project = project;
    in.home = "/home/u";
    in.config_home = "/home/u/.config";
    in.project_dir = "/work/p";
    in.cordon = "/usr/local/bin/cordon";
    in.has_command = [this](const std::string& p) { return commands.count(p) > 0; };
    in.read = [this](const std::string& p) -> std::optional<std::string> {
      auto it = files.find(p);
      if (it == files.end()) return std::nullopt;
      return it->second;
    };
    return in;
  }
  // Carries out the write steps; returns the commands it would have run.
  std::vector<std::vector<std::string>> apply(const SetupPlan& plan) {
    std::vector<std::vector<std::string>> ran;
    for (const auto& s : plan.steps) {
      if (s.kind == SetupStep::kRun) {
        ran.push_back(s.argv);
        continue;
      }
      EXPECT_EQ(s.creates, files.count(s.path) == 0) << s.path;
      EXPECT_EQ(s.before, files.count(s.path) ? files[s.path] : "") << s.path;
      EXPECT_TRUE(only_insertions(s.before, s.after)) << s.path;
      files[s.path] = s.after;
    }
    return ran;
  }
};

const json kServer{{"command", "/usr/local/bin/cordon"}, {"args", {"mcp"}}};

TEST(SetupPlan, ClaudeCodeUserWithoutTheClaudeCommand) {  // DIST-4
  Fs fs;
  fs.files["/home/u/.claude.json"] = data("claude_user.json");
  fs.files["/home/u/.claude/settings.json"] = data("claude_settings.json");
  SetupPlan p = plan_setup(fs.input(SetupClient::kClaudeCode));
  EXPECT_TRUE(p.registered);
  EXPECT_TRUE(fs.apply(p).empty());
  json user = json::parse(fs.files["/home/u/.claude.json"]);
  EXPECT_EQ(user["mcpServers"]["cordon"],
            (json{{"type", "stdio"}, {"command", "/usr/local/bin/cordon"}, {"args", {"mcp"}}}));
  EXPECT_EQ(user["mcpServers"]["github"]["type"], "http");  // the user's own are kept
  EXPECT_EQ(user["numStartups"], 12);
  json settings = json::parse(fs.files["/home/u/.claude/settings.json"]);
  EXPECT_EQ(settings["permissions"]["deny"], json::array({"Read(./.env)", "Bash"}));
  EXPECT_EQ(settings["hooks"], json::parse(data("claude_settings.json"))["hooks"]);
  EXPECT_NE(p.undo.find("permissions.deny"), std::string::npos);
  // Twice: nothing more to do.
  EXPECT_TRUE(plan_setup(fs.input(SetupClient::kClaudeCode)).steps.empty());
}

TEST(SetupPlan, ClaudeCodeUsesItsOwnCommandWhenInstalled) {  // DIST-4
  Fs fs;
  fs.commands = {"claude"};
  SetupPlan p = plan_setup(fs.input(SetupClient::kClaudeCode));
  auto ran = fs.apply(p);
  ASSERT_EQ(ran.size(), 1u);
  EXPECT_EQ(ran[0], (std::vector<std::string>{"claude", "mcp", "add", "-s", "user", "cordon", "--",
                                              "/usr/local/bin/cordon", "mcp"}));
  // The settings file did not exist: created with the deny rule alone.
  EXPECT_EQ(json::parse(fs.files["/home/u/.claude/settings.json"]),
            (json{{"permissions", {{"deny", {"Bash"}}}}}));
  std::string printed = describe_setup(p);
  EXPECT_NE(printed.find("run: \"claude\" \"mcp\" \"add\" \"-s\" \"user\" \"cordon\" \"--\""),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("create /home/u/.claude/settings.json"), std::string::npos) << printed;
  EXPECT_NE(printed.find("+   \"permissions\": {"), std::string::npos) << printed;
}

TEST(SetupPlan, ClaudeCodeProject) {  // DIST-4: .mcp.json and .claude/settings.json
  Fs fs;
  fs.commands = {"claude"};
  SetupPlan p = plan_setup(fs.input(SetupClient::kClaudeCode, true));
  EXPECT_TRUE(fs.apply(p).empty());  // a project file is edited, not registered by command
  EXPECT_EQ(json::parse(fs.files["/work/p/.mcp.json"])["mcpServers"]["cordon"]["type"], "stdio");
  EXPECT_EQ(json::parse(fs.files["/work/p/.claude/settings.json"])["permissions"]["deny"],
            json::array({"Bash"}));
}

TEST(SetupPlan, NeverOverwritesTheUsersOwnEntry) {  // DIST-4: never clobbering
  Fs fs;
  fs.files["/home/u/.cursor/mcp.json"] = R"({"mcpServers": {"cordon": {"command": "old"}}})";
  SetupPlan p = plan_setup(fs.input(SetupClient::kCursor));
  EXPECT_FALSE(p.registered);
  EXPECT_TRUE(p.steps.empty());
  ASSERT_FALSE(p.notes.empty());
  EXPECT_NE(p.notes[0].find("mcpServers.cordon` is there already"), std::string::npos)
      << p.notes[0];
  fs.files["/home/u/.cursor/mcp.json"] = R"({"mcpServers": ["not", "an", "object"]})";
  p = plan_setup(fs.input(SetupClient::kCursor));
  EXPECT_FALSE(p.registered);
  EXPECT_NE(p.notes[0].find("not an object"), std::string::npos) << p.notes[0];
  fs.files["/home/u/.cursor/mcp.json"] = "{ broken";
  p = plan_setup(fs.input(SetupClient::kCursor));
  EXPECT_FALSE(p.registered);
  EXPECT_TRUE(p.steps.empty());
}

TEST(SetupPlan, Codex) {  // DIST-4: TOML, tool_timeout_sec, [features] shell_tool = false
  Fs fs;
  fs.commands = {"codex"};
  const std::string before = data("codex_config.toml");
  fs.files["/home/u/.codex/config.toml"] = before;
  SetupPlan p = plan_setup(fs.input(SetupClient::kCodex));
  EXPECT_TRUE(fs.apply(p).empty());
  const std::string& after = fs.files["/home/u/.codex/config.toml"];
  EXPECT_EQ(after.rfind(before.substr(0, before.find("[features]")), 0), 0u);
  EXPECT_NE(after.find("[features]\nshell_tool = false\nweb_search_request = true\n"),
            std::string::npos)
      << after;
  EXPECT_NE(after.find("[mcp_servers.cordon]\ncommand = \"/usr/local/bin/cordon\"\nargs = "
                       "[\"mcp\"]\n"),
            std::string::npos)
      << after;
  EXPECT_NE(after.find("tool_timeout_sec = 660"), std::string::npos);
  EXPECT_TRUE(plan_setup(fs.input(SetupClient::kCodex)).steps.empty());
  // A [features] table that says shell_tool = true: left alone, with a note.
  fs.files["/home/u/.codex/config.toml"] = "[features]\nshell_tool = true\n";
  p = plan_setup(fs.input(SetupClient::kCodex));
  fs.apply(p);
  EXPECT_NE(fs.files["/home/u/.codex/config.toml"].find("shell_tool = true"), std::string::npos);
  EXPECT_EQ(fs.files["/home/u/.codex/config.toml"].find("shell_tool = false"), std::string::npos);
  ASSERT_EQ(p.notes.size(), 2u);  // shell_tool left alone; the hook review (/hooks)
  EXPECT_NE(p.notes[1].find("/hooks"), std::string::npos) << p.notes[1];
  // No file: both tables, in a new file.
  Fs empty;
  p = plan_setup(empty.input(SetupClient::kCodex, true));
  empty.apply(p);
  EXPECT_NE(empty.files["/work/p/.codex/config.toml"].find("[features]\nshell_tool = false\n"),
            std::string::npos);
}

// DIST-4 (issue 28): Gemini CLI 0.61 never loads workspace policy files, so the shell is turned
// off with tools.exclude in settings.json, which it honours; no policy file is written.
TEST(SetupPlan, GeminiTurnsTheShellOffWithToolsExclude) {
  Fs fs;
  fs.files["/home/u/.gemini/settings.json"] = data("gemini_settings.json");
  SetupPlan p = plan_setup(fs.input(SetupClient::kGemini));
  EXPECT_TRUE(fs.apply(p).empty());
  json s = json::parse(fs.files["/home/u/.gemini/settings.json"]);
  EXPECT_EQ(s["mcpServers"]["cordon"], kServer);
  EXPECT_EQ(s["mcpServers"]["pythonTools"]["timeout"], 15000);
  EXPECT_EQ(s["tools"]["exclude"], json::array({"run_shell_command"}));
  EXPECT_EQ(fs.files.count("/home/u/.gemini/policies/cordon.toml"), 0u);
  EXPECT_TRUE(plan_setup(fs.input(SetupClient::kGemini)).steps.empty());
  // The user's own exclusions are kept; cordon's is added to them.
  Fs own;
  own.files["/home/u/.gemini/settings.json"] = R"({"tools": {"exclude": ["web_fetch"]}})";
  own.apply(plan_setup(own.input(SetupClient::kGemini)));
  EXPECT_EQ(json::parse(own.files["/home/u/.gemini/settings.json"])["tools"]["exclude"],
            json::array({"web_fetch", "run_shell_command"}));
  // Project scope: the project's settings.json, and setup says the folder must be trusted.
  // With the gemini command too: the file is edited (`gemini mcp add` would change it under
  // the tools.exclude edit).
  Fs g;
  g.commands = {"gemini"};
  p = plan_setup(g.input(SetupClient::kGemini, true));
  EXPECT_TRUE(g.apply(p).empty());
  EXPECT_EQ(json::parse(g.files["/work/p/.gemini/settings.json"])["mcpServers"]["cordon"], kServer);
  EXPECT_EQ(json::parse(g.files["/work/p/.gemini/settings.json"])["tools"]["exclude"],
            json::array({"run_shell_command"}));
  std::string printed = describe_setup(p);
  EXPECT_NE(printed.find("only in a folder you trust"), std::string::npos) << printed;
  EXPECT_NE(printed.find("shell stays ON"), std::string::npos) << printed;
  EXPECT_NE(printed.find("GEMINI_CLI_TRUST_WORKSPACE"), std::string::npos) << printed;
}

// DIST-4 (issue 28): what `gemini mcp add` writes back (its own spelling) is cordon's entry.
TEST(SetupPlan, GeminiSecondRunAfterItsOwnCommand) {
  Fs fs;
  fs.files["/home/u/.gemini/settings.json"] =
      R"({"mcpServers": {"cordon": {"command": "/usr/local/bin/cordon", "args": ["mcp"],)"
      R"( "env": {}, "type": "stdio"}}, "tools": {"exclude": ["run_shell_command"]}})";
  fs.commands = {"gemini"};
  SetupPlan p = plan_setup(fs.input(SetupClient::kGemini));
  EXPECT_TRUE(p.steps.empty()) << describe_setup(p);
  EXPECT_TRUE(p.registered);
}

// DIST-4 (issue 28): `claude mcp add` writes `"env": {}`; a second `cordon setup claude-code`
// compares meaning, changes nothing and succeeds. A different command is still the user's own.
TEST(SetupPlan, ClaudeCodeSecondRunAfterClaudeMcpAdd) {
  Fs fs;
  fs.commands = {"claude"};
  fs.files["/home/u/.claude.json"] =
      R"({"numStartups": 3, "mcpServers": {"cordon": {"type": "stdio", "command":)"
      R"( "/usr/local/bin/cordon", "args": ["mcp"], "env": {}}}})";
  fs.files["/home/u/.claude/settings.json"] = R"({"permissions": {"deny": ["Bash"]}})";
  SetupPlan p = plan_setup(fs.input(SetupClient::kClaudeCode));
  EXPECT_TRUE(p.steps.empty()) << describe_setup(p);
  EXPECT_TRUE(p.registered);
  EXPECT_NE(describe_setup(p).find("Nothing to change"), std::string::npos);
  fs.files["/home/u/.claude.json"] =
      R"({"mcpServers": {"cordon": {"type": "stdio", "command": "/opt/other/cordon", "args":)"
      R"( ["mcp"], "env": {}}}})";
  p = plan_setup(fs.input(SetupClient::kClaudeCode));
  EXPECT_FALSE(p.registered);
  fs.files["/home/u/.claude.json"] =
      R"({"mcpServers": {"cordon": {"type": "stdio", "command": "/usr/local/bin/cordon",)"
      R"( "args": ["mcp"], "env": {"CORDON_MODE": "off"}}}})";
  EXPECT_FALSE(plan_setup(fs.input(SetupClient::kClaudeCode)).registered);
}

// DIST-4 (issue 28): a project's .mcp.json waits for the user's approval; setup says how.
TEST(SetupPlan, ClaudeCodeProjectSaysTheServerNeedsApproval) {
  Fs fs;
  SetupPlan p = plan_setup(fs.input(SetupClient::kClaudeCode, true));
  std::string printed = describe_setup(p);
  EXPECT_NE(printed.find("enabledMcpjsonServers"), std::string::npos) << printed;
  EXPECT_EQ(describe_setup(plan_setup(fs.input(SetupClient::kClaudeCode))).find("approve"),
            std::string::npos);
}

// DIST-4 (issue 28): plain `codex exec` (approval policy never) refused cordon's bash; the
// server's tools are approved by Codex itself (cordon asks its own questions). A table written
// before gets the line; a second run changes nothing.
TEST(SetupPlan, CodexApprovesCordonsTools) {
  Fs fs;
  SetupPlan p = plan_setup(fs.input(SetupClient::kCodex));
  fs.apply(p);
  const std::string& after = fs.files["/home/u/.codex/config.toml"];
  EXPECT_NE(after.find("startup_timeout_sec = 30\n# cordon asks its own questions; without this, "
                       "`codex exec` refuses cordon's tools.\n"
                       "default_tools_approval_mode = \"approve\"\n\n[features]"),
            std::string::npos)
      << after;
  EXPECT_TRUE(plan_setup(fs.input(SetupClient::kCodex)).steps.empty());
  Fs old;
  old.files["/home/u/.codex/config.toml"] =
      "model = \"o3\"\n\n[mcp_servers.cordon]\ncommand = \"/usr/local/bin/cordon\"\nargs = "
      "[\"mcp\"]\n\n[features]\nshell_tool = false\n";
  old.apply(plan_setup(old.input(SetupClient::kCodex)));
  EXPECT_NE(old.files["/home/u/.codex/config.toml"].find(
                "[mcp_servers.cordon]\n# cordon asks its own questions; without this, `codex "
                "exec` refuses cordon's tools.\ndefault_tools_approval_mode = \"approve\"\n"
                "command = "),
            std::string::npos)
      << old.files["/home/u/.codex/config.toml"];
  EXPECT_TRUE(plan_setup(old.input(SetupClient::kCodex)).steps.empty());
  // Project scope: the trust Codex needs before it reads the project's file.
  Fs proj;
  std::string printed = describe_setup(plan_setup(proj.input(SetupClient::kCodex, true)));
  EXPECT_NE(printed.find("[projects.\"/work/p\"] trust_level = \"trusted\""), std::string::npos)
      << printed;
}

TEST(SetupPlan, Cursor) {  // DIST-4
  Fs fs;
  fs.files["/work/p/.cursor/mcp.json"] = data("cursor_mcp.json");
  SetupPlan p = plan_setup(fs.input(SetupClient::kCursor, true));
  fs.apply(p);
  json s = json::parse(fs.files["/work/p/.cursor/mcp.json"]);
  EXPECT_EQ(s["mcpServers"]["cordon"], kServer);
  EXPECT_EQ(s["mcpServers"]["server-name"]["env"]["API_KEY"], "value");
  EXPECT_NE(describe_setup(p).find("cordon hook cursor"), std::string::npos);
}

TEST(SetupPlan, VsCodeKeepsCommentsAndTrailingCommas) {  // DIST-4
  Fs fs;
  const std::string before = data("vscode_mcp.json");
  fs.files["/work/p/.vscode/mcp.json"] = before;
  SetupPlan p = plan_setup(fs.input(SetupClient::kVsCode, true));
  fs.apply(p);
  const std::string& after = fs.files["/work/p/.vscode/mcp.json"];
  EXPECT_NE(after.find("// Inputs are prompted"), std::string::npos);
  json s = parse_jsonc(after);
  EXPECT_EQ(s["servers"]["cordon"]["command"], "/usr/local/bin/cordon");
  EXPECT_EQ(s["servers"]["Perplexity"]["env"]["PERPLEXITY_API_KEY"], "${input:perplexity-key}");
  // User level: `code --add-mcp` when VS Code's command is there.
  Fs u;
  u.commands = {"code"};
  auto ran = u.apply(plan_setup(u.input(SetupClient::kVsCode)));
  ASSERT_EQ(ran.size(), 1u);
  EXPECT_EQ(ran[0][1], "--add-mcp");
  EXPECT_EQ(json::parse(ran[0][2])["name"], "cordon");
  Fs f;
  f.apply(plan_setup(f.input(SetupClient::kVsCode)));
  EXPECT_TRUE(f.files.count("/home/u/.config/Code/User/mcp.json"));
}

TEST(SetupPlan, ZedProfileWithoutTheTerminal) {  // DIST-4: JSONC, context_servers, a profile
  Fs fs;
  const std::string before = data("zed_settings.json");
  fs.files["/home/u/.config/zed/settings.json"] = before;
  SetupPlan p = plan_setup(fs.input(SetupClient::kZed));
  EXPECT_TRUE(p.registered);
  fs.apply(p);
  const std::string& after = fs.files["/home/u/.config/zed/settings.json"];
  EXPECT_EQ(after.rfind("// Zed settings\n", 0), 0u);
  json s = parse_jsonc(after);
  EXPECT_EQ(s["context_servers"]["cordon"]["command"], "/usr/local/bin/cordon");
  EXPECT_EQ(s["context_servers"]["cordon"]["source"], "custom");
  EXPECT_EQ(s["context_servers"]["hexdocs-mcp"]["command"], "npx");
  EXPECT_EQ(s["agent"]["profiles"]["cordon"]["tools"]["terminal"], false);
  EXPECT_EQ(s["agent"]["default_profile"], "cordon");
  EXPECT_EQ(s["theme"]["dark"], "One Dark");
  EXPECT_TRUE(plan_setup(fs.input(SetupClient::kZed)).steps.empty());
  // A default profile of the user's own stays.
  fs.files["/home/u/.config/zed/settings.json"] = R"({"agent": {"default_profile": "write"}})";
  p = plan_setup(fs.input(SetupClient::kZed));
  fs.apply(p);
  EXPECT_EQ(parse_jsonc(fs.files["/home/u/.config/zed/settings.json"])["agent"]["default_profile"],
            "write");
}

// Braces in strings and comments, escaped quotes, nested empty objects: the scanner finds the
// right object, and the result parses with the old values unchanged.
TEST(JsonTextEdit, TrickyText) {
  const std::vector<std::string> docs = {
      "{\"a\": \"}{\", /* } { */ \"b\": {\"c\": [1, {\"d\": \"\\\"}\"}]}}",
      "// {\n{\"b\": {}, \"z\": null}",
      "{\n  \"b\": {\n    // only a comment }\n  }\n}\n",
      "  {\"x\":{\"b\":1},\"b\":{\"e\":2,}}",
      "{\"b\": {\"e\": 2}}",
  };
  for (const auto& d : docs) {
    SCOPED_TRACE(d);
    TextEdit e = json_add_member(d, {"b", "new"}, json{{"k", "v{}"}});
    ASSERT_TRUE(e.problem.empty()) << e.problem;
    const std::string out = apply_insertions(d, e.insertions);
    EXPECT_TRUE(only_insertions(d, out));
    json before = parse_jsonc(d), after = parse_jsonc(out);
    EXPECT_EQ(after["b"]["new"], (json{{"k", "v{}"}})) << out;
    after["b"].erase("new");
    EXPECT_EQ(after, before) << out;
    EXPECT_TRUE(json_add_member(out, {"b", "new"}, json{{"k", "v{}"}}).insertions.empty());
  }
}

TEST(JsonTextEdit, InsertionsOnly) {
  TextEdit e = json_add_member("{}", {"a", "b"}, 1);
  EXPECT_EQ(apply_insertions("{}", e.insertions), "{\n  \"a\": {\n    \"b\": 1\n  }\n}");
  e = json_add_member("{\"x\": 1}\n", {"a"}, "s");
  EXPECT_EQ(apply_insertions("{\"x\": 1}\n", e.insertions), "{\"x\": 1,\n\"a\": \"s\"}\n");
  const std::string t = "{\n\t\"x\": [1, 2,], // c\n}\n";
  e = json_add_to_array(t, {"x"}, "y");
  EXPECT_EQ(apply_insertions(t, e.insertions), "{\n\t\"x\": [1, 2,\n\t\"y\"], // c\n}\n");
  EXPECT_TRUE(json_add_to_array("{\"x\": [\"y\"]}", {"x"}, "y").insertions.empty());
  e = json_add_member("", {"a"}, 1);
  EXPECT_EQ(apply_insertions("", e.insertions), "{\n  \"a\": 1\n}\n");
  EXPECT_FALSE(json_add_member("[]", {"a"}, 1).problem.empty());
  EXPECT_FALSE(json_add_member("{\"a\": 1}", {"a", "b"}, 1).problem.empty());
  EXPECT_EQ(line_of("a\nb\nc", 4), 3u);
}

}  // namespace
}  // namespace cordon
