#include "jsonrpc/jsonrpc_mcp_progress.h"

#include <fmt/format.h>

namespace cordon::rpc {

std::optional<json> progress_token(const json& params) {
  if (!params.is_object() || !params.contains("_meta") || !params["_meta"].is_object())
    return std::nullopt;
  const json& meta = params["_meta"];
  if (!meta.contains("progressToken")) return std::nullopt;
  const json& t = meta["progressToken"];
  if (t.is_string() || t.is_number_integer()) return t;
  return std::nullopt;
}

json progress_message(const json& token, uint64_t n, std::chrono::milliseconds elapsed,
                      const std::string& last_line) {
  const auto seconds = elapsed.count() / 1000;
  std::string message = n == 0 ? std::string("started in cordon's sandbox")
                               : fmt::format("still running in cordon's sandbox ({} s)", seconds);
  if (!last_line.empty()) message = last_line;
  // `progress` grows with each notification, as MCP asks; no `total`: the end is unknown.
  return json{{"jsonrpc", "2.0"},
              {"method", "notifications/progress"},
              {"params", {{"progressToken", token}, {"progress", n}, {"message", message}}}};
}

void ProgressTicker::start() {
  std::lock_guard<std::mutex> lock(mu_);
  started_ = std::chrono::steady_clock::now();
  if (!send_locked(0)) return;
  thread_ = std::thread([this] { run(); });
}

void ProgressTicker::run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (uint64_t n = 1;; ++n) {
    if (cv_.wait_for(lock, interval_, [this] { return silenced_; })) return;
    if (!send_locked(n)) return;
  }
}

// Under mu_, so that silence() returning means no send is under way or to come.
bool ProgressTicker::send_locked(uint64_t n) {
  if (silenced_) return false;
  auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started_);
  std::string line;
  {
    std::lock_guard<std::mutex> lock(output_mu_);
    line = output_.line();
  }
  peer_.send(progress_message(token_, n, elapsed, line));
  return true;
}

void ProgressTicker::note_output(std::string_view data) {
  std::lock_guard<std::mutex> lock(output_mu_);
  output_.add(data);
}

void ProgressTicker::silence() {
  std::lock_guard<std::mutex> lock(mu_);
  silenced_ = true;
  cv_.notify_all();
}

void ProgressTicker::stop() {
  silence();
  if (thread_.joinable()) thread_.join();
}

}  // namespace cordon::rpc
