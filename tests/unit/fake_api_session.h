// A fake api::Session for the protocol tests and the JSON-RPC fuzzer: it runs no process and
// touches no file. Its behaviour is keyed on the command it is given:
//   "echo WORDS"  -> exit 0, stdout "WORDS\n"
//   "fail N"      -> exit N, stderr "failed\n", a note
//   "refuse"      -> Error refused;   "held" -> Error held;   "invalid" -> Error invalid
//   "wait MS"     -> waits MS milliseconds or until canceled (canceled: exit 130)
//   network / outside_sandbox -> asks the Asker first (kNetwork / kOutsideSandbox), like the
//                                library; a "no" is Error refused with the approver's words
// read_file of a path starting with ".env" asks kCredentialRead first.
#pragma once

#include <poll.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "cordon/cordon.h"

namespace cordon::testing {

class FakeApiSession : public api::Session {
 public:
  static api::Error api_fail(api::ErrorCode code, std::string message) {
    return {code, std::move(message), "", 0};
  }

  explicit FakeApiSession(Asker* asker, std::string project = "/p") : asker_(asker) {
    info_.id = "0123456789abcdef";
    info_.project = std::move(project);
  }

  const api::SessionInfo& info() const override { return info_; }
  std::vector<std::string> start_notices() override { return {"fake notice"}; }
  api::SandboxStatus sandbox_status() override { return {"on", "bubblewrap", true, ""}; }

  api::Result<api::ExecResult> exec(const api::ExecRequest& r) override {
    execs.fetch_add(1);
    last_timeout = r.timeout;
    std::string cmd = r.command ? *r.command : (r.argv.empty() ? "" : r.argv[0]);
    for (size_t i = 1; !r.command && i < r.argv.size(); ++i) cmd += " " + r.argv[i];
    if (r.network || r.outside_sandbox) {
      ApprovalRequest ask;
      ask.kind = r.outside_sandbox ? AskKind::kOutsideSandbox : AskKind::kNetwork;
      ask.command = cmd;
      ask.reason = r.reason;
      if (auto refused = put(ask)) return *refused;
    }
    api::ExecResult res;
    if (cmd.rfind("echo ", 0) == 0) {
      res.stdout_text = cmd.substr(5) + "\n";
    } else if (cmd.rfind("fail ", 0) == 0) {
      res.exit_code = std::atoi(cmd.c_str() + 5);
      res.stderr_text = "failed\n";
      res.notes.push_back("a note");
    } else if (cmd == "refuse") {
      return api_fail(api::ErrorCode::kRefused, "refused by the fake");
    } else if (cmd == "held") {
      return api_fail(api::ErrorCode::kHeld, "held by the fake");
    } else if (cmd == "invalid") {
      return api_fail(api::ErrorCode::kInvalid, "invalid for the fake");
    } else if (cmd.rfind("wait ", 0) == 0) {
      int ms = std::atoi(cmd.c_str() + 5);
      if (r.on_output) r.on_output(1, "waiting\n");  // issue 30: live output, not kept
      in_wait.fetch_add(1);
      bool canceled = false;
      if (r.cancel && r.cancel->fd() >= 0) {
        pollfd p{r.cancel->fd(), POLLIN, 0};
        canceled = ::poll(&p, 1, ms) > 0;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      }
      in_wait.fetch_sub(1);
      if (canceled) {
        res.canceled = true;
        res.exit_code = 130;
        res.signal = 2;
      }
    }
    if (r.stdin_data) res.stdout_text += *r.stdin_data;
    return res;
  }

  api::Result<std::shared_ptr<api::Job>> start_job(const api::ExecRequest&,
                                                   std::function<void(api::Job&)>) override {
    return api_fail(api::ErrorCode::kUnavailable, "the fake runs no background jobs");
  }
  std::vector<std::shared_ptr<api::Job>> jobs() override { return {}; }

  api::Result<api::ReadFileResult> read_file(const api::ReadFileRequest& r) override {
    if (r.path.rfind(".env", 0) == 0) {
      ApprovalRequest ask;
      ask.kind = AskKind::kCredentialRead;
      ask.path = r.path;
      if (auto refused = put(ask)) return *refused;
    }
    if (r.path == "missing") return api_fail(api::ErrorCode::kInvalid, "missing does not exist");
    api::ReadFileResult res;
    res.path = info_.project + "/" + r.path;
    res.content = "content of " + r.path + "\n";
    res.line_count = 1;
    res.total_lines = 1;
    res.size = res.content.size();
    return res;
  }
  api::Result<api::WriteFileResult> write_file(const api::WriteFileRequest& r) override {
    return api::WriteFileResult{info_.project + "/" + r.path, r.content.size(), true, {}};
  }
  api::Result<api::EditFileResult> edit_file(const api::EditFileRequest& r) override {
    if (r.old_text.empty()) return api_fail(api::ErrorCode::kInvalid, "old_text is empty");
    return api::EditFileResult{info_.project + "/" + r.path, 1};
  }
  api::Result<api::SearchResult> search(const api::SearchRequest& r) override {
    if (r.pattern == "(") return api_fail(api::ErrorCode::kInvalid, "missing )");
    api::SearchResult res;
    res.matches.push_back({"a.txt", 3, "a line with " + r.pattern});
    res.files_searched = 1;
    return res;
  }
  api::Result<api::Classification> classify(const api::ClassifyRequest& r) override {
    std::string cmd = r.command ? *r.command : (r.argv.empty() ? "" : r.argv[0]);
    if (cmd.rfind("rm", 0) == 0)
      return api::Classification{"needs-approval", "rm writes", "rm", "not-read-only"};
    return api::Classification{"read-only", "on the list", cmd, "read-only-list"};
  }
  api::Result<api::ReviewStarted> review_start() override {
    review_started = true;
    return api::ReviewStarted{"abc123", 2};
  }
  api::Result<api::ReviewReport> review() override {
    if (!review_started) return api_fail(api::ErrorCode::kInvalid, "no review was started");
    api::ReviewReport r;
    r.commit = "abc123";
    r.changed = {"M README.md"};
    r.text = "changed: README.md\n";
    return r;
  }
  api::Result<std::string> policy_json() override { return std::string(R"({"mode":"on"})"); }
  api::Status set_away(bool on) override {
    if (on && refuse_away)
      return api_fail(api::ErrorCode::kRefused, "Going away is refused under approve-all");
    away_ = on;
    return Ok{};
  }
  bool away() const override { return away_; }
  void begin_task() override {}
  void end_task() override {}
  api::Status end() override { return Ok{}; }

  std::atomic<int> execs{0};
  std::atomic<int> in_wait{0};
  std::optional<std::chrono::milliseconds> last_timeout;  // of the latest exec
  bool refuse_away = false;
  bool review_started = false;

 private:
  // Asks like the library: nullopt when allowed, else the refusal.
  std::optional<api::Error> put(const ApprovalRequest& ask) {
    if (away_) return api_fail(api::ErrorCode::kRefused, "refused: the user is away");
    if (!asker_) return api_fail(api::ErrorCode::kRefused, "refused: nobody can be asked");
    Question q;
    q.request = ask;
    q.session_grant_offered = ask.kind != AskKind::kOutsideSandbox;
    q.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(deadline_s);
    PersonAnswer a = asker_->ask(q);
    if (a.reply == Reply::kAllowOnce || a.reply == Reply::kAllowForSession) return std::nullopt;
    if (a.reply == Reply::kDeny) return api_fail(api::ErrorCode::kRefused, "denied by the user");
    if (a.reply == Reply::kTimeout)
      return api_fail(api::ErrorCode::kRefused, "refused: no answer in time");
    return api_fail(api::ErrorCode::kRefused, "refused: " + a.note);
  }

 public:
  int deadline_s = 5;

 private:
  Asker* asker_;
  api::SessionInfo info_;
  bool away_ = false;
};

}  // namespace cordon::testing
