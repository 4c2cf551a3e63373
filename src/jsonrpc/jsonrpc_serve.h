// `cordon serve` (SRV-1, SRV-3, SRV-4): one connection's dispatch. The reader thread hands it
// each line; requests that may take time (exec, the file tools, review) run on their own
// threads, so that several execs run at once and the client's answers to `approval/ask` keep
// arriving; every response goes out as one line, tagged by its request's id.
//
//   Peer peer(write_stdout_line);
//   ServeConnection conn(ServeOptions{.open = open_real_session}, peer);
//   while (read a line) { conn.on_line(line); if (conn.finished()) break; }
//   conn.close();   // end of input or a signal: ends running commands, waits for aftercare
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "cordon/cordon.h"
#include "jsonrpc/jsonrpc.h"
#include "jsonrpc/jsonrpc_core.h"
#include "jsonrpc/jsonrpc_jobs.h"
#include "jsonrpc/jsonrpc_peer.h"

namespace cordon::rpc {

// `initialize` {project, session?, resume?, away?}.
struct InitializeParams {
  std::string project;
  std::optional<std::string> session;
  bool resume = false;
  bool away = false;
};

// Puts questions to the client as `approval/ask` requests (APR-7, SRV-1) and waits for the
// answer until the question's deadline (APR-5).
class RpcAsker : public Asker {
 public:
  explicit RpcAsker(Peer& peer) : peer_(peer) {}
  PersonAnswer ask(const Question& question) override;

 private:
  Peer& peer_;
};

// Reads a client's answer to `approval/ask`: {decision: "allow"|"deny", scope?: "session"}.
PersonAnswer read_approval_answer(const Peer::CallResult& r, bool session_grant_offered);

struct ServeOptions {
  // Opens the connection's session (the real one: api::Session::open with the server's
  // environment; the fuzzer and tests: a fake). `asker` outlives the session.
  std::function<Result<std::unique_ptr<api::Session>>(const InitializeParams&, Asker* asker)> open;
  size_t max_in_flight = 32;  // requests running at once; more are refused ("unavailable")
  bool threads = true;        // false: each request runs on the reader's thread (fuzzer)
  std::function<void(const std::string&)> log;  // stderr; may be empty
};

class ServeConnection : private ConnectionProtocol {
 public:
  ServeConnection(ServeOptions options, Peer& peer);
  ~ServeConnection() override;
  ServeConnection(const ServeConnection&) = delete;
  ServeConnection& operator=(const ServeConnection&) = delete;

  // One line from the client.
  void on_line(const LineFramer::Line& line) { core_.on_line(line); }
  // True once `shutdown` was answered: the reader stops.
  bool finished() const;
  // End of input, a signal or after `shutdown`: ends every running command (its aftercare
  // runs), answers pending questions as "nobody can be asked", and waits for every request.
  void close() { core_.close(); }

 private:
  // ConnectionProtocol
  Route route(const std::string& method) const override;
  json answer_now(const Message& m) override;
  json run(const Message& m, const api::Cancel* cancel) override;
  bool ready() const override;
  json refusal(CoreRefusal why, const json& id, const Message& m,
               const std::string& detail) const override;

  json initialize(const json& id, const json& params);
  json shutdown(const json& id);
  json away(const json& id, const json& params);
  json cancel(const json& id, const json& params);
  json exec(const json& id, json params, const api::Cancel* cancel);
  json review(const json& id, const json& params);
  json policy(const json& id, const json& params);
  api::Session* session() const;

  ServeOptions opts_;
  Peer& peer_;
  RpcAsker asker_;
  ServeJobs jobs_;  // issue 30: the session's background jobs, and their job/ended
  mutable std::mutex mu_;
  std::unique_ptr<api::Session> session_;
  bool finished_ = false;
  ConnectionCore core_;  // last: its workers are waited for before the session goes
};

}  // namespace cordon::rpc
