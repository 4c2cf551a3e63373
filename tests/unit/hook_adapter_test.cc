// DIST-4: `cordon hook <client>` against each client's documented hook JSON
// (tests/data/integrations/hook_<client>.json, written from the clients' hook references): the
// answer is in the client's own format, the command runs in `cordon run` in the hook's folder,
// the other input fields are kept, and an error of cordon's own blocks (exit 2).
#include "integrations/hook_adapter.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/base64.h"
#include "test_paths.h"

namespace cordon {
namespace {

using json = nlohmann::json;

const HookContext kCtx{"/usr/local/bin/cordon", "/fallback"};

std::string fixture(const std::string& client) {
  std::ifstream in(test_golden_dir() + "/../data/integrations/hook_" + client +
                   ".json");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The tool input the client will run, read from its answer in its own format.
json updated_input(HookClient c, const json& a) {
  switch (c) {
    case HookClient::kGemini:
      EXPECT_EQ(a["decision"], "allow");
      EXPECT_EQ(a["hookSpecificOutput"]["hookEventName"], "BeforeTool");
      return a["hookSpecificOutput"]["tool_input"];
    case HookClient::kCursor:
      EXPECT_EQ(a["permission"], "allow");
      return a["updated_input"];
    default:
      EXPECT_EQ(a["hookSpecificOutput"]["hookEventName"], "PreToolUse");
      EXPECT_EQ(a["hookSpecificOutput"]["permissionDecision"], "allow");
      return a["hookSpecificOutput"]["updatedInput"];
  }
}

// The folder and the command inside `'<cordon>' run --base64 --cwd B64 -c B64`, or Claude
// Code's `exec <that> || exit 126\n<original>` (whose tail must be the original).
std::pair<std::string, std::string> unwrap(std::string cmd) {
  if (cmd.rfind("exec ", 0) == 0) {
    size_t t = cmd.find(" || exit 126\n");
    EXPECT_NE(t, std::string::npos) << cmd;
    auto inner = unwrap(cmd.substr(5, t - 5));
    EXPECT_EQ(cmd.substr(t + 13), inner.second);
    return inner;
  }
  const std::string prefix = "'/usr/local/bin/cordon' run --base64 --cwd ";
  EXPECT_EQ(cmd.rfind(prefix, 0), 0u) << cmd;
  std::string rest = cmd.substr(prefix.size());
  size_t c = rest.find(" -c ");
  auto cwd = base64_decode(rest.substr(0, c));
  auto script = base64_decode(rest.substr(c + 4));
  EXPECT_TRUE(cwd && script) << cmd;
  return {cwd.value_or(""), script.value_or("")};
}

TEST(HookAdapter, Base64RoundTrips) {  // DIST-4: the command travels base64-encoded
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (size_t n = 0; n < all.size(); n += 37)
    EXPECT_EQ(base64_decode(base64_encode(all.substr(n))), all.substr(n));
  for (const char* bad : {"Zg=", "Z===", "Zg==Zg==", "Zm9v!", "Zg=a", "=Zg="})
    EXPECT_FALSE(base64_decode(bad)) << bad;
}

TEST(HookAdapter, EachClientsDocumentedInput) {  // DIST-4
  const std::map<std::string, std::string> folder = {
      {"claude-code", "/home/user/my-project"},
      {"codex", "/home/user/my-project"},
      {"gemini", "/home/user/my-project/packages/web"},  // dir_path, relative to cwd
      {"cursor", "/home/user/my-project"},
      {"vscode", "/home/user/my-project"}};
  for (const auto& name : hook_client_names()) {
    SCOPED_TRACE(name);
    const HookClient c = *hook_client(name);
    const std::string in = fixture(name);
    ASSERT_FALSE(in.empty());
    HookAnswer a = answer_hook(c, in, kCtx);
    ASSERT_EQ(a.exit_code, 0) << a.stderr_text;
    json up = updated_input(c, json::parse(a.stdout_text));
    auto [cwd, script] = unwrap(up["command"]);
    EXPECT_EQ(cwd, folder.at(name));
    EXPECT_EQ(script, "npm test");
    // Every other field of the tool input is kept as it was.
    json original = json::parse(in)["tool_input"];
    up.erase("command");
    original.erase("command");
    EXPECT_EQ(up, original);
    // The answer is one line of JSON.
    EXPECT_EQ(a.stdout_text.find('\n'), a.stdout_text.size() - 1);
  }
}

TEST(HookAdapter, OtherToolsAndWrappedCommandsPass) {  // DIST-4
  for (const auto& name : hook_client_names()) {
    SCOPED_TRACE(name);
    const HookClient c = *hook_client(name);
    json in = json::parse(fixture(name));
    in["tool_name"] = "Read";
    HookAnswer a = answer_hook(c, in.dump(), kCtx);
    EXPECT_EQ(a.exit_code, 0);
    EXPECT_EQ(a.stdout_text, "{}\n");
    // Already wrapped: left alone, so a second hook (or a retry) does not wrap twice.
    in = json::parse(fixture(name));
    in["tool_input"]["command"] = wrap_in_cordon("/opt/x/cordon", "/p", "make");
    a = answer_hook(c, in.dump(), kCtx);
    EXPECT_EQ(a.stdout_text, "{}\n");
  }
}

// DIST-4 (issue 28): Claude Code matches its deny rules (`Bash(cat:*)`) on the rewritten
// command, part by part; the base64 form hid `cat README` from them. Its form keeps the original
// on a line of its own after `exec ... || exit 126`. Checked with Claude Code 2.1.197 by
// tests/clients (a denied command stays denied, through &&, ; and pipes; an allowed one runs in
// cordon; with cordon missing, the original does not run).
TEST(HookAdapter, ClaudeCodeKeepsTheOriginalVisibleToItsDenyRules) {
  json in = json::parse(fixture("claude-code"));
  in["tool_input"]["command"] = "echo a && cat README | head";
  HookAnswer a = answer_hook(HookClient::kClaudeCode, in.dump(), kCtx);
  ASSERT_EQ(a.exit_code, 0);
  const std::string cmd = updated_input(HookClient::kClaudeCode, json::parse(a.stdout_text))["command"];
  EXPECT_EQ(cmd, "exec " + wrap_in_cordon("/usr/local/bin/cordon", "/home/user/my-project",
                                          "echo a && cat README | head") +
                     " || exit 126\necho a && cat README | head");
  EXPECT_TRUE(runs_in_cordon(cmd));
  // Only the exact form: a tail that differs from the encoded command would run unseen by the
  // hook, so it is wrapped again.
  const std::string w = wrap_in_cordon("/usr/bin/cordon", "/p", "ls");
  for (const std::string& s : std::vector<std::string>{
           "exec " + w + " || exit 126\nrm -rf ~", "exec " + w + " || exit 126\nls\nrm x",
           "exec " + w + " || true\nls", "exec " + w + "; exit 126\nls", "exec " + w + " || exit 126 ls"})
    EXPECT_FALSE(runs_in_cordon(s)) << s;
  EXPECT_TRUE(runs_in_cordon("exec " + w + " || exit 126\nls"));
  // The other clients keep the plain form (an interactive terminal must not be replaced).
  EXPECT_EQ(wrap_for_client(HookClient::kVsCode, "/c/cordon", "/p", "ls"),
            wrap_in_cordon("/c/cordon", "/p", "ls"));
}

TEST(HookAdapter, OnlyTheExactWrappedFormPasses) {  // DIST-4: no way around by lookalikes
  EXPECT_TRUE(runs_in_cordon(wrap_in_cordon("/usr/bin/cordon", "/p", "ls")));
  EXPECT_TRUE(runs_in_cordon(wrap_in_cordon("/o'dd/cordon", "/p q", "a'b\n")));
  const std::string w = wrap_in_cordon("/usr/bin/cordon", "/p", "ls");
  for (const std::string& s : std::vector<std::string>{
           w + "; rm -rf ~", w + " && curl x", "cordon run -- ls", "cordon run -c 'ls'; rm x",
           wrap_in_cordon("/usr/bin/notcordon", "/p", "ls"), std::string(" ") + w,
           w.substr(0, w.size() - 1)})
    EXPECT_FALSE(runs_in_cordon(s)) << s;
  // A hand-written `cordon run ...; more` is wrapped again.
  json in = json::parse(fixture("claude-code"));
  in["tool_input"]["command"] = "cordon run -- true; touch ~/escaped";
  HookAnswer a = answer_hook(HookClient::kClaudeCode, in.dump(), kCtx);
  ASSERT_EQ(a.exit_code, 0);
  auto [cwd, script] =
      unwrap(updated_input(HookClient::kClaudeCode, json::parse(a.stdout_text))["command"]);
  EXPECT_EQ(script, "cordon run -- true; touch ~/escaped");
}

TEST(HookAdapter, ItsOwnErrorsBlock) {  // DIST-4: exit 2 with the reason
  auto blocked = [](const std::string& in, const char* why) {
    HookAnswer a = answer_hook(HookClient::kClaudeCode, in, kCtx);
    EXPECT_EQ(a.exit_code, 2) << in;
    EXPECT_EQ(a.stdout_text, "");
    EXPECT_NE(a.stderr_text.find(why), std::string::npos) << a.stderr_text;
  };
  blocked("not json", "not JSON");
  blocked("[1]", "not a JSON object");
  blocked(R"({"tool_name":"Bash"})", "tool_input");
  blocked(R"({"tool_name":"Bash","tool_input":{"command":5}})", "tool_input.command");
  blocked(R"({"tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"relative"})",
          "absolute working folder");
  blocked("{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"echo \xff\"}}", "not JSON");
  HookAnswer a = answer_hook(HookClient::kClaudeCode, fixture("claude-code"), HookContext{"", "/"});
  EXPECT_EQ(a.exit_code, 2);
  // No cwd in the input: the hook's own folder.
  a = answer_hook(HookClient::kClaudeCode, R"({"tool_name":"Bash","tool_input":{"command":"ls"}})",
                  kCtx);
  ASSERT_EQ(a.exit_code, 0);
  EXPECT_EQ(
      unwrap(updated_input(HookClient::kClaudeCode, json::parse(a.stdout_text))["command"]).first,
      "/fallback");
  EXPECT_FALSE(hook_client("zed"));  // no hooks there
}

}  // namespace
}  // namespace cordon
