#include "rpc_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cordon::it {

RpcClient::RpcClient(const std::vector<std::string>& args,
                     const std::map<std::string, std::string>& env, const std::string& cwd) {
  std::vector<std::string> argv = {cordon_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  ::signal(SIGPIPE, SIG_IGN);
  Piped c = spawn_piped(argv, env, cwd);
  if (c.pid < 0) return;
  pid_ = c.pid;
  in_ = c.in;
  out_ = c.out;
  err_ = c.err;
  reader_ = std::thread([this] { read_loop(); });
  err_reader_ = std::thread([this] { err_loop(); });
}

RpcClient::~RpcClient() {
  close_stdin();
  if (wait_exit(std::chrono::seconds(30)) == -1 && pid_ > 0) kill(-pid_, SIGKILL);
  if (reader_.joinable()) reader_.join();
  if (err_reader_.joinable()) err_reader_.join();
  if (out_ >= 0) close(out_);
  if (err_ >= 0) close(err_);
}

void RpcClient::on_request(std::function<Answer(const json&)> handler) {
  std::lock_guard<std::mutex> lock(mu_);
  handler_ = std::move(handler);
}

void RpcClient::send_line(const std::string& line) {
  std::lock_guard<std::mutex> lock(write_mu_);
  std::string l = line + "\n";
  size_t off = 0;
  while (off < l.size() && in_ >= 0) {
    ssize_t w = write(in_, l.data() + off, l.size() - off);
    if (w <= 0) break;
    off += static_cast<size_t>(w);
  }
}

json RpcClient::start(const std::string& method, const json& params) {
  int64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = next_id_++;
  }
  send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
  return id;
}

json RpcClient::wait(const json& id, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  const std::string key = id.dump();
  cv_.wait_for(lock, timeout, [&] { return responses_.count(key) > 0; });
  auto it = responses_.find(key);
  if (it == responses_.end()) return json();
  json r = it->second;
  responses_.erase(it);
  return r;
}

std::vector<json> RpcClient::server_requests() {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

size_t RpcClient::requests_before(const json& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = requests_before_.find(id.dump());
  return it == requests_before_.end() ? 0 : it->second;
}

std::vector<std::string> RpcClient::bad_lines() {
  std::lock_guard<std::mutex> lock(mu_);
  return bad_;
}

void RpcClient::read_loop() {
  std::string buf;
  char chunk[65536];
  while (true) {
    ssize_t n = read(out_, chunk, sizeof chunk);
    if (n <= 0) break;
    buf.append(chunk, static_cast<size_t>(n));
    size_t nl;
    while ((nl = buf.find('\n')) != std::string::npos) {
      std::string line = buf.substr(0, nl);
      buf.erase(0, nl + 1);
      json m = json::parse(line, nullptr, false);
      std::unique_lock<std::mutex> lock(mu_);
      if (m.is_discarded() || !m.is_object()) {
        bad_.push_back(line);
        continue;
      }
      if (m.contains("method")) {
        requests_.push_back(m);
        auto handler = handler_;
        lock.unlock();
        if (handler && m.contains("id")) {
          Answer a = handler(m);
          if (!a.ignore) {
            json reply{{"jsonrpc", "2.0"}, {"id", m["id"]}};
            if (a.error)
              reply["error"] = a.result;
            else
              reply["result"] = a.result;
            send(reply);
          }
        }
        lock.lock();
        cv_.notify_all();
        continue;
      }
      responses_[m.value("id", json()).dump()] = m;
      requests_before_[m.value("id", json()).dump()] = requests_.size();
      cv_.notify_all();
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!buf.empty()) bad_.push_back(buf);
  cv_.notify_all();
}

void RpcClient::err_loop() {
  char chunk[4096];
  while (true) {
    ssize_t n = read(err_, chunk, sizeof chunk);
    if (n <= 0) break;
    std::lock_guard<std::mutex> lock(mu_);
    err_text_.append(chunk, static_cast<size_t>(n));
  }
}

void RpcClient::close_stdin() {
  std::lock_guard<std::mutex> lock(write_mu_);
  if (in_ >= 0) close(in_);
  in_ = -1;
}

void RpcClient::signal(int sig) {
  if (pid_ > 0) kill(pid_, sig);
}

int RpcClient::wait_exit(std::chrono::milliseconds timeout) {
  if (exit_status_ != -2) return exit_status_;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int st;
    pid_t r = waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      exit_status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      return exit_status_;
    }
    usleep(5000);
  }
  kill(-pid_, SIGKILL);
  int st;
  waitpid(pid_, &st, 0);
  exit_status_ = -1;
  return -1;
}

std::string RpcClient::stderr_text() {
  std::lock_guard<std::mutex> lock(mu_);
  return err_text_;
}

json RpcClient::mcp_initialize() {
  json init = call("initialize", {{"protocolVersion", "2025-06-18"},
                                  {"capabilities", json::object()},
                                  {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
  send_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  return init;
}

}  // namespace cordon::it
