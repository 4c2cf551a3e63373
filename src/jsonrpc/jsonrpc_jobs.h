// `cordon serve`'s background jobs (issue 30, docs/protocol.md): `exec` with "background": true
// answers {"job": id} at once; job/output, job/write, job/signal, job/wait and job/list work on
// the jobs of the connection's session; each job's end is told in a `job/ended` notification
// with the fields of exec's result. The jobs are the session's (api::Session::start_job): they
// end with it, when the connection closes.
#pragma once

#include <atomic>
#include <string>

#include "cordon/cordon.h"
#include "jsonrpc/jsonrpc.h"
#include "jsonrpc/jsonrpc_peer.h"

namespace cordon::rpc {

class ServeJobs {
 public:
  explicit ServeJobs(Peer& peer) : peer_(peer) {}

  // The methods answered at once (all job/... but job/wait, which runs on a worker).
  static bool answers_now(const std::string& method);
  static bool is_job_method(const std::string& method);
  // `exec` with "background": true.
  static bool is_background(const json& params);

  json start(api::Session& s, const json& id, const json& params);
  // A job/... method; `cancel` ends a job/wait early.
  json answer(api::Session& s, const std::string& method, const json& id, const json& params,
              const api::Cancel* cancel);
  // No more job/ended notifications: the connection is closing.
  void quiet() { quiet_ = true; }

 private:
  json output(api::Session& s, const json& id, const json& params);
  json write(api::Session& s, const json& id, const json& params);
  json signal(api::Session& s, const json& id, const json& params);
  json wait(api::Session& s, const json& id, const json& params, const api::Cancel* cancel);
  json resize(api::Session& s, const json& id, const json& params);
  json list(api::Session& s, const json& id, const json& params);
  void ended(api::Job& job);

  Peer& peer_;
  std::atomic<bool> quiet_{false};
};

}  // namespace cordon::rpc
