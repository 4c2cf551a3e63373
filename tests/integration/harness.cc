#include "harness.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "test_paths.h"

namespace cordon::it {

std::string no_userns_binary() {
  if (const char* b = std::getenv("CORDON_TEST_NO_USERNS")) return b;
  const std::string c = test_cordon_binary();
  return c.substr(0, c.rfind('/')) + "/tests/no_userns";
}

std::string cordon_binary() {
  if (const char* b = std::getenv("CORDON_TEST_BINARY")) return b;
  return test_cordon_binary();
}

namespace {
void mkdirs(const std::string& path) {
  std::string cur;
  std::stringstream ss(path);
  std::string part;
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    cur += "/" + part;
    mkdir(cur.c_str(), 0755);
  }
}
}  // namespace

Piped spawn_piped(const std::vector<std::string>& argv,
                  const std::map<std::string, std::string>& env, const std::string& cwd) {
  Piped r;
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) return r;
  std::vector<std::string> envs;
  for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
  std::vector<char*> a, e;
  for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  for (const auto& s : envs) e.push_back(const_cast<char*>(s.c_str()));
  e.push_back(nullptr);
  r.pid = fork();
  if (r.pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(121);
    setpgid(0, 0);
    execve(a[0], a.data(), e.data());
    execvpe(a[0], a.data(), e.data());
    _exit(122);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  r.in = in[1];
  r.out = out[0];
  r.err = err[0];
  return r;
}

Proc run_program(const std::vector<std::string>& argv,
                 const std::map<std::string, std::string>& env, const std::string& cwd,
                 const std::string& stdin_data, int timeout_s) {
  Proc r;
  auto t0 = std::chrono::steady_clock::now();
  Piped c = spawn_piped(argv, env, cwd);
  if (c.pid < 0) return r;
  const pid_t pid = c.pid;
  signal(SIGPIPE, SIG_IGN);
  if (!stdin_data.empty()) {
    ssize_t w = write(c.in, stdin_data.data(), stdin_data.size());
    (void)w;
  }
  close(c.in);
  pollfd p[2] = {{c.out, POLLIN, 0}, {c.err, POLLIN, 0}};
  int open_n = 2;
  char buf[65536];
  auto deadline = t0 + std::chrono::seconds(timeout_s);
  while (open_n > 0) {
    int ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  deadline - std::chrono::steady_clock::now())
                                  .count());
    if (ms <= 0) {
      kill(-pid, SIGKILL);
      break;
    }
    if (poll(p, 2, ms) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (p[i].fd < 0 || !p[i].revents) continue;
      ssize_t n = read(p[i].fd, buf, sizeof buf);
      if (n <= 0) {
        close(p[i].fd);
        p[i].fd = -1;
        --open_n;
      } else {
        (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
      }
    }
  }
  for (auto& x : p)
    if (x.fd >= 0) close(x.fd);
  int st = 0;
  waitpid(pid, &st, 0);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

World::World(bool git) {
  // Not under /tmp: the sandbox replaces the machine's /tmp, which would hide a HOME there and
  // make every "hidden" check pass for the wrong reason.
  char tmpl[] = "/var/tmp/cordon-it-XXXXXX";
  root_ = mkdtemp(tmpl);
  chmod(root_.c_str(), 0755);
  home_ = root_ + "/home";
  project_ = home_ + "/project";
  mkdirs(project_);
  env["HOME"] = home_;
  env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  env["LANG"] = "C.UTF-8";
  env["USER"] = std::getenv("USER") ? std::getenv("USER") : "tester";
  env["GIT_CONFIG_NOSYSTEM"] = "1";
  env["GIT_AUTHOR_NAME"] = "Test";
  env["GIT_AUTHOR_EMAIL"] = "test@example.com";
  env["GIT_COMMITTER_NAME"] = "Test";
  env["GIT_COMMITTER_EMAIL"] = "test@example.com";
  if (git) {
    host({"git", "init", "-q", "-b", "main"});
    write("README.md", "hello\n");
    host({"git", "add", "README.md"});
    host({"git", "commit", "-q", "-m", "init"});
  }
}

TempDir::TempDir(const std::string& name) {
  std::string tmpl = "/tmp/" + name + "-XXXXXX";
  if (mkdtemp(tmpl.data()))
    path = tmpl;
  else
    ADD_FAILURE() << "mkdtemp " << tmpl << ": " << std::strerror(errno);
}

TempDir::~TempDir() {
  if (path.empty() || std::getenv("CORDON_KEEP_TEST_DIRS")) return;
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

World::~World() {
  if (std::getenv("CORDON_KEEP_TEST_DIRS")) return;
  run_program({"/bin/chmod", "-R", "u+rwx", root_}, env, "/");
  run_program({"/bin/rm", "-rf", root_}, env, "/");
}

std::string World::abs(const std::string& path) const {
  return path[0] == '/' ? path : project_ + "/" + path;
}

void World::write(const std::string& path, const std::string& content, int mode) const {
  std::string p = abs(path);
  mkdirs(p.substr(0, p.rfind('/')));
  std::ofstream(p, std::ios::binary | std::ios::trunc) << content;
  chmod(p.c_str(), static_cast<mode_t>(mode));
}

std::string World::read(const std::string& path) const {
  std::ifstream in(abs(path), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool World::exists(const std::string& path) const {
  struct stat st;
  return lstat(abs(path).c_str(), &st) == 0;
}

Proc World::cordon(const std::vector<std::string>& args, const std::string& cwd,
                   const std::string& stdin_data) const {
  std::vector<std::string> argv = wrapper;
  argv.push_back(cordon_binary());
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv, env, cwd.empty() ? project_ : cwd, stdin_data);
}

pid_t World::spawn_cordon(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = wrapper;
  argv.push_back(cordon_binary());
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> envs;
  for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
  std::vector<char*> a, e;
  for (auto& x : argv) a.push_back(x.data());
  a.push_back(nullptr);
  for (auto& x : envs) e.push_back(x.data());
  e.push_back(nullptr);
  pid_t pid = fork();
  if (pid != 0) return pid;
  if (chdir(project_.c_str()) != 0) _exit(121);
  int devnull = open("/dev/null", O_RDWR);
  dup2(devnull, 0);
  dup2(devnull, 1);
  dup2(devnull, 2);
  execve(a[0], a.data(), e.data());
  _exit(122);
}

Proc World::sh(const std::string& script, const std::vector<std::string>& flags) const {
  std::vector<std::string> args = {"run"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "/bin/sh", "-c", script});
  return cordon(args);
}

Proc World::py(const std::string& script, const std::vector<std::string>& flags) const {
  std::vector<std::string> args = {"run"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "/usr/bin/python3", "-c", script});
  return cordon(args);
}

Proc World::host(const std::vector<std::string>& argv, const std::string& cwd) const {
  return run_program(argv, env, cwd.empty() ? project_ : cwd);
}

bool sandbox_available() {
  static int cached = -1;
  if (cached < 0) {
    Proc r = run_program(
        {"/usr/bin/bwrap", "--unshare-all", "--unshare-user", "--ro-bind", "/", "/", "/bin/true"},
        {{"PATH", "/usr/bin:/bin"}}, "/");
    cached = r.status == 0 ? 1 : 0;
  }
  return cached == 1;
}

std::vector<std::string> quarantined(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.rfind(prefix + ".cordon-quarantined-", 0) == 0) out.push_back(n);
  }
  closedir(d);
  return out;
}

std::vector<std::pair<pid_t, std::string>> command_lines() {
  std::vector<std::pair<pid_t, std::string>> out;
  DIR* d = opendir("/proc");
  if (!d) {  // an empty answer would pass every "no such process" check
    ADD_FAILURE() << "/proc cannot be listed: " << std::strerror(errno);
    return out;
  }
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    int fd = open((std::string("/proc/") + e->d_name + "/cmdline").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    std::string line;
    char buf[4096];
    ssize_t n = 0;
    while ((n = read(fd, buf, sizeof buf)) > 0) line.append(buf, static_cast<size_t>(n));
    close(fd);
    if (n < 0) continue;  // ended while it was read
    for (char& c : line)
      if (c == '\0') c = ' ';
    out.emplace_back(static_cast<pid_t>(std::atoi(e->d_name)), std::move(line));
  }
  closedir(d);
  return out;
}

int sleeping(const std::string& arg) {
  const std::string wanted = "sleep " + arg + " ";
  int count = 0;
  for (const auto& [pid, line] : command_lines())
    if (line == wanted) ++count;
  return count;
}

std::string unique_sleep() {
  static std::atomic<int> n{0};
  return "1234." + std::to_string(getpid()) + std::to_string(++n);
}

bool eventually(const std::function<bool()>& done, std::chrono::seconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= until) return done();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

namespace {
sockaddr_in loopback_address(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}
}  // namespace

bool host_connects(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a = loopback_address(port);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

int listen_on_host_loopback(int& port, int backlog) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a = loopback_address(0);
  socklen_t n = sizeof a;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, backlog) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  port = ntohs(a.sin_port);
  return fd;
}

}  // namespace cordon::it
