#include "server/shared_session.h"

namespace cordon {

SharedSession::SharedSession(api::Session& session)
    : s_(session), gate_(std::make_shared<Gate>()) {}

SharedSession::~SharedSession() {
  std::lock_guard<std::mutex> lock(gate_->mu);  // waits for an on_end that runs now
  gate_->open = false;
}

api::Result<std::shared_ptr<api::Job>> SharedSession::start_job(
    const api::ExecRequest& request, std::function<void(api::Job&)> on_end) {
  if (!on_end) return s_.start_job(request, {});
  auto gated = [gate = gate_, on_end = std::move(on_end)](api::Job& job) {
    std::lock_guard<std::mutex> lock(gate->mu);
    if (gate->open) on_end(job);
  };
  return s_.start_job(request, std::move(gated));
}

api::Status SharedSession::end() {
  return api::Error{ErrorCode::kInvalid,
                    "this session is held by its keeper; end it with `cordon session end`.", "", 0};
}

}  // namespace cordon
