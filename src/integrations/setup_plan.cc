#include "integrations/setup_plan.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "integrations/json_text_edit.h"

namespace cordon {

namespace {

using json = nlohmann::json;

struct Names {
  SetupClient client;
  const char* name;
};
constexpr Names kNames[] = {
    {SetupClient::kClaudeCode, "claude-code"}, {SetupClient::kCodex, "codex"},
    {SetupClient::kGemini, "gemini"},          {SetupClient::kCursor, "cursor"},
    {SetupClient::kVsCode, "vscode"},          {SetupClient::kZed, "zed"}};

// The plan under construction: edits to one file pile up in one write step.
class Builder {
 public:
  explicit Builder(const SetupInput& in) : in_(in) {}

  // Adds `value` at `keys` in the JSON file; false (with a note) when the user's value is in
  // the way. `registered` is true when the value is there after the plan runs.
  bool json_member(const std::string& path, const std::vector<std::string>& keys, const json& value,
                   const std::string& what,
                   const std::function<bool(const json&)>& same = nullptr) {
    return json_edit(path, json_add_member(text_of(path), keys, value, same), what);
  }
  bool json_item(const std::string& path, const std::vector<std::string>& keys,
                 const std::string& item, const std::string& what) {
    return json_edit(path, json_add_to_array(text_of(path), keys, item), what);
  }
  // Appends text to a file (creating it), unless `present` says it is there already.
  void append(const std::string& path, const std::string& text, const std::string& what) {
    std::string cur = text_of(path);
    std::string add = (cur.empty() || cur.back() == '\n' ? "" : "\n") +
                      std::string(cur.empty() ? "" : "\n") + text;
    write(path, cur, cur + add, {fmt::format("line {}: {}", line_of(cur, cur.size()), add)}, what);
  }
  void insert_at(const std::string& path, size_t offset, const std::string& text,
                 const std::string& what) {
    std::string cur = text_of(path);
    write(path, cur, apply_insertions(cur, {{offset, text}}),
          {fmt::format("line {}: {}", line_of(cur, offset), text)}, what);
  }
  void run(std::vector<std::string> argv, const std::string& what) {
    SetupStep s;
    s.kind = SetupStep::kRun;
    s.argv = std::move(argv);
    s.what = what;
    plan_.steps.push_back(std::move(s));
  }
  void note(const std::string& n) { plan_.notes.push_back(n); }
  std::string text_of(const std::string& path) {
    for (const auto& s : plan_.steps)
      if (s.kind == SetupStep::kWrite && s.path == path) return s.after;
    return in_.read(path).value_or("");
  }
  bool exists(const std::string& path) { return in_.read(path).has_value(); }
  SetupPlan& plan() { return plan_; }

 private:
  bool json_edit(const std::string& path, const TextEdit& e, const std::string& what) {
    if (!e.problem.empty()) {
      note(fmt::format("{}: {} ({}). Not changed.", path, e.problem, what));
      return false;
    }
    if (e.insertions.empty()) return true;  // there already
    std::string cur = text_of(path);
    std::vector<std::string> added;
    for (const auto& i : e.insertions)
      added.push_back(fmt::format("line {}: {}", line_of(cur, i.offset), i.text));
    write(path, cur, apply_insertions(cur, e.insertions), added, what);
    return true;
  }
  void write(const std::string& path, const std::string& before, const std::string& after,
             std::vector<std::string> added, const std::string& what) {
    for (auto& s : plan_.steps)
      if (s.kind == SetupStep::kWrite && s.path == path) {
        s.after = after;
        s.what += "; " + what;
        s.added.insert(s.added.end(), added.begin(), added.end());
        return;
      }
    SetupStep s;
    s.path = path;
    s.creates = !exists(path);
    s.before = before;
    s.after = after;
    s.added = std::move(added);
    s.what = what;
    plan_.steps.push_back(std::move(s));
  }
  const SetupInput& in_;
  SetupPlan plan_;
};

json stdio_server(const SetupInput& in, bool with_type) {
  json s{{"command", in.cordon}, {"args", json::array({"mcp"})}};
  if (with_type)
    s = json{{"type", "stdio"}, {"command", in.cordon}, {"args", json::array({"mcp"})}};
  return s;
}

// The meaning of a server entry: a client writes its own spelling back (`claude mcp add`
// adds `"env": {}`, `"type": "stdio"` is the default), so a second setup compares meaning, not
// bytes (DIST-4). Members with an empty value and the default type are left out.
json server_meaning(const json& s) {
  if (!s.is_object()) return s;
  json out = json::object();
  for (const auto& [k, v] : s.items()) {
    if ((v.is_object() || v.is_array() || v.is_string()) && v.empty()) continue;
    if (v.is_null()) continue;
    if (k == "type" && v == "stdio") continue;
    out[k] = v;
  }
  return out;
}

std::function<bool(const json&)> same_server(const json& ours) {
  return [m = server_meaning(ours)](const json& there) { return server_meaning(there) == m; };
}

// Whether the TOML line at `at` (`shell_tool = false`, spaces and a comment allowed) says false.
bool setting_is_false(const std::string& table, size_t at) {
  size_t e = table.find('\n', at);
  std::string line = table.substr(at, e == std::string::npos ? std::string::npos : e - at);
  line = line.substr(0, line.find('#'));
  std::string compact;
  for (char c : line)
    if (c != ' ' && c != '\t' && c != '\r') compact += c;
  return compact == "shell_tool=false";
}

std::string base(const SetupInput& in) { return in.project ? in.project_dir : in.home; }

void claude_code(const SetupInput& in, Builder& b) {
  const std::string mcp = in.project ? in.project_dir + "/.mcp.json" : in.home + "/.claude.json";
  const json server = stdio_server(in, true);
  TextEdit probe =
      json_add_member(b.text_of(mcp), {"mcpServers", "cordon"}, server, same_server(server));
  if (!in.project && probe.problem.empty() && !probe.insertions.empty() &&
      in.has_command("claude")) {
    b.run({"claude", "mcp", "add", "-s", "user", "cordon", "--", in.cordon, "mcp"},
          "register cordon mcp with Claude Code (user scope)");
  } else if (!b.json_member(mcp, {"mcpServers", "cordon"}, server,
                            "register cordon mcp (mcpServers.cordon)", same_server(server))) {
    b.plan().registered = false;
  }
  if (in.project)
    b.note(
        "Claude Code starts a server from .mcp.json only after you approve it (`claude mcp "
        "list` shows it as pending until then): answer its question the next time you start "
        "`claude` in " +
        in.project_dir + ", or add \"enabledMcpjsonServers\": [\"cordon\"] to " +
        in.project_dir + "/.claude/settings.local.json.");
  const std::string settings =
      in.project ? in.project_dir + "/.claude/settings.json" : in.home + "/.claude/settings.json";
  b.json_item(settings, {"permissions", "deny"}, "Bash",
              "turn the built-in Bash tool off (permissions.deny)");
  b.plan().undo = fmt::format(
      "{}; remove \"Bash\" from permissions.deny in {}",
      in.project
          ? "remove mcpServers.cordon from " + mcp
          : "claude mcp remove -s user cordon (or remove mcpServers.cordon from " + mcp + ")",
      settings);
}

// DIST-4: with its shell off, Codex refuses an MCP tool call that needs its approval when its
// approval policy is `never` (`codex exec`): "MCP tool call requires approval, but approval
// policy is never". cordon asks its own questions, so Codex approves cordon's tools itself.
constexpr const char* kCodexApproval =
    "# cordon asks its own questions; without this, `codex exec` refuses cordon's tools.\n"
    "default_tools_approval_mode = \"approve\"\n";

// The start of the TOML table `header` in `text` (at the start of a line), else npos.
size_t toml_table(const std::string& text, const std::string& header) {
  size_t at = 0;
  while ((at = text.find(header, at)) != std::string::npos) {
    size_t ls = text.rfind('\n', at == 0 ? 0 : at - 1);
    ls = ls == std::string::npos || at == 0 ? 0 : ls + 1;
    if (text.find_first_not_of(" \t", ls) == at) return at;
    at += header.size();
  }
  return std::string::npos;
}

// A [mcp_servers.cordon] table written before default_tools_approval_mode existed gets it.
void codex_approval(const std::string& file, Builder& b) {
  const std::string now = b.text_of(file);
  size_t t = toml_table(now, "[mcp_servers.cordon]");
  if (t == std::string::npos) t = toml_table(now, "[mcp_servers.\"cordon\"]");
  if (t == std::string::npos) return;
  size_t body = now.find('\n', t);
  body = body == std::string::npos ? now.size() : body + 1;
  size_t next = now.find("\n[", body);
  const std::string table =
      now.substr(body, next == std::string::npos ? std::string::npos : next - body);
  if (table.find("default_tools_approval_mode") != std::string::npos) return;
  b.insert_at(file, body, kCodexApproval,
              "let Codex run cordon's tools without its own approval "
              "(default_tools_approval_mode = \"approve\")");
}

// Codex reads TOML: the table is appended whole; `[features] shell_tool = false` goes in the
// user's [features] table when there is one.
void codex(const SetupInput& in, Builder& b) {
  const std::string file = base(in) + "/.codex/config.toml";
  const std::string cur = b.text_of(file);
  auto has_header = [&](const std::string& h) {
    size_t at = 0;
    while ((at = cur.find(h, at)) != std::string::npos) {
      size_t ls = cur.rfind('\n', at == 0 ? 0 : at - 1);
      ls = ls == std::string::npos ? 0 : ls + 1;
      if (cur.find_first_not_of(" \t", ls) == at) return at;
      at += h.size();
    }
    return std::string::npos;
  };
  if (has_header("[mcp_servers.cordon]") != std::string::npos ||
      has_header("[mcp_servers.\"cordon\"]") != std::string::npos) {
    b.note(file + ": [mcp_servers.cordon] is there already; left as it is.");
    codex_approval(file, b);
  } else {
    b.append(file,
             fmt::format("[mcp_servers.cordon]\ncommand = {}\nargs = [\"mcp\"]\n"
                         "# Longer than cordon mcp's own 10-minute default, so cordon answers "
                         "first.\ntool_timeout_sec = 660\nstartup_timeout_sec = 30\n{}",
                         json(in.cordon).dump(), kCodexApproval),
             "register cordon mcp ([mcp_servers.cordon], tool_timeout_sec = 660, "
             "default_tools_approval_mode = \"approve\")");
  }
  const std::string now = b.text_of(file);
  size_t f = std::string::npos;
  {
    size_t at = 0;
    while ((at = now.find("[features]", at)) != std::string::npos) {
      size_t ls = now.rfind('\n', at == 0 ? 0 : at - 1);
      ls = ls == std::string::npos ? 0 : ls + 1;
      if (now.find_first_not_of(" \t", ls) == at) {
        f = at;
        break;
      }
      at += 10;
    }
  }
  if (f == std::string::npos) {
    b.append(file, "[features]\nshell_tool = false\n",
             "turn Codex's shell tool off ([features] shell_tool = false)");
  } else {
    size_t body = now.find('\n', f);
    body = body == std::string::npos ? now.size() : body + 1;
    size_t next = now.find("\n[", body);
    const std::string table =
        now.substr(body, next == std::string::npos ? std::string::npos : next - body);
    size_t k = table.find("shell_tool");
    if (k == std::string::npos) {
      b.insert_at(file, body, "shell_tool = false\n",
                  "turn Codex's shell tool off ([features] shell_tool = false)");
    } else if (!setting_is_false(table, k)) {
      b.note(file +
             ": [features] sets shell_tool already; cordon leaves your value. Set "
             "`shell_tool = false` to make the agent use cordon's bash tool.");
    }
  }
  if (in.project)
    b.note("Codex reads " + file +
           " only in a project you trust (it says \"Untrusted project-local configuration is "
           "disabled\"): run `codex exec --trust` once in " + in.project_dir +
           ", or answer its question the next time you start `codex` there (or add "
           "[projects.\"" + in.project_dir +
           "\"] trust_level = \"trusted\" to " + in.home +
           "/.codex/config.toml). Until then its own shell stays on and cordon is not offered.");
  b.note(
      "If you also add the hook `cordon hook codex`, Codex runs it only after you review it "
      "(/hooks in Codex); until then its commands run without cordon.");
  b.plan().undo = "remove the [mcp_servers.cordon] table and the `shell_tool = false` line from " +
                  file + " (or run `codex mcp remove cordon`)";
}

// DIST-4: Gemini CLI 0.61 never loads workspace policy files (its bundle sets
// disableWorkspacePolicies), so a `.gemini/policies` rule left its shell on. `tools.exclude`
// in settings.json is what it honours, in the user's file and in a trusted project's.
void gemini(const SetupInput& in, Builder& b) {
  // The file is edited even when `gemini` is installed: `gemini mcp add` would change the file
  // that tools.exclude goes in after cordon planned that edit.
  const std::string settings = base(in) + "/.gemini/settings.json";
  const json server = stdio_server(in, false);
  if (!b.json_member(settings, {"mcpServers", "cordon"}, server,
                     "register cordon mcp (mcpServers.cordon)", same_server(server)))
    b.plan().registered = false;
  if (!b.json_item(settings, {"tools", "exclude"}, "run_shell_command",
                   "turn run_shell_command off (tools.exclude)"))
    b.note("Gemini CLI's shell stays ON: cordon could not add run_shell_command to "
           "tools.exclude in " + settings + ".");
  if (in.project)
    b.note("Gemini CLI reads " + settings +
           " only in a folder you trust; in a folder it does not trust it starts no MCP server "
           "and its own shell stays ON. Trust " + in.project_dir +
           " when Gemini asks (or with /permissions), or set GEMINI_CLI_TRUST_WORKSPACE=true "
           "where you start it. `cordon setup gemini` without --project turns the shell off "
           "for every folder.");
  b.plan().undo = fmt::format(
      "gemini mcp remove cordon (or remove mcpServers.cordon from {}); remove "
      "\"run_shell_command\" from tools.exclude in {}",
      settings, settings);
}

void cursor(const SetupInput& in, Builder& b) {
  const std::string file = base(in) + "/.cursor/mcp.json";
  if (!b.json_member(file, {"mcpServers", "cordon"}, stdio_server(in, false),
                     "register cordon mcp (mcpServers.cordon)"))
    b.plan().registered = false;
  b.note(
      "Cursor has no setting that turns its terminal tool off. To send its commands through "
      "cordon too, add the hook `cordon hook cursor` (docs/integrations.md).");
  b.plan().undo = "remove mcpServers.cordon from " + file;
}

void vscode(const SetupInput& in, Builder& b) {
  const std::string file =
      in.project ? in.project_dir + "/.vscode/mcp.json" : in.config_home + "/Code/User/mcp.json";
  const json server = stdio_server(in, true);
  TextEdit probe = json_add_member(b.text_of(file), {"servers", "cordon"}, server);
  if (!in.project && probe.problem.empty() && !probe.insertions.empty() && in.has_command("code")) {
    json add{{"name", "cordon"},
             {"type", "stdio"},
             {"command", in.cordon},
             {"args", json::array({"mcp"})}};
    b.run({"code", "--add-mcp", add.dump()}, "register cordon mcp with VS Code (user profile)");
  } else if (!b.json_member(file, {"servers", "cordon"}, server,
                            "register cordon mcp (servers.cordon)")) {
    b.plan().registered = false;
  }
  b.note(
      "VS Code's terminal tool is turned off in the Chat view's tool picker (untick "
      "runInTerminal); no settings file does it. The hook `cordon hook vscode` sends its "
      "commands through cordon instead.");
  b.plan().undo = "remove servers.cordon from " + file;
}

void zed(const SetupInput& in, Builder& b) {
  const std::string file =
      in.project ? in.project_dir + "/.zed/settings.json" : in.config_home + "/zed/settings.json";
  json server{{"source", "custom"},
              {"command", in.cordon},
              {"args", json::array({"mcp"})},
              {"env", json::object()}};
  if (!b.json_member(file, {"context_servers", "cordon"}, server,
                     "register cordon mcp (context_servers.cordon)"))
    b.plan().registered = false;
  json profile{{"name", "cordon"},
               {"tools",
                {{"terminal", false},
                 {"read_file", true},
                 {"grep", true},
                 {"find_path", true},
                 {"list_directory", true},
                 {"edit_file", true},
                 {"diagnostics", true},
                 {"thinking", true}}},
               {"enable_all_context_servers", true}};
  b.json_member(file, {"agent", "profiles", "cordon"}, profile,
                "an agent profile without the terminal tool (agent.profiles.cordon)");
  b.json_member(file, {"agent", "default_profile"}, "cordon",
                "make it the default profile (agent.default_profile)");
  b.plan().undo =
      "remove context_servers.cordon, agent.profiles.cordon and "
      "agent.default_profile from " +
      file;
}

}  // namespace

std::optional<SetupClient> setup_client(const std::string& name) {
  for (const auto& n : kNames)
    if (name == n.name) return n.client;
  return std::nullopt;
}

std::vector<std::string> setup_client_names() {
  std::vector<std::string> out;
  for (const auto& n : kNames) out.push_back(n.name);
  return out;
}

SetupPlan plan_setup(const SetupInput& in) {
  Builder b(in);
  switch (in.client) {
    case SetupClient::kClaudeCode:
      claude_code(in, b);
      break;
    case SetupClient::kCodex:
      codex(in, b);
      break;
    case SetupClient::kGemini:
      gemini(in, b);
      break;
    case SetupClient::kCursor:
      cursor(in, b);
      break;
    case SetupClient::kVsCode:
      vscode(in, b);
      break;
    case SetupClient::kZed:
      zed(in, b);
      break;
  }
  return std::move(b.plan());
}

std::string describe_setup(const SetupPlan& plan) {
  std::string out;
  if (plan.steps.empty()) out += "Nothing to change: cordon is set up already.\n";
  for (const auto& s : plan.steps) {
    if (s.kind == SetupStep::kRun) {
      std::string cmd;
      for (const auto& a : s.argv) cmd += (cmd.empty() ? "" : " ") + json(a).dump();
      out += fmt::format("run: {}\n  ({})\n", cmd, s.what);
      continue;
    }
    out += fmt::format("{} {}\n  ({})\n", s.creates ? "create" : "edit", s.path, s.what);
    if (s.added.size() > 1) out += "  (each line number counts the insertions above it)\n";
    for (const auto& a : s.added) {
      out += "  insert at " + a.substr(0, a.find(':')) + ":\n";
      std::string body = a.substr(a.find(':') + 2);
      size_t at = 0;
      while (at < body.size()) {
        size_t e = body.find('\n', at);
        out += "  + " + body.substr(at, e == std::string::npos ? std::string::npos : e - at) + "\n";
        if (e == std::string::npos) break;
        at = e + 1;
      }
    }
  }
  for (const auto& n : plan.notes) out += "note: " + n + "\n";
  if (!plan.undo.empty()) out += "undo: " + plan.undo + "\n";
  return out;
}

}  // namespace cordon
