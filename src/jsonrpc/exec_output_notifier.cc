#include "jsonrpc/exec_output_notifier.h"

namespace cordon::rpc {

ExecOutputNotifier::ExecOutputNotifier(Peer& peer, json id, std::chrono::milliseconds interval)
    : peer_(peer), id_(std::move(id)), interval_(interval) {
  thread_ = std::thread([this] { run(); });
}

std::function<void(int, std::string_view)> ExecOutputNotifier::sink() {
  return [this](int stream, std::string_view data) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      pending_.add(stream, data);
    }
    cv_.notify_all();
  };
}

// Waits for output, sends one piece, then rests an interval: at most one send per interval.
void ExecOutputNotifier::run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
    if (stopping_) return;
    if (auto piece = pending_.take(false)) {
      lock.unlock();
      send(*piece);
      lock.lock();
    }
    if (cv_.wait_for(lock, interval_, [this] { return stopping_; })) return;
  }
}

void ExecOutputNotifier::send(const OutputCoalescer::Piece& piece) {
  peer_.send(make_notification(
      "exec/output",
      {{"id", id_}, {"stream", piece.stream == 2 ? "stderr" : "stdout"}, {"data", piece.data}}));
}

void ExecOutputNotifier::finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_) return;
    finished_ = stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  // The sender is gone and the sink adds nothing more: the rest goes now, in order.
  while (auto piece = pending_.take(true)) send(*piece);
}

}  // namespace cordon::rpc
