// `exec` with "stream": true (issue 30, live output): the command's output sent to the client
// as `exec/output {id, stream, data}` notifications while it runs: gathered between sends
// (OutputCoalescer), at most one notification per interval (10 a second), each at most
// 64 KiB; finish() sends what remains, so that all of it precedes exec's answer.
//
//   ExecOutputNotifier live(peer, request_id);
//   req.on_output = live.sink();          // ExecRequest::on_output
//   auto r = session.exec(req);
//   live.finish();                         // then send the answer
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string_view>
#include <thread>

#include "jsonrpc/jsonrpc.h"
#include "jsonrpc/jsonrpc_peer.h"
#include "jsonrpc/output_coalescer.h"

namespace cordon::rpc {

class ExecOutputNotifier {
 public:
  ExecOutputNotifier(Peer& peer, json id,
                     std::chrono::milliseconds interval = std::chrono::milliseconds(100));
  ~ExecOutputNotifier() { finish(); }
  ExecOutputNotifier(const ExecOutputNotifier&) = delete;
  ExecOutputNotifier& operator=(const ExecOutputNotifier&) = delete;

  // For ExecRequest::on_output: adds a piece of output (any thread).
  std::function<void(int, std::string_view)> sink();
  // Stops the sender and sends everything still gathered; nothing is sent after it returns.
  void finish();

 private:
  void run();
  void send(const OutputCoalescer::Piece& piece);

  Peer& peer_;
  const json id_;
  const std::chrono::milliseconds interval_;
  std::mutex mu_;
  std::condition_variable cv_;
  OutputCoalescer pending_;
  bool stopping_ = false, finished_ = false;
  std::thread thread_;
};

}  // namespace cordon::rpc
