#include "cli/tty_asker.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <string>

#include "approval/request.h"

namespace cordon {

namespace {

void put(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t w = ::write(fd, s.data() + off, s.size() - off);
    if (w <= 0) return;
    off += static_cast<size_t>(w);
  }
}

}  // namespace

const char* cli_flag_for(AskKind kind) {
  switch (kind) {
    case AskKind::kNetwork:
      return "--network";
    case AskKind::kOutsideSandbox:
      return "--outside-sandbox";
    case AskKind::kCommand:
      return "--allow-command";
    default:
      return "";
  }
}

PersonAnswer TtyAsker::ask(const Question& q) {
  std::lock_guard<std::mutex> lock(mu_);
  int fd = ::open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (q.request.kind == AskKind::kNetworkHost)  // NET-10: no flag approves unlisted hosts
      return {Reply::kUnavailable,
              fmt::format("there is no terminal to ask on; if {} should be reachable, add it to "
                          "[network] allow in the config",
                          q.request.host.value_or("the host"))};
    const char* flag = cli_flag_for(q.request.kind);
    return {Reply::kUnavailable,
            *flag ? fmt::format("there is no terminal to ask on; run it again with {} if you "
                                "approve it",
                                flag)
                  : std::string("there is no terminal to ask on")};
  }
  std::string text = fmt::format("\ncordon asks: allow {}?\n", question_text(q.request));
  if (!q.request.reason.empty()) text += "  why: " + q.request.reason + "\n";
  if (!q.judge_note.empty()) text += "  (" + q.judge_note + ")\n";
  text += "  [y] yes, this once   [n] no (default): ";
  put(fd, text);
  std::string line;
  bool timed_out = false;
  while (true) {
    int wait_ms = -1;
    if (q.deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          *q.deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(std::min<long long>(left.count(), 1 << 30));
    }
    pollfd p{fd, POLLIN, 0};
    int n = poll(&p, 1, wait_ms);
    if (n == 0) continue;
    if (n < 0) break;
    char c;
    ssize_t r = ::read(fd, &c, 1);
    if (r <= 0 || c == '\n') break;
    line += c;
  }
  if (timed_out) put(fd, "\ncordon: no answer in time; refused.\n");
  ::close(fd);
  if (timed_out) return {Reply::kTimeout, ""};
  size_t i = line.find_first_not_of(" \t");
  char a = i == std::string::npos ? 'n' : static_cast<char>(std::tolower(line[i]));
  return {a == 'y' ? Reply::kAllowOnce : Reply::kDeny, ""};
}

}  // namespace cordon
