// `cordon setup <client>` (DIST-4): what registering `cordon mcp` with a coding agent, and
// turning its own shell tool off where it allows that, takes: commands of the client's own to
// run, and settings files to change. Pure: the face gives the folders, whether the client's
// command is installed, and a reader for the files; it then prints or carries out the plan.
// Files are only ever added to (json_text_edit.h), never rewritten from a parse.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cordon {

enum class SetupClient { kClaudeCode, kCodex, kGemini, kCursor, kVsCode, kZed };

// "claude-code", "codex", "gemini", "cursor", "vscode", "zed".
std::optional<SetupClient> setup_client(const std::string& name);
std::vector<std::string> setup_client_names();

struct SetupInput {
  SetupClient client = SetupClient::kClaudeCode;
  bool project = false;     // --project: the project's own files, not the user's
  std::string home;         // the user's home folder
  std::string config_home;  // $XDG_CONFIG_HOME, else ~/.config
  std::string project_dir;  // with --project
  std::string cordon;       // absolute path of cordon, as the client will start it
  std::function<bool(const std::string& program)> has_command;
  // A file's content; nullopt when it does not exist.
  std::function<std::optional<std::string>(const std::string& path)> read;
};

struct SetupStep {
  enum Kind { kRun, kWrite } kind = kWrite;
  std::string what;                // one line for a person
  std::vector<std::string> argv;   // kRun
  std::string path;                // kWrite
  bool creates = false;            // kWrite: the file does not exist yet
  std::string before, after;       // kWrite: the whole file, before and after
  std::vector<std::string> added;  // kWrite: each insertion, "line N: text"
};

struct SetupPlan {
  std::vector<SetupStep> steps;    // empty: everything is in place already
  std::vector<std::string> notes;  // what cordon left alone, and why; what to do by hand
  bool registered = true;          // false: `cordon mcp` could not be registered
  std::string undo;                // how to take it back
};

SetupPlan plan_setup(const SetupInput& in);

// The plan as `--print` shows it: each command and each file's insertions, exactly.
std::string describe_setup(const SetupPlan& plan);

}  // namespace cordon
