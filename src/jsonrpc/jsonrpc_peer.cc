#include "jsonrpc/jsonrpc_peer.h"

#include <poll.h>

#include <system_error>

namespace cordon::rpc {

void Peer::send(const json& message) {
  std::string line = to_line(message);
  std::lock_guard<std::mutex> lock(write_mu_);
  if (output_gone_) return;
  if (!writer_(line)) output_gone_ = true;
}

namespace {

bool readable(int fd) {
  if (fd < 0) return false;
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

}  // namespace

Peer::CallResult Peer::call(std::string_view method, json params,
                            std::optional<std::chrono::steady_clock::time_point> deadline,
                            int cancel_fd) {
  auto p = std::make_shared<Pending>();
  int64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return CallResult{CallResult::kClosed, nullptr, 0};
    if (readable(cancel_fd)) return CallResult{CallResult::kCanceled, nullptr, 0};
    id = next_id_++;
    pending_[id] = p;
  }
  send(make_request(id, method, std::move(params)));
  std::unique_lock<std::mutex> lock(mu_);
  bool canceled = false;
  auto ready = [&] { return p->done || closed_ || (canceled = readable(cancel_fd)); };
  bool in_time = true;
  if (deadline) {
    in_time = cv_.wait_until(lock, *deadline, ready);
  } else {
    cv_.wait(lock, ready);
  }
  pending_.erase(id);
  if (p->done) return std::move(p->result);
  if (!in_time) return CallResult{CallResult::kTimeout, nullptr, id};
  if (canceled) return CallResult{CallResult::kCanceled, nullptr, id};
  return CallResult{CallResult::kClosed, nullptr, id};
}

void Peer::wake() {
  std::lock_guard<std::mutex> lock(mu_);
  cv_.notify_all();
}

bool Peer::on_response(const Message& response) {
  if (!response.id.is_number_integer()) return false;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pending_.find(response.id.get<int64_t>());
  if (it == pending_.end() || it->second->done) return false;
  Pending& p = *it->second;
  p.done = true;
  if (response.error) {
    p.result = CallResult{CallResult::kError, *response.error, it->first};
  } else {
    p.result = CallResult{CallResult::kResult, response.result, it->first};
  }
  cv_.notify_all();
  return true;
}

void Peer::close() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  cv_.notify_all();
}

bool Peer::closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

bool Workers::run(std::function<void()> job) {
  if (!threads_) {
    job();
    return true;
  }
  std::lock_guard<std::mutex> lock(mu_);
  reap_locked();
  if (running_ >= max_) return false;
  auto done = std::make_shared<std::atomic<bool>>(false);
  ++running_;
  // The job signals through `done` and the counter before its thread ends; the thread object
  // is joined by a later run() or by wait_all(), never detached.
  try {
    std::thread t([this, done, job = std::move(job)] {
      job();
      std::lock_guard<std::mutex> l(mu_);
      done->store(true);
      --running_;
      cv_.notify_all();
    });
    jobs_.push_back(Job{std::move(t), done});
  } catch (const std::system_error&) {
    --running_;  // no thread could be made (a limit on threads): the caller refuses it
    return false;
  }
  return true;
}

void Workers::reap_locked() {
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    if (it->done->load()) {
      it->thread.join();  // it has finished its job; join returns at once
      it = jobs_.erase(it);
    } else {
      ++it;
    }
  }
}

void Workers::wait_all() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return running_ == 0; });
  std::list<Job> jobs = std::move(jobs_);
  jobs_.clear();
  lock.unlock();
  for (auto& j : jobs) j.thread.join();
}

size_t Workers::in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

}  // namespace cordon::rpc
