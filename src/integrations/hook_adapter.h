// `cordon hook <client>` (DIST-4): reads the hook JSON a coding agent sends before it runs a
// shell command, and answers in that client's format with the command wrapped in
// `cordon run`, in the hook's working folder. The command and the folder travel base64-encoded
// (`cordon run --base64 --cwd B64 -c B64`), so no quote, `$(...)`, backslash, newline or odd
// byte in them can change what runs. Pure: the caller reads stdin and writes the answer.
//
// Claude Code checks its own deny rules (`Bash(cat:*)`) on the command the hook wrote, each
// part of a compound command on its own. For it the original follows on the next line, where
// the client's rules still see it and the shell never gets to it:
//   exec '<cordon>' run --base64 --cwd B64 -c B64 || exit 126
//   <the original command>
// `exec` replaces the shell; when it cannot start cordon, a non-interactive shell exits there.
//
// A hook is a convenience, not a boundary: a client runs the original command when a hook
// fails in any way other than exit status 2, and the agent can still use other tools.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cordon {

enum class HookClient { kClaudeCode, kCodex, kGemini, kCursor, kVsCode };

// "claude-code", "codex", "gemini", "cursor", "vscode"; nullopt for another name.
std::optional<HookClient> hook_client(std::string_view name);
std::vector<std::string> hook_client_names();

struct HookAnswer {
  int exit_code = 0;        // 0: stdout is the client's answer; 2: blocked, stderr says why
  std::string stdout_text;  // the JSON answer, one line
  std::string stderr_text;
};

struct HookContext {
  std::string cordon;        // absolute path of the cordon binary to put in the command
  std::string fallback_cwd;  // the hook process's folder, when the JSON names none
};

// The answer to one hook call. A tool that is not the client's shell, or a command that already
// runs in `cordon run`, passes unchanged (`{}`); the client's other input fields are kept.
HookAnswer answer_hook(HookClient client, std::string_view input, const HookContext& ctx);

// `'<cordon>' run --base64 --cwd <b64 folder> -c <b64 command>`
std::string wrap_in_cordon(const std::string& cordon, const std::string& cwd,
                           const std::string& command);
// What the client runs: wrap_in_cordon's form, or for Claude Code the form above that keeps the
// original visible to its deny rules.
std::string wrap_for_client(HookClient client, const std::string& cordon, const std::string& cwd,
                            const std::string& command);
// True only for a command exactly as wrap_in_cordon or wrap_for_client writes it (with a binary
// named cordon, and the original after `exit 126` the very command encoded): a hand-written
// `cordon run ...; more` is wrapped again, since its tail would run outside.
bool runs_in_cordon(std::string_view command);

}  // namespace cordon
