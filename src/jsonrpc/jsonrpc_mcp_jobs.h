// `cordon mcp`'s background jobs (issue 30): `bash` with `run_in_background: true` starts a job
// in the connection's session (api::Session::start_job) and answers its id at once;
// `bash_output` answers what the job printed since the last `bash_output` for it (the offset
// is kept here, so the model needs none), and its end once it has ended; `kill_bash` ends its
// whole process tree; `bash_write` writes to its input (open until it gives `eof`; with `tty`,
// typed into the job's terminal). The names are Claude Code's own tools' (BashOutput's `bash_id`
// and KillShell's `shell_id` are accepted for `job`). The jobs are the session's: they end with it,
// when the connection closes, and a job of another connection is unknown here.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "cordon/cordon.h"
#include "jsonrpc/jsonrpc.h"

namespace cordon::rpc {

class McpJobs {
 public:
  // bash_output, bash_write or kill_bash.
  static bool is_job_tool(std::string_view name);

  // `bash`'s arguments without `run_in_background`: {job, running, ...} at once.
  Result<json> start(api::Session& s, const json& args);
  // bash_output or kill_bash: {job, running, stdout, stderr, dropped?, killed?} and, once
  // ended, the fields of exec's result (stdout and stderr: only what was not read before);
  // the job's refusal as an Error. `cancel` ends kill_bash's wait for the end.
  Result<json> call(api::Session& s, std::string_view tool, const json& args,
                    const api::Cancel* cancel);

 private:
  Result<std::shared_ptr<api::Job>> find(api::Session& s, const json& args) const;
  Result<json> kill(api::Session& s, const json& args, const api::Cancel* cancel);
  Result<json> write(api::Session& s, const json& args);
  // What came since the last read, and the end once ended; advances the read offset.
  Result<json> read(const api::Job& job);

  std::mutex mu_;
  std::map<std::string, uint64_t> read_;  // job id -> offset read up to
};

}  // namespace cordon::rpc
