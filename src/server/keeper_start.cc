#include "server/keeper_start.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "core/strings.h"
#include "server/session_keeper.h"

namespace cordon {

namespace {

constexpr int kReadyFd = 3;
constexpr int kReadyWaitMs = 60 * 1000;  // opening a session runs the probe once, and git

// The descriptors open now (taken before fork: listing them after fork would allocate).
std::vector<int> open_descriptors() {
  std::vector<int> fds;
  DIR* d = opendir("/dev/fd");
  if (!d) return fds;
  while (dirent* e = readdir(d))
    if (e->d_name[0] >= '0' && e->d_name[0] <= '9') fds.push_back(std::atoi(e->d_name));
  closedir(d);
  return fds;
}

// In the grandchild, before exec: only calls that are safe after fork. Every descriptor but
// its standard streams and the ready pipe is closed, those the caller did not mark
// close-on-exec too.
[[noreturn]] void become_keeper(const std::vector<char*>& argv, const char* log, int ready,
                                const std::vector<int>& open_fds) {
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  int err = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (null < 0 || err < 0) _exit(127);
  dup2(null, 0);
  dup2(null, 1);
  dup2(err, 2);
  if (ready != kReadyFd)
    dup2(ready, kReadyFd);
  else
    fcntl(kReadyFd, F_SETFD, 0);
  for (int fd : open_fds)
    if (fd > kReadyFd) close(fd);
  execv(argv[0], argv.data());
  _exit(127);
}

// What the keeper answered on the pipe until it closed it.
std::string read_ready(int fd) {
  std::string said;
  char buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    int n = poll(&p, 1, kReadyWaitMs);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return said.empty() ? "it did not answer within a minute" : said;
    ssize_t r = read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return said;
    said.append(buf, static_cast<size_t>(r));
  }
}

}  // namespace

Status start_keeper(const KeeperTarget& t, const KeeperFiles& files) {
  std::vector<std::string> words = {t.exe, kSessionKeeperWord, t.session, std::to_string(kReadyFd),
                                    t.project};
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  int p[2];
  if (pipe(p) != 0) return make_error(ErrorKind::kIo, "no pipe for the keeper");
  fcntl(p[0], F_SETFD, FD_CLOEXEC);
  fcntl(p[1], F_SETFD, FD_CLOEXEC);
  const std::vector<int> open_fds = open_descriptors();
  pid_t pid = fork();
  if (pid == 0) {
    setsid();
    if (fork() != 0) _exit(0);  // the keeper is nobody's child: it outlives this command
    become_keeper(argv, files.log.c_str(), p[1], open_fds);
  }
  close(p[1]);
  if (pid > 0) waitpid(pid, nullptr, 0);
  std::string said = pid > 0 ? trim(read_ready(p[0])) : "it could not be started";
  close(p[0]);
  if (said == "ok") return ok_status();
  if (said.empty()) said = "it ended without a word; its log is " + files.log;
  return make_error(ErrorKind::kUnavailable,
                    fmt::format("the keeper of session {} did not start: {}", t.session, said));
}

}  // namespace cordon
