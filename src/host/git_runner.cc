#include "host/git_runner.h"

#include <unistd.h>

#include "core/paths.h"
#include "core/strings.h"
#include "process/process.h"

namespace cordon {

std::string find_git(const EnvMap& env) {
  for (const char* p : {"/usr/bin/git", "/usr/local/bin/git", "/bin/git"})
    if (access(p, X_OK) == 0) return p;
  return resolve_command("git", env, "/");
}

const std::vector<std::string>& safe_git_overrides() {
  static const std::vector<std::string> kOverrides = {"core.fsmonitor=false",
                                                      "core.hooksPath=/dev/null",
                                                      "core.pager=cat",
                                                      "core.editor=false",
                                                      "sequence.editor=false",
                                                      "core.sshCommand=false",
                                                      "core.askPass=",
                                                      "credential.helper=",
                                                      "diff.external=",
                                                      "core.gitProxy=",
                                                      "protocol.allow=never",
                                                      "core.attributesFile=/dev/null",
                                                      "core.untrackedCache=false"};
  return kOverrides;
}

Result<GitOutput> run_git(const std::vector<std::string>& args, const std::string& cwd,
                          const EnvMap& env,
                          const std::vector<std::pair<std::string, std::string>>& extra_env,
                          const std::string& input, std::chrono::milliseconds timeout) {
  std::string git = find_git(env);
  if (git.empty()) return make_error(ErrorKind::kGit, "git is not installed");
  ProcessSpec spec;
  spec.path = git;
  spec.argv = {"git"};
  for (const auto& o : safe_git_overrides()) {
    spec.argv.push_back("-c");
    spec.argv.push_back(o);
  }
  spec.argv.push_back("--no-pager");
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = env;
  // Nothing may redirect git to another repository or index than the project's own.
  for (const char* v : {"GIT_DIR",
                        "GIT_WORK_TREE",
                        "GIT_INDEX_FILE",
                        "GIT_OBJECT_DIRECTORY",
                        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
                        "GIT_COMMON_DIR",
                        "GIT_NAMESPACE",
                        "GIT_CEILING_DIRECTORIES",
                        "GIT_DISCOVERY_ACROSS_FILESYSTEM",
                        "GIT_EXTERNAL_DIFF",
                        "GIT_PAGER",
                        "GIT_EDITOR",
                        "GIT_SSH_COMMAND",
                        "GIT_ASKPASS",
                        "GIT_TRACE",
                        "GIT_CONFIG_PARAMETERS",
                        "GIT_CONFIG_COUNT",
                        "GIT_SSH",
                        "GIT_PROXY_COMMAND",
                        "GIT_SEQUENCE_EDITOR",
                        "SSH_ASKPASS",
                        "GIT_ATTR_SOURCE"})
    spec.env.unset(v);
  spec.env.set("GIT_OPTIONAL_LOCKS", "0");
  spec.env.set("GIT_TERMINAL_PROMPT", "0");
  spec.env.set("LC_ALL", "C");
  spec.env.set("GIT_ATTR_NOSYSTEM", "1");
  for (const auto& [k, v] : extra_env) spec.env.set(k, v);
  spec.cwd = cwd;
  spec.in = input.empty() ? InputMode::kNull : InputMode::kData;
  spec.in_data = input;
  spec.out = OutputMode::kCapture;
  spec.err = OutputMode::kCapture;
  spec.capture_limit = 64 << 20;
  // Well under any command's own timeout: a git that waits on something a command planted (a
  // FIFO for a file git reads) never holds cordon for long (GIT-8).
  spec.timeout = timeout;
  spec.new_process_group = true;
  spec.end_group_on_exit = true;
  spec.output_grace = std::chrono::milliseconds(200);
  auto o = run_process(spec);
  if (!o.ok()) return o.error();
  GitOutput g;
  g.status = o->timed_out ? 124 : o->exit_code;
  g.out = std::move(o->out);
  g.err = std::move(o->err);
  return g;
}

}  // namespace cordon
