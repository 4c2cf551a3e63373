#include "server/session_keeper.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <list>
#include <memory>
#include <thread>

#include "api/face_options.h"
#include "core/duration.h"
#include "core/strings.h"
#include "host/host_context.h"
#include "host/unix_socket.h"
#include "server/keeper_connection.h"
#include "server/keeper_files.h"
#include "session/session_store.h"
#include "sys/fs_util.h"

extern char** environ;

namespace cordon {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kDefaultIdle = std::chrono::minutes(10);

int g_keeper_signal_write = -1;

void on_keeper_signal(int) {
  char c = 1;
  ssize_t w = ::write(g_keeper_signal_write, &c, 1);
  (void)w;
}

void keeper_log(const std::string& line) {
  std::time_t now = std::time(nullptr);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", std::localtime(&now));
  std::string s = fmt::format("{} cordon keeper[{}]: {}\n", when, getpid(), printable(line));
  ssize_t w = ::write(2, s.data(), s.size());
  (void)w;
}

// Tells the `cordon run` that started this keeper: "ok", or why not.
void tell_ready(int& fd, const std::string& word) {
  if (fd < 0) return;
  std::string s = word + "\n";
  ssize_t w = ::write(fd, s.data(), s.size());
  (void)w;
  ::close(fd);
  fd = -1;
}

// The pid record, under a lock held for the keeper's life: one keeper per session. A keeper
// still ending holds it a moment longer.
int claim_pid_record(const KeeperFiles& f) {
  int fd = open(f.pid.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return -1;
  for (int i = 0; i < 300 && flock(fd, LOCK_EX | LOCK_NB) != 0; ++i) usleep(50 * 1000);
  std::string rec = fmt::format("{} {}\n", getpid(), process_start_time(getpid()));
  if (flock(fd, LOCK_EX | LOCK_NB) != 0 || ftruncate(fd, 0) != 0 ||
      pwrite(fd, rec.data(), rec.size(), 0) != static_cast<ssize_t>(rec.size())) {
    close(fd);
    return -1;
  }
  return fd;
}

std::chrono::milliseconds idle_time(const EnvMap& env) {
  auto d = parse_duration(env.value("CORDON_KEEPER_IDLE"));
  if (d && d->count() > 0) return *d;
  return kDefaultIdle;
}

int install_keeper_signals() {
  int p[2];
  if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
  g_keeper_signal_write = p[1];
  struct sigaction sa {};
  sa.sa_handler = on_keeper_signal;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &sa, nullptr);
  return p[0];
}

// The keeper at work: its session, its socket, its clients.
class Keeper {
 public:
  Keeper(std::unique_ptr<api::Session> session, int listen_fd, std::chrono::milliseconds idle)
      : session_(std::move(session)), listen_fd_(listen_fd), idle_(idle) {
    if (pipe2(stop_, O_CLOEXEC) != 0) stop_[0] = stop_[1] = -1;
  }
  // Serves until a signal or the idle time; then every client is let go and every job ended.
  void run(int signal_fd);
  ~Keeper();

 private:
  struct Client {
    std::thread thread;
    std::atomic<bool> done{false};
    int fd = -1;
  };
  void accept_one();
  bool idle_now();
  void reap_clients();

  std::unique_ptr<api::Session> session_;
  int listen_fd_;
  std::chrono::milliseconds idle_;
  int stop_[2];
  std::list<Client> clients_;
};

void Keeper::run(int signal_fd) {
  // Since when nothing has run and no client talked (the epoch: something is going on).
  Clock::time_point idle_since{};
  for (;;) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {signal_fd, POLLIN, 0}};
    int n = poll(p, 2, 1000);
    if (n < 0 && errno != EINTR) return;
    if (n > 0 && p[1].revents) {
      keeper_log("signal received: ending the jobs, then exiting");
      return;
    }
    if (n > 0 && p[0].revents) accept_one();
    reap_clients();
    if (!idle_now()) {
      idle_since = Clock::time_point{};
      continue;
    }
    if (idle_since == Clock::time_point{}) idle_since = Clock::now();
    if (Clock::now() - idle_since >= idle_) {
      keeper_log("no job and no client for the idle time: exiting");
      return;
    }
  }
}

void Keeper::accept_one() {
  int fd = accept(listen_fd_, nullptr, nullptr);
  if (fd < 0) return;
  fcntl(fd, F_SETFD, FD_CLOEXEC);  // a job's process never holds a client's connection
  if (!peer_is_same_user(fd)) {    // the folder is the user's own; this is a second wall
    keeper_log("a connection from another user was refused");
    close(fd);
    return;
  }
  Client& c = clients_.emplace_back();
  c.fd = fd;
  KeeperConnection kc{fd, stop_[0], session_.get(), keeper_log};
  c.thread = std::thread([kc, &c] {
    serve_keeper_connection(kc);
    c.done = true;
  });
}

bool Keeper::idle_now() {
  if (!clients_.empty()) return false;
  for (const auto& j : session_->jobs())
    if (j->running()) return false;
  return true;
}

void Keeper::reap_clients() {
  for (auto it = clients_.begin(); it != clients_.end();) {
    if (!it->done) {
      ++it;
      continue;
    }
    it->thread.join();
    close(it->fd);
    it = clients_.erase(it);
  }
}

Keeper::~Keeper() {
  close(listen_fd_);  // new clients are refused from now on
  if (stop_[1] >= 0) {
    char c = 1;
    ssize_t w = ::write(stop_[1], &c, 1);
    (void)w;
  }
  for (auto& c : clients_) {
    c.thread.join();
    close(c.fd);
  }
  session_.reset();  // every job ends, whole tree, with its aftercare
  close(stop_[0]);
  close(stop_[1]);
}

struct KeeperArgs {
  std::string session, project;
  int ready_fd = -1;
};

api::Result<std::unique_ptr<api::Session>> open_keeper_session(const KeeperArgs& a,
                                                               const HostContext& host) {
  api::Options o;
  o.project = a.project;
  o.cwd = host.cwd;
  o.session = a.session;
  o.cordon_binary = host.exe;
  o.refuse_unsuitable_project = true;
  o.on_notice = [](const std::string& n) { keeper_log("notice: " + n); };
  api::FaceOptions face;
  // The socket is reached only by this user's own commands (its folder is theirs, hidden from
  // sandboxed commands: FS-13), as the command line is: --network and --outside-sandbox given
  // to `cordon run --background` are the person's approval, as on the command line (APR-7).
  face.ways_out_typed = true;
  face.no_asker_note =
      "a background job cannot ask: run the command in the foreground, where you can answer";
  // JOB-2: foreground commands of the session join the jobs' loopback through its holder.
  face.on_loopback_made = [files = keeper_files(host.folders, a.session)](int pid, long long st) {
    record_loopback_holder(files, pid, st);
  };
  return api::open_for_face(o, face);
}

int serve_session(KeeperArgs& a) {
  HostContext host = read_host_context(EnvMap::from_environ(environ));
  KeeperFiles files = keeper_files(host.folders, a.session);
  if (auto st = prepare_keeper_dir(files.dir); !st.ok()) {
    tell_ready(a.ready_fd, st.error().message);
    return 1;
  }
  int pid_fd = claim_pid_record(files);
  if (pid_fd < 0) {
    tell_ready(a.ready_fd, "another keeper of session " + a.session + " is running or ending");
    return 1;
  }
  auto session = open_keeper_session(a, host);
  if (!session.ok()) {
    tell_ready(a.ready_fd, session.error().message);
    return 1;
  }
  int signal_fd = install_keeper_signals();
  int listen_fd = listen_unix(files.socket);
  if (listen_fd < 0 || signal_fd < 0) {
    tell_ready(a.ready_fd, fmt::format("cannot listen on {}: {}", files.socket, strerror(errno)));
    return 1;
  }
  (void)remove_tree(files.read);  // job ids count from 1 again: so do the read offsets
  (void)chdir("/");
  keeper_log(fmt::format("serving session {} on {}", a.session, files.socket));
  tell_ready(a.ready_fd, "ok");
  {
    Keeper k(std::move(*session), listen_fd, idle_time(host.env));
    k.run(signal_fd);
  }
  unlink(files.socket.c_str());
  // Emptied, not removed: a keeper starting now waits for this file's lock, and must find its
  // record in the file that stays.
  (void)ftruncate(pid_fd, 0);
  close(pid_fd);
  keeper_log("exited");
  return 0;
}

}  // namespace

int session_keeper_main(int argc, char** argv) {
  if (argc < 4) {
    keeper_log("usage: cordon __session-keeper SESSION READY_FD [PROJECT]");
    return 2;
  }
  KeeperArgs a;
  a.session = argv[2];
  a.ready_fd = std::atoi(argv[3]);
  if (argc >= 5) a.project = argv[4];
  return serve_session(a);
}

}  // namespace cordon
