#include "host/ssh_folder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include <fmt/format.h>

#include "core/paths.h"
#include "plan/ssh_rules.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

// known_hosts is text the user keeps; a bound well above any real one.
constexpr size_t kMaxKnownHosts = 8 << 20;

// The folder, opened without following a link (an earlier command may have put one there).
int open_folder(const std::string& dir) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) return fd;
  if (errno == ELOOP || errno == ENOTDIR) {
    if (unlink(dir.c_str()) != 0) return -1;
  } else if (errno != ENOENT) {
    return -1;
  }
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return -1;
  return open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

// A new file `name` in the folder holding `data`: whatever was there is removed first.
bool put_file(int dir, const char* name, const std::string& data, mode_t mode) {
  if (unlinkat(dir, name, 0) != 0 && errno != ENOENT) {
    if (errno != EISDIR || unlinkat(dir, name, AT_REMOVEDIR) != 0) return false;
  }
  int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return false;
  bool ok = write_fully(fd, data.data(), data.size()) == 0;
  ok = close(fd) == 0 && ok;
  return ok;
}

// The user's known_hosts files, as ssh reads them by default (a missing one is nothing).
std::string known_hosts(const std::string& home) {
  std::string all;
  for (const char* name : {".ssh/known_hosts", ".ssh/known_hosts2"}) {
    std::string p = path_join(home, name);
    struct stat st {};
    if (stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    auto text = read_file(p, kMaxKnownHosts);
    if (!text.ok()) continue;
    all += *text;
    if (!all.empty() && all.back() != '\n') all += '\n';
  }
  return all;
}

}  // namespace

SshFacts prepare_ssh_folder(const SshFolderInput& in) {
  SshFacts f;
  const Policy& policy = *in.policy;
  f.dir = path_join(in.session_tmp, kSshDirName);
  f.inside_dir = ssh_inside_dir(in.bwrap, in.session_tmp);
  char real[PATH_MAX];
  f.exe = realpath(in.cordon_exe.empty() ? "/proc/self/exe" : in.cordon_exe.c_str(), real)
              ? std::string(real)
              : in.cordon_exe;
  f.exe_inside = in.bwrap ? path_join(f.inside_dir, "cordon") : f.exe;
  int dir = open_folder(f.dir);
  if (dir < 0) {
    f.problems.push_back(fmt::format("the session's ssh folder {} could not be made ({}), so git "
                                     "over ssh cannot work in this command.",
                                     f.dir, std::strerror(errno)));
    return f;
  }
  bool ok = put_file(dir, "known_hosts", known_hosts(in.home), 0644);
  if (in.bwrap) ok = put_file(dir, "cordon", "", 0755) && ok;
  SshConfigInput ci;
  ci.dir = f.inside_dir;
  ci.exe = f.exe_inside;
  int n = 0;
  for (const auto& [host, file] : policy.ssh.keys) {
    SshKeyFact k{host, file, "", ""};
    std::string path = expand_home(file, in.home);
    struct stat st {};
    const std::string name = fmt::format("key-{}", n++);
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
      f.problems.push_back(fmt::format(
          "the key {} named for {} in [ssh] keys is not a file, so ssh has no key for {}. Fix "
          "the path in your config.",
          file, host, host));
      f.keys.push_back(std::move(k));
      continue;
    }
    k.inside = path_join(f.inside_dir, name);
    if (in.bwrap) {
      k.real = realpath(path.c_str(), real) ? std::string(real) : path;
      ok = put_file(dir, name.c_str(), "", 0600) && ok;
    } else {  // LL-1: no mounts; a copy the session's commands read, gone with its folder
      auto text = read_file(path, 1 << 20);
      if (text.ok() && put_file(dir, name.c_str(), *text, 0600)) k.real = path;
    }
    if (!k.real.empty()) ci.keys.emplace_back(host, k.inside);
    f.keys.push_back(std::move(k));
  }
  if (policy.ssh.agent) {
    auto sock = in.env.get("SSH_AUTH_SOCK");
    struct stat st {};
    if (!sock || sock->empty()) {
      f.problems.push_back(
          "[ssh] agent = true, but SSH_AUTH_SOCK is not set where cordon runs, so no agent is "
          "given to commands. Fix: start cordon from a shell that has your agent.");
    } else if (stat(sock->c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) {
      f.problems.push_back(fmt::format(
          "[ssh] agent = true, but SSH_AUTH_SOCK ({}) is not a socket, so no agent is given to "
          "commands. Fix: start cordon from a shell whose agent is running.",
          *sock));
    } else {
      f.agent = realpath(sock->c_str(), real) ? std::string(real) : *sock;
      f.agent_inside = ssh_agent_inside(in.bwrap, f.inside_dir, in.env);
      if (in.bwrap) ok = put_file(dir, "agent", "", 0600) && ok;
      ci.agent = f.agent_inside;
    }
  }
  ok = put_file(dir, "config", ssh_config_text(ci), 0644) && ok;
  close(dir);
  if (!ok) {
    f.problems.push_back(fmt::format("the session's ssh folder {} could not be written ({}), so "
                                     "git over ssh cannot work in this command.",
                                     f.dir, std::strerror(errno)));
    return f;
  }
  f.on = true;
  return f;
}

}  // namespace cordon
