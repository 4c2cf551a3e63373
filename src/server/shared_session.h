// The session keeper's one session seen by each of its connections (issue 30): every
// connection's ServeConnection holds a SharedSession, which forwards each call to the keeper's
// session and does not own it, so its background jobs outlive the connection that started them.
// A job's `on_end` (the connection's `job/ended` notification) is called only while the view
// lives: destroying the view waits for one running and drops the later ones.
//
//   auto view = std::make_unique<SharedSession>(*keeper_session);
//   ServeConnection conn(ServeOptions{.open = [&](...) { return std::move(view); }}, peer);
#pragma once

#include <memory>
#include <mutex>

#include "cordon/cordon.h"

namespace cordon {

class SharedSession : public api::Session {
 public:
  explicit SharedSession(api::Session& session);
  ~SharedSession() override;

  const api::SessionInfo& info() const override { return s_.info(); }
  std::vector<std::string> start_notices() override { return s_.start_notices(); }
  api::SandboxStatus sandbox_status() override { return s_.sandbox_status(); }
  api::Result<api::ExecResult> exec(const api::ExecRequest& r) override { return s_.exec(r); }
  api::Result<std::shared_ptr<api::Job>> start_job(const api::ExecRequest& request,
                                                   std::function<void(api::Job&)> on_end) override;
  std::vector<std::shared_ptr<api::Job>> jobs() override { return s_.jobs(); }
  api::Result<api::ReadFileResult> read_file(const api::ReadFileRequest& r) override {
    return s_.read_file(r);
  }
  api::Result<api::WriteFileResult> write_file(const api::WriteFileRequest& r) override {
    return s_.write_file(r);
  }
  api::Result<api::EditFileResult> edit_file(const api::EditFileRequest& r) override {
    return s_.edit_file(r);
  }
  api::Result<api::SearchResult> search(const api::SearchRequest& r) override {
    return s_.search(r);
  }
  api::Result<api::Classification> classify(const api::ClassifyRequest& r) override {
    return s_.classify(r);
  }
  api::Result<api::ReviewStarted> review_start() override { return s_.review_start(); }
  api::Result<api::ReviewReport> review() override { return s_.review(); }
  api::Result<std::string> policy_json() override { return s_.policy_json(); }
  api::Status set_away(bool on) override { return s_.set_away(on); }
  bool away() const override { return s_.away(); }
  void begin_task() override { s_.begin_task(); }
  void end_task() override { s_.end_task(); }
  // The keeper's session ends with the keeper (`cordon session end`), never through one of
  // its connections.
  api::Status end() override;

 private:
  struct Gate {
    std::mutex mu;
    bool open = true;
  };
  api::Session& s_;
  std::shared_ptr<Gate> gate_;
};

}  // namespace cordon
