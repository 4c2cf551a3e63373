#include "integrations/hook_adapter.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/base64.h"

namespace cordon {

namespace {

using json = nlohmann::json;

struct ClientShape {
  HookClient client;
  const char* name;
  std::vector<std::string> shell_tools;  // the tool names that run a shell command
};

// Tool names from each client's documentation: Claude Code `Bash`; Codex's Bash-like tools;
// Gemini CLI `run_shell_command`; Cursor `Shell`; VS Code's `run_in_terminal`.
const std::vector<ClientShape>& shapes() {
  static const std::vector<ClientShape> s = {
      {HookClient::kClaudeCode, "claude-code", {"Bash"}},
      {HookClient::kCodex,
       "codex",
       {"Bash", "shell", "local_shell", "shell_command", "exec_command", "container.exec"}},
      {HookClient::kGemini, "gemini", {"run_shell_command"}},
      {HookClient::kCursor, "cursor", {"Shell", "run_terminal_cmd", "Terminal"}},
      {HookClient::kVsCode, "vscode", {"run_in_terminal", "runInTerminal"}},
  };
  return s;
}

const ClientShape& shape(HookClient c) {
  for (const auto& s : shapes())
    if (s.client == c) return s;
  return shapes().front();
}

HookAnswer block(const std::string& why) { return HookAnswer{2, "", "cordon hook: " + why + "\n"}; }

HookAnswer pass() { return HookAnswer{0, "{}\n", ""}; }

std::string str_at(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : "";
}

std::string join_folder(const std::string& base, const std::string& sub) {
  if (sub.empty()) return base;
  if (sub.front() == '/') return sub;
  if (base.empty()) return "";
  return base.back() == '/' ? base + sub : base + "/" + sub;
}

// The folder the client would run the command in: its own field where it has one (Gemini's
// `dir_path`, Cursor's `working_directory`, relative to the session's folder), else `cwd`,
// else Cursor's first workspace root, else the hook's own folder.
std::string command_folder(HookClient c, const json& in, const json& tool_input,
                           const HookContext& ctx) {
  std::string base = str_at(in, "cwd");
  if (base.empty() && c == HookClient::kCursor && in.contains("workspace_roots") &&
      in["workspace_roots"].is_array() && !in["workspace_roots"].empty() &&
      in["workspace_roots"][0].is_string())
    base = in["workspace_roots"][0].get<std::string>();
  if (base.empty()) base = ctx.fallback_cwd;
  if (c == HookClient::kGemini) return join_folder(base, str_at(tool_input, "dir_path"));
  if (c == HookClient::kCursor) return join_folder(base, str_at(tool_input, "working_directory"));
  return base;
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json client_answer(HookClient c, json updated, const std::string& original) {
  const std::string reason = "cordon: runs in the sandbox (cordon run): " + original;
  switch (c) {
    case HookClient::kGemini:
      return json{{"decision", "allow"},
                  {"reason", reason},
                  {"hookSpecificOutput",
                   {{"hookEventName", "BeforeTool"}, {"tool_input", std::move(updated)}}}};
    case HookClient::kCursor:
      return json{{"permission", "allow"}, {"updated_input", std::move(updated)}};
    case HookClient::kClaudeCode:
    case HookClient::kCodex:
    case HookClient::kVsCode:
      break;
  }
  return json{{"hookSpecificOutput",
               {{"hookEventName", "PreToolUse"},
                {"permissionDecision", "allow"},
                {"permissionDecisionReason", reason},
                {"updatedInput", std::move(updated)}}}};
}

}  // namespace

std::optional<HookClient> hook_client(std::string_view name) {
  for (const auto& s : shapes())
    if (name == s.name) return s.client;
  return std::nullopt;
}

std::vector<std::string> hook_client_names() {
  std::vector<std::string> out;
  for (const auto& s : shapes()) out.push_back(s.name);
  return out;
}

std::string wrap_in_cordon(const std::string& cordon, const std::string& cwd,
                           const std::string& command) {
  // The binary's path in single quotes: a path holds no NUL, and a quote in it is closed,
  // escaped and reopened.
  std::string quoted = "'";
  for (char ch : cordon) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  quoted += "'";
  return fmt::format("{} run --base64 --cwd {} -c {}", quoted, base64_encode(cwd),
                     base64_encode(command));
}

std::string wrap_for_client(HookClient client, const std::string& cordon, const std::string& cwd,
                            const std::string& command) {
  if (client != HookClient::kClaudeCode) return wrap_in_cordon(cordon, cwd, command);
  return "exec " + wrap_in_cordon(cordon, cwd, command) + " || exit 126\n" + command;
}

namespace {

// wrap_in_cordon's form exactly; the command it runs.
std::optional<std::string> plain_wrapped(std::string_view command) {
  // Only the exact form wrap_in_cordon writes: anything more (`cordon run x; rm -rf ~`) would
  // run its tail outside the sandbox, so it is wrapped like any other command.
  const std::string_view marker = " run --base64 --cwd ";
  const size_t at = command.find(marker);
  if (command.size() < 2 || command.front() != '\'' || at == std::string_view::npos)
    return std::nullopt;
  const std::string_view quoted = command.substr(0, at);
  if (quoted.back() != '\'') return std::nullopt;
  std::string path;
  for (size_t i = 1; i + 1 < quoted.size(); ++i) {
    if (quoted.substr(i, 4) == "'\\''") {
      path += '\'';
      i += 3;
    } else if (quoted[i] == '\'') {
      return std::nullopt;
    } else {
      path += quoted[i];
    }
  }
  const size_t slash = path.rfind('/');
  if (path.substr(slash == std::string::npos ? 0 : slash + 1) != "cordon") return std::nullopt;
  const std::string_view rest = command.substr(at + marker.size());
  const size_t c = rest.find(" -c ");
  if (c == std::string_view::npos) return std::nullopt;
  auto cwd = base64_decode(rest.substr(0, c));
  auto cmd = base64_decode(rest.substr(c + 4));
  if (!cwd || !cmd || wrap_in_cordon(path, *cwd, *cmd) != command) return std::nullopt;
  return *cmd;
}

}  // namespace

bool runs_in_cordon(std::string_view command) {
  if (plain_wrapped(command)) return true;
  // `exec <plain form> || exit 126\n<the original>`: the tail must be the command encoded.
  const std::string_view head = "exec ", tail = " || exit 126\n";
  if (command.substr(0, head.size()) != head) return false;
  const size_t t = command.find(tail);
  if (t == std::string_view::npos) return false;
  auto cmd = plain_wrapped(command.substr(head.size(), t - head.size()));
  return cmd && *cmd == command.substr(t + tail.size());
}

HookAnswer answer_hook(HookClient client, std::string_view input, const HookContext& ctx) {
  json in;
  try {
    in = json::parse(input);
  } catch (const json::exception& e) {
    return block(
        fmt::format("the hook input is not JSON ({}); the command was not run.", e.what()));
  }
  if (!in.is_object())
    return block("the hook input is not a JSON object; the command was not run.");
  const std::string tool = str_at(in, "tool_name");
  const auto& tools = shape(client).shell_tools;
  if (std::find(tools.begin(), tools.end(), tool) == tools.end()) return pass();
  if (!in.contains("tool_input") || !in["tool_input"].is_object())
    return block(
        fmt::format("`{}` came without a `tool_input` object; the command was not run.", tool));
  json updated = in["tool_input"];
  if (!updated.contains("command") || !updated["command"].is_string())
    return block(
        fmt::format("`{}` came without `tool_input.command` as a string; the command "
                    "was not run.",
                    tool));
  const std::string command = updated["command"].get<std::string>();
  if (runs_in_cordon(command)) return pass();
  if (ctx.cordon.empty() || ctx.cordon.front() != '/')
    return block("cannot tell where the cordon binary is, to put it in the command.");
  const std::string cwd = command_folder(client, in, updated, ctx);
  if (cwd.empty() || cwd.front() != '/')
    return block(
        fmt::format("the hook input names no absolute working folder (`cwd`: \"{}\"); "
                    "the command was not run.",
                    cwd));
  updated["command"] = wrap_for_client(client, ctx.cordon, cwd, command);
  return HookAnswer{0, dump(client_answer(client, std::move(updated), command)) + "\n", ""};
}

}  // namespace cordon
