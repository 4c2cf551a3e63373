// What `cordon serve` and `cordon mcp` share (SRV-1..4): one connection's message dispatch,
// the requests in flight (each on a worker thread, at most `max_in_flight`, ids unique), their
// cancellation and the orderly close. Each protocol is a small strategy on top: which methods
// it answers at once and which it runs on a worker, how it words a refusal, and its own
// notifications.
//
//   class MyConnection : private ConnectionProtocol { ConnectionCore core_{*this, peer, ...}; };
//   core_.on_line(line);   // from the reader thread
//   core_.close();         // end of input, a signal, `shutdown`
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "cordon/cordon.h"
#include "jsonrpc/jsonrpc.h"
#include "jsonrpc/jsonrpc_mcp_progress.h"
#include "jsonrpc/jsonrpc_peer.h"

namespace cordon::rpc {

// Why the core refuses a request before it runs; each protocol words and codes these its way.
enum class CoreRefusal {
  kUnknownMethod,  // not a method of the protocol
  kClosing,        // the connection is closing
  kNotReady,       // `initialize` has not been called
  kDuplicateId,    // the id is used by a request in flight
  kFull,           // `max_in_flight` requests are running
  kNoThread,       // no worker thread could be started
  kInternal,       // the request threw (the detail is the exception's text)
};

class ConnectionProtocol {
 public:
  // kNow: answered on the reader's thread before the session exists (initialize, ping);
  // kNowInSession: answered on the reader's thread, once ready and while not closing;
  // kWorker: run on a worker thread (commands, file tools).
  enum class Route { kUnknown, kNow, kNowInSession, kWorker };

  virtual ~ConnectionProtocol() = default;
  virtual Route route(const std::string& method) const = 0;
  virtual json answer_now(const Message& m) = 0;
  virtual json run(const Message& m, const api::Cancel* cancel) = 0;
  // True once `initialize` has been answered (the session may still have failed to open).
  virtual bool ready() const = 0;
  virtual json refusal(CoreRefusal why, const json& id, const Message& m,
                       const std::string& detail) const = 0;
  virtual void on_notification(const Message& m) { (void)m; }
  // The progress notifications a worker request asked for (MCP); null for none.
  virtual std::shared_ptr<ProgressTicker> progress_for(const Message& m) {
    (void)m;
    return nullptr;
  }
};

struct CoreOptions {
  size_t max_in_flight = 32;
  bool threads = true;  // false: each request runs on the reader's thread (fuzzer)
  std::function<void(const std::string&)> log;
};

class ConnectionCore {
 public:
  ConnectionCore(ConnectionProtocol& protocol, Peer& peer, CoreOptions options);
  ~ConnectionCore() { workers_.wait_all(); }
  ConnectionCore(const ConnectionCore&) = delete;
  ConnectionCore& operator=(const ConnectionCore&) = delete;

  void on_line(const LineFramer::Line& line);
  // Ends every request in flight (their commands' aftercare runs), answers pending questions
  // to the client as "unavailable", and waits for every worker.
  void close();
  bool closing() const;
  // Cancels the request in flight with this id (its JSON text); false when there is none.
  // `silently`: no response is sent for it (MCP's notifications/cancelled).
  bool cancel(const json& id, bool silently);
  void log(const std::string& line) const;
  // The progress notifications of the request in flight with this id; null when it asked for
  // none (or is not in flight).
  std::shared_ptr<ProgressTicker> progress(const json& id) const;

 private:
  void on_request(const Message& m);
  bool admit(const Message& m, const std::string& key);  // refuses (and answers) or registers
  void run_on_worker(const Message& m, const std::string& key);
  json run_guarded(const Message& m, const api::Cancel* cancel);
  void finish(const std::string& key, json response);

  struct InFlight {
    std::shared_ptr<api::Cancel> cancel;
    bool silenced = false;
    std::shared_ptr<ProgressTicker> progress;  // null: none asked for
  };

  ConnectionProtocol& protocol_;
  Peer& peer_;
  CoreOptions opts_;
  mutable std::mutex mu_;
  bool closing_ = false;
  std::map<std::string, InFlight> in_flight_;  // by the id's JSON text
  Workers workers_;  // last: destroyed first, it waits for the jobs that use the members above
};

}  // namespace cordon::rpc
