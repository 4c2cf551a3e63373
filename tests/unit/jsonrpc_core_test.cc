// The connection core that `cordon serve` and `cordon mcp` share (SRV-3, SRV-4), over a
// protocol strategy of the test's own: the order of the refusals, requests in flight, silent
// and answered cancellation, a request that throws, and close() ending what runs.
#include "jsonrpc/jsonrpc_core.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "fake_wire.h"

namespace cordon::rpc {
namespace {

using testing::Wire;

// A protocol with one method of each route: "hello" (now), "poke" (now, in session), "work"
// (on a worker: waits until released or cancelled), "boom" (throws).
class TestProtocol : public ConnectionProtocol {
 public:
  Route route(const std::string& method) const override {
    if (method == "hello") return Route::kNow;
    if (method == "poke") return Route::kNowInSession;
    if (method == "work" || method == "boom") return Route::kWorker;
    return Route::kUnknown;
  }
  json answer_now(const Message& m) override {
    if (m.method == "hello") ready_ = true;
    return make_response(m.id, m.method);
  }
  json run(const Message& m, const api::Cancel* cancel) override {
    if (m.method == "boom") throw std::runtime_error("it broke");
    std::unique_lock<std::mutex> lock(mu_);
    ++running_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return released_ || cancel->canceled(); });
    return make_response(m.id, cancel->canceled() ? "cancelled" : "done");
  }
  bool ready() const override { return ready_; }
  json refusal(CoreRefusal why, const json& id, const Message&,
               const std::string& detail) const override {
    return make_error_reply(id, -1, fmt::format("{}:{}", static_cast<int>(why), detail));
  }
  void wait_running(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return running_ >= n; });
  }
  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  // A cancel was set: waiting runs look again (under the lock: no wake-up is lost).
  void wake() {
    std::lock_guard<std::mutex> lock(mu_);
    cv_.notify_all();
  }

 private:
  std::atomic<bool> ready_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  int running_ = 0;
  bool released_ = false;
};

struct Rig {
  Rig() : core(protocol, wire.peer, CoreOptions{2, true, {}}) {}
  ~Rig() {
    protocol.release();
    core.close();
  }
  void request(const json& id, const std::string& method) {
    core.on_line(LineFramer::Line{
        json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}}.dump(), false});
  }
  std::string refusal(const json& id) {
    json r = wire.response(id);
    return r.contains("error") ? r["error"]["message"].get<std::string>() : r.dump();
  }
  Wire wire;
  TestProtocol protocol;
  ConnectionCore core;
};

std::string why(CoreRefusal r) { return fmt::format("{}:", static_cast<int>(r)); }

TEST(ConnectionCore, UnknownMethodsAndRequestsBeforeInitializeAreRefused) {  // SRV-3
  Rig rig;
  rig.request(1, "nope");
  EXPECT_EQ(rig.refusal(1), why(CoreRefusal::kUnknownMethod));
  rig.request(2, "work");
  EXPECT_EQ(rig.refusal(2), why(CoreRefusal::kNotReady));
  rig.request(3, "poke");
  EXPECT_EQ(rig.refusal(3), why(CoreRefusal::kNotReady));
  rig.request(4, "hello");
  EXPECT_EQ(rig.wire.response(4)["result"], "hello");
  rig.request(5, "poke");
  EXPECT_EQ(rig.wire.response(5)["result"], "poke");
}

TEST(ConnectionCore, InFlightIdsAreUniqueAndTheLimitHolds) {  // SRV-4
  Rig rig;
  rig.request(0, "hello");
  rig.wire.response(0);
  rig.request("a", "work");
  rig.protocol.wait_running(1);
  rig.request("a", "work");
  EXPECT_EQ(rig.refusal("a"), why(CoreRefusal::kDuplicateId));
  rig.request("b", "work");
  rig.protocol.wait_running(2);
  rig.request("c", "work");
  EXPECT_EQ(rig.refusal("c"), why(CoreRefusal::kFull));
  rig.protocol.release();
  EXPECT_EQ(rig.wire.response("a")["result"], "done");
  EXPECT_EQ(rig.wire.response("b")["result"], "done");
}

TEST(ConnectionCore, CancelAnswersOrSilencesTheRequest) {  // SRV-4
  Rig rig;
  rig.request(0, "hello");
  rig.wire.response(0);
  rig.request("loud", "work");
  rig.request("quiet", "work");
  rig.protocol.wait_running(2);
  EXPECT_TRUE(rig.core.cancel("loud", false));
  EXPECT_TRUE(rig.core.cancel("quiet", true));
  EXPECT_FALSE(rig.core.cancel("nobody", false));
  rig.protocol.wake();
  EXPECT_EQ(rig.wire.response("loud")["result"], "cancelled");
  EXPECT_TRUE(rig.wire.response("quiet", std::chrono::milliseconds(300)).is_null())
      << "a silently cancelled request gets no response";
}

TEST(ConnectionCore, AThrowingRequestIsAnsweredAndTheConnectionGoesOn) {  // SRV-3
  Rig rig;
  rig.request(0, "hello");
  rig.wire.response(0);
  rig.request(1, "boom");
  EXPECT_EQ(rig.refusal(1), why(CoreRefusal::kInternal) + "it broke");
  rig.request(2, "poke");
  EXPECT_EQ(rig.wire.response(2)["result"], "poke");
}

TEST(ConnectionCore, CloseEndsWhatRunsAndRefusesWhatComesAfter) {  // SRV-4
  Rig rig;
  rig.request(0, "hello");
  rig.wire.response(0);
  rig.request(1, "work");
  rig.protocol.wait_running(1);
  std::thread closer([&] { rig.core.close(); });
  // close() cancels; the run sees it once woken.
  while (!rig.core.closing()) std::this_thread::yield();
  rig.protocol.wake();
  closer.join();
  EXPECT_EQ(rig.wire.response(1)["result"], "cancelled");
  rig.request(2, "work");
  EXPECT_EQ(rig.refusal(2), why(CoreRefusal::kClosing));
  rig.request(3, "poke");
  EXPECT_EQ(rig.refusal(3), why(CoreRefusal::kClosing));
}

}  // namespace
}  // namespace cordon::rpc
