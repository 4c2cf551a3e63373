// `cordon hook <client>` (DIST-4): the hook adapter's face. Reads the client's hook JSON on
// stdin, writes the answer on stdout; on an error of its own, exit status 2 (the client
// blocks the command) with the reason on stderr.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "integrations/hook_adapter.h"

namespace cordon {

namespace {

constexpr size_t kMaxHookInput = 16u << 20;

bool read_stdin(std::string& out) {
  char buf[65536];
  for (;;) {
    size_t n = std::fread(buf, 1, sizeof(buf), stdin);
    out.append(buf, n);
    if (out.size() > kMaxHookInput) return false;
    if (n < sizeof(buf)) return !std::ferror(stdin);
  }
}

}  // namespace

int cmd_hook(const CliContext& ctx, const std::string& client_name) {
  auto client = hook_client(client_name);
  if (!client) {
    std::string names;
    for (const auto& n : hook_client_names()) names += (names.empty() ? "" : ", ") + n;
    std::fprintf(stderr, "cordon hook: no client named `%s`; use one of %s.\n", client_name.c_str(),
                 names.c_str());
    return 2;
  }
  std::string input;
  if (!read_stdin(input)) {
    std::fprintf(stderr,
                 "cordon hook: could not read the hook input (over 16 MiB?); the "
                 "command was not run.\n");
    return 2;
  }
  HookAnswer a = answer_hook(*client, input, HookContext{ctx.exe.rfind('/', 0) == 0 ? ctx.exe : "", ctx.cwd});
  std::fputs(a.stdout_text.c_str(), stdout);
  std::fputs(a.stderr_text.c_str(), stderr);
  std::fflush(stdout);
  return a.exit_code;
}

}  // namespace cordon
