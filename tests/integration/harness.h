// Integration test harness: runs the real cordon binary in real sandboxes, each test with its
// own temporary HOME, project and git repository. Nothing touches the real home folder.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cordon::it {

struct Proc {
  int status = -1;  // exit status (or 128+signal)
  std::string out, err;
  double ms = 0;
};

// A throw-away world: HOME, XDG folders, a project (optionally a git repository).
class World {
 public:
  explicit World(bool git = true);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  const std::string& root() const { return root_; }
  const std::string& home() const { return home_; }
  const std::string& project() const { return project_; }
  std::string config_file() const { return home_ + "/.config/cordon/config.toml"; }

  // Writes a file (creating parent folders), relative to the project unless absolute.
  void write(const std::string& path, const std::string& content, int mode = 0644) const;
  std::string read(const std::string& path) const;
  bool exists(const std::string& path) const;
  std::string abs(const std::string& path) const;
  void config(const std::string& toml) const { write(config_file(), toml); }

  // Environment for cordon: a clean one with HOME and PATH, plus `extra`.
  std::map<std::string, std::string> env;
  // A program cordon runs under (its argv's start), e.g. {no_userns_binary()}: empty for none.
  std::vector<std::string> wrapper;

  // Runs `cordon ARGS...` in `cwd` (default the project), with `stdin_data` on its input.
  Proc cordon(const std::vector<std::string>& args, const std::string& cwd = "",
             const std::string& stdin_data = "") const;
  // cordon run -- sh -c SCRIPT
  Proc sh(const std::string& script, const std::vector<std::string>& flags = {}) const;
  // cordon run [flags] -- /usr/bin/python3 -c SCRIPT
  Proc py(const std::string& script, const std::vector<std::string>& flags = {}) const;
  // Runs a plain program (git, ...) outside cordon, in the project.
  Proc host(const std::vector<std::string>& argv, const std::string& cwd = "") const;
  // Starts `cordon ARGS` (under `wrapper`) in the background, in the project, its input and
  // output /dev/null; its pid, for the test to kill or wait for.
  pid_t spawn_cordon(const std::vector<std::string>& args) const;

 private:
  std::string root_, home_, project_;
};

// LL-1: tests/standin/no_userns, which runs a program where new namespaces are refused (as in
// a default Docker container): CORDON_TEST_NO_USERNS, else the one beside the cordon built.
std::string no_userns_binary();

// Starts a program in its own process group, with an environment and a folder, its standard
// input, output and error on pipes; `in`, `out`, `err` are our ends. A program not found as a
// path is looked up in PATH. pid -1 when the pipes could not be made.
struct Piped {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;
};
Piped spawn_piped(const std::vector<std::string>& argv,
                  const std::map<std::string, std::string>& env, const std::string& cwd);

// Runs a program with an environment and input; returns status and output.
Proc run_program(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                const std::string& cwd, const std::string& stdin_data = "",
                int timeout_s = 120);

// Skips the test when user namespaces are unavailable and CORDON_MUST_WORK is unset; fails it
// when CORDON_MUST_WORK=1.
bool sandbox_available();
#define REQUIRE_SANDBOX()                                                              \
  do {                                                                                 \
    if (!::cordon::it::sandbox_available()) {                                          \
      if (std::getenv("CORDON_MUST_WORK") && std::string(std::getenv("CORDON_MUST_WORK")) == "1") \
        FAIL() << "user namespaces are unavailable but CORDON_MUST_WORK=1";            \
      GTEST_SKIP() << "user namespaces are unavailable";                               \
    }                                                                                  \
  } while (0)

std::string cordon_binary();

// The machine's processes and their command lines (words joined by spaces), read from /proc so
// that it needs no procps (the suites also run in a minimal container). A process that ends
// while it is read (its files then fail with ESRCH) is left out, never an error; a /proc that
// cannot be listed fails the test.
std::vector<std::pair<pid_t, std::string>> command_lines();
// Issue 30: processes anywhere on the machine whose command line is exactly `sleep ARG`, and an
// ARG no other process has (this test process's pid and a count): a command's tree is found
// in /proc by it, sandboxed or not.
int sleeping(const std::string& arg);
std::string unique_sleep();
// PROT-7: the names in `dir` that are quarantine copies of `prefix` (what cordon moved aside:
// `prefix.cordon-quarantined-...`).
std::vector<std::string> quarantined(const std::string& dir, const std::string& prefix);
// Whether the machine's own 127.0.0.1:port accepts a connection (from this test, outside any
// sandbox).
bool host_connects(int port);
// A listening socket on the machine's 127.0.0.1, on a port the kernel chose (put in `port`);
// -1 when it could not be made.
int listen_on_host_loopback(int& port, int backlog = 8);

// A fresh folder /tmp/NAME-XXXXXX for a test (mkdtemp; a failure is the test's), removed with
// all it holds when the test is done (kept with CORDON_KEEP_TEST_DIRS, as a World's).
struct TempDir {
  explicit TempDir(const std::string& name = "cordon-test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string path;
};

// Waits for `done` (checked every 50 ms) up to `limit`; its last answer.
bool eventually(const std::function<bool()>& done,
                std::chrono::seconds limit = std::chrono::seconds(60));

}  // namespace cordon::it
