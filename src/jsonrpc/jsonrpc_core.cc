#include "jsonrpc/jsonrpc_core.h"

#include <fmt/format.h>

namespace cordon::rpc {

ConnectionCore::ConnectionCore(ConnectionProtocol& protocol, Peer& peer, CoreOptions options)
    : protocol_(protocol),
      peer_(peer),
      opts_(std::move(options)),
      workers_(SIZE_MAX, opts_.threads) {}

void ConnectionCore::log(const std::string& line) const {
  if (opts_.log) opts_.log(line);
}

bool ConnectionCore::closing() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closing_;
}

void ConnectionCore::close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
    for (auto& [id, r] : in_flight_) r.cancel->cancel();
  }
  peer_.close();  // questions waiting for the client are answered "unavailable"
  workers_.wait_all();
}

bool ConnectionCore::cancel(const json& id, bool silently) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = in_flight_.find(id.dump());
    if (it == in_flight_.end()) return false;
    if (silently) {
      it->second.silenced = true;
      // Before the next line is read: nothing more goes out for this request.
      if (it->second.progress) it->second.progress->silence();
    }
    it->second.cancel->cancel();
  }
  peer_.wake();  // a question this request put to the client is withdrawn at once
  return true;
}

void ConnectionCore::on_line(const LineFramer::Line& line) {
  Message m = line.too_long ? too_long_message() : parse_message(line.text);
  switch (m.kind) {
    case Message::Kind::kEmpty:
      return;
    case Message::Kind::kInvalid:
      peer_.send(m.reply);
      return;
    case Message::Kind::kResponse:
      if (!peer_.on_response(m)) log("ignored a response to no request of ours: " + m.id.dump());
      return;
    case Message::Kind::kNotification:
      protocol_.on_notification(m);  // unknown ones are ignored (JSON-RPC 2.0)
      return;
    case Message::Kind::kRequest:
      on_request(m);
      return;
  }
}

void ConnectionCore::on_request(const Message& m) {
  using Route = ConnectionProtocol::Route;
  const Route route = protocol_.route(m.method);
  if (route == Route::kUnknown) {
    peer_.send(protocol_.refusal(CoreRefusal::kUnknownMethod, m.id, m, ""));
    return;
  }
  if (route == Route::kNow) {
    peer_.send(protocol_.answer_now(m));
    return;
  }
  const std::string key = m.id.dump();
  if (!admit(m, key)) return;
  if (route == Route::kNowInSession) {
    peer_.send(protocol_.answer_now(m));
    return;
  }
  run_on_worker(m, key);
}

// The checks in the order a client reads them: closing, not initialized, the id, the limit.
// A kWorker request that passes is registered in flight before the lock is released.
bool ConnectionCore::admit(const Message& m, const std::string& key) {
  std::unique_lock<std::mutex> lock(mu_);
  std::optional<CoreRefusal> why;
  if (closing_) {
    why = CoreRefusal::kClosing;
  } else if (!protocol_.ready()) {
    why = CoreRefusal::kNotReady;
  } else if (protocol_.route(m.method) == ConnectionProtocol::Route::kNowInSession) {
    return true;
  } else if (in_flight_.count(key)) {
    why = CoreRefusal::kDuplicateId;
  } else if (in_flight_.size() >= opts_.max_in_flight) {
    // The limit counts requests by their entry here, which is removed before the response is
    // sent: a client that sends its next request on receiving a response never finds it full.
    why = CoreRefusal::kFull;
  }
  if (why) {
    lock.unlock();
    peer_.send(protocol_.refusal(*why, m.id, m, ""));
    return false;
  }
  in_flight_[key] = InFlight{std::make_shared<api::Cancel>(), false, protocol_.progress_for(m)};
  return true;
}

std::shared_ptr<ProgressTicker> ConnectionCore::progress(const json& id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = in_flight_.find(id.dump());
  return it == in_flight_.end() ? nullptr : it->second.progress;
}

void ConnectionCore::run_on_worker(const Message& m, const std::string& key) {
  std::shared_ptr<api::Cancel> cancel;
  std::shared_ptr<ProgressTicker> progress;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancel = in_flight_[key].cancel;
    progress = in_flight_[key].progress;
  }
  bool started = workers_.run([this, m, key, cancel, progress] {
    if (progress) progress->start();
    json response = run_guarded(m, cancel.get());
    if (progress) progress->stop();  // before the response: no progress follows it
    finish(key, std::move(response));
  });
  if (started) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    in_flight_.erase(key);
  }
  peer_.send(protocol_.refusal(CoreRefusal::kNoThread, m.id, m, ""));
}

json ConnectionCore::run_guarded(const Message& m, const api::Cancel* cancel) {
  try {
    return protocol_.run(m, cancel);
  } catch (const std::exception& e) {
    return protocol_.refusal(CoreRefusal::kInternal, m.id, m, e.what());
  } catch (...) {
    return protocol_.refusal(CoreRefusal::kInternal, m.id, m, "");
  }
}

void ConnectionCore::finish(const std::string& key, json response) {
  bool silenced;
  {
    std::lock_guard<std::mutex> lock(mu_);
    silenced = in_flight_[key].silenced;
    in_flight_.erase(key);
  }
  // A request the client cancelled silently gets no response (MCP: cancellation).
  if (!silenced) peer_.send(response);
}

}  // namespace cordon::rpc
