#include "server/keeper_client.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "process/process.h"
#include "server/keeper_files.h"
#include "server/keeper_start.h"
#include "session/session_store.h"
#include "host/unix_socket.h"

namespace cordon {

using nlohmann::json;

namespace {

// The session's record, or why there is none to use.
Result<SessionRecord> session_record(const KeeperTarget& t) {
  auto r = SessionStore(t.folders).load(t.session);
  if (!r.ok()) return r.error();
  if (!r->has_value())
    return make_error(ErrorKind::kInvalid,
                      fmt::format("there is no session {}; `cordon session list` shows them, "
                                  "`cordon session start` starts one.",
                                  t.session));
  return **r;
}

// A connection to the keeper, started first when none answers and `start`; -1 when none.
Result<int> keeper_socket(const KeeperTarget& t, const KeeperFiles& f, bool start) {
  int fd = connect_unix(f.socket);
  if (fd >= 0 || !start) return fd;
  if (auto st = prepare_keeper_dir(f.dir); !st.ok()) return st.error();
  // Two commands starting one at once: the second waits here, then finds the first's keeper.
  Fd lock(open(f.lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (lock.fd < 0 || flock(lock.fd, LOCK_EX) != 0)
    return make_error(ErrorKind::kState, "cannot lock " + f.lock + ": " + strerror(errno));
  fd = connect_unix(f.socket);
  if (fd >= 0) return fd;
  if (auto st = start_keeper(t, f); !st.ok()) return st.error();
  return connect_unix(f.socket);
}

Error no_keeper(const KeeperTarget& t) {
  return make_error(ErrorKind::kInvalid,
                    fmt::format("session {} has no background jobs: none was started, or they "
                                "ended and were let go after the keeper's idle time. Start one "
                                "with `cordon run --session {} --background -- CMD`.",
                                t.session, t.session));
}

}  // namespace

Result<std::unique_ptr<KeeperClient>> KeeperClient::connect(const KeeperTarget& t, bool start) {
  KeeperFiles f = keeper_files(t.folders, t.session);
  auto known = SessionStore(t.folders).load(t.session);  // a wrong id is said first
  if (!known.ok()) return known.error();
  if (!start && !known->has_value()) return session_record(t).error();
  // A keeper ending just as we connect closes the connection unanswered: one more try.
  Error last = no_keeper(t);
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto fd = keeper_socket(t, f, start);
    if (!fd.ok()) return fd.error();
    if (*fd < 0) return no_keeper(t);
    std::unique_ptr<KeeperClient> k(new KeeperClient(*fd));
    auto record = session_record(t);  // made by the keeper when it was new
    if (!record.ok()) return record.error();
    if (!t.project.empty() && t.project != record->project)
      return make_error(ErrorKind::kInvalid,
                        fmt::format("session {} belongs to the project {}, not {}. Run it "
                                    "from there, or start a new session.",
                                    t.session, record->project, t.project));
    auto init = k->call("initialize", {{"project", record->project}, {"session", t.session}});
    if (init.ok()) {
      for (const auto& n : init->value("notice", json::array()))
        if (n.is_string()) k->notices_.push_back(n.get<std::string>());
      return k;
    }
    last = init.error();
    if (last.code != ErrorKind::kUnavailable) break;
  }
  return last;
}

KeeperClient::~KeeperClient() { close(fd_); }

Result<json> KeeperClient::call(const std::string& method, json params) {
  int64_t id = next_id_++;
  std::string line =
      json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}}.dump(
          -1, ' ', false, json::error_handler_t::replace) +  // bytes not UTF-8: U+FFFD
      "\n";
  std::string_view rest(line);
  while (!rest.empty()) {
    ssize_t w = ::send(fd_, rest.data(), rest.size(), MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0)
      return make_error(ErrorKind::kUnavailable, "the session's keeper closed the connection");
    rest.remove_prefix(static_cast<size_t>(w));
  }
  return read_answer(id);
}

// Lines until the response to `id` (notifications such as job/ended are passed over).
Result<json> KeeperClient::read_answer(int64_t id) {
  char chunk[65536];
  for (;;) {
    size_t nl = buf_.find('\n');
    if (nl == std::string::npos) {
      ssize_t r = ::read(fd_, chunk, sizeof chunk);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0)
        return make_error(ErrorKind::kUnavailable,
                          "the session's keeper closed the connection before answering");
      buf_.append(chunk, static_cast<size_t>(r));
      continue;
    }
    json m = json::parse(buf_.substr(0, nl), nullptr, false);
    buf_.erase(0, nl + 1);
    if (!m.is_object() || !m.contains("id") || m["id"] != id || m.contains("method")) continue;
    if (m.contains("result")) return m["result"];
    const json e = m.value("error", json::object());
    return make_error(ErrorKind::kInvalid, e.value("message", std::string("an error")));
  }
}

Status stop_keeper(const Folders& folders, const std::string& session) {
  auto k = running_keeper(keeper_files(folders, session));
  if (!k) return ok_status();
  kill(k->pid, SIGTERM);
  // It ends its jobs (their trees, with their aftercare) first.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (process_alive(k->pid, k->start)) {
    if (std::chrono::steady_clock::now() > deadline)
      return make_error(ErrorKind::kHeld,
                        fmt::format("the keeper of session {} (pid {}) did not end within a "
                                    "minute; end it with `kill -9 {}`, then run `cordon "
                                    "session resume {}`.",
                                    session, k->pid, k->pid, session));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ok_status();
}

}  // namespace cordon
