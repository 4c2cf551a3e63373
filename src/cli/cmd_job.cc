// `cordon job list|output|write|kill|wait --session S` (issue 30): the CLI face of the
// background jobs a session's keeper holds (server/session_keeper.h), through the same
// JSON-RPC methods as `cordon serve` (job/list, job/output, job/write, job/signal, job/wait).
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <iterator>

#include "cli/commands.h"
#include "cli/keeper_target.h"
#include "core/duration.h"
#include "core/paths.h"
#include "core/strings.h"
#include "process/process.h"
#include "server/keeper_files.h"
#include "sys/fs_util.h"

namespace cordon {

using JobJson = nlohmann::json;

namespace {

constexpr int kExitStillRunning = 124;  // `job wait --timeout`, as timeout(1) says it
constexpr uint64_t kWaitSliceMs = 60 * 1000;

struct Ctx {
  KeeperTarget target;
  KeeperClient& keeper;
  const JobArgs& args;
};

void write_out(FILE* f, const std::string& s) {
  if (!s.empty()) std::fwrite(s.data(), 1, s.size(), f);
  std::fflush(f);
}

// "exit 0" (128+N after signal N, 130 once killed), "running", or "refused".
std::string state_of(const JobJson& j) {
  if (j.value("running", false)) return "running";
  if (j.contains("exit_code")) return fmt::format("exit {}", j["exit_code"].get<int>());
  return "refused";
}

// The job's status from job/list; nullopt (said) when the keeper has no such job.
std::optional<JobJson> find_job(const Ctx& c) {
  auto r = c.keeper.call("job/list", JobJson::object());
  if (!r.ok()) {
    print_error(r.error().message);
    return std::nullopt;
  }
  for (const auto& j : r->value("jobs", JobJson::array()))
    if (j.value("job", std::string()) == c.args.job) return j;
  print_error(
      fmt::format("there is no job {} in session {}; `cordon job list --session {}` "
                  "lists them.",
                  c.args.job, c.target.session, c.target.session));
  return std::nullopt;
}

int list(const Ctx& c) {
  auto r = c.keeper.call("job/list", JobJson::object());
  if (!r.ok()) {
    print_error(r.error().message);
    return 1;
  }
  const JobJson jobs = r->value("jobs", JobJson::array());
  if (jobs.empty()) std::printf("no jobs\n");
  for (const auto& j : jobs)
    std::printf("%-4s %-10s %s\n", printable(j.value("job", std::string())).c_str(),
                state_of(j).c_str(), printable(j.value("command", std::string())).c_str());
  return 0;
}

// How far `cordon job output` has read the job, under a lock so two readers never print the
// same bytes; kept in the keeper folder until the keeper ends.
class ReadMark {
 public:
  explicit ReadMark(const Ctx& c) {
    KeeperFiles f = keeper_files(c.target.folders, c.target.session);
    (void)make_dirs(f.read, 0700);
    fd_ = Fd(open(path_join(f.read, c.args.job).c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
                  0600));
    if (fd_.fd >= 0) flock(fd_.fd, LOCK_EX);
  }
  uint64_t get() const {
    char buf[32] = {};
    if (fd_.fd < 0 || pread(fd_.fd, buf, sizeof buf - 1, 0) <= 0) return 0;
    return std::strtoull(buf, nullptr, 10);
  }
  void set(uint64_t at) {
    std::string s = std::to_string(at);
    if (fd_.fd < 0 || ftruncate(fd_.fd, 0) != 0) return;
    (void)pwrite(fd_.fd, s.data(), s.size(), 0);
  }

 private:
  Fd fd_;
};

// Prints what came since the last read (or all that is held); the job's answer, or nullopt.
std::optional<JobJson> print_new_output(const Ctx& c, bool all) {
  ReadMark mark(c);
  auto r = c.keeper.call("job/output", {{"job", c.args.job}, {"offset", all ? 0 : mark.get()}});
  if (!r.ok()) {
    print_error(r.error().message);
    return std::nullopt;
  }
  write_out(stdout, r->value("stdout", std::string()));
  write_out(stderr, r->value("stderr", std::string()));
  if (uint64_t lost = r->value("dropped", uint64_t{0}))
    print_error(
        fmt::format("{} bytes of job {}'s output came and went before this read "
                    "(each stream keeps its last 1 MiB).",
                    lost, c.args.job));
  mark.set(r->value("offset", uint64_t{0}));
  return *r;
}

// What `cordon run` says after a command: its messages, then its notes.
void print_notes(const JobJson& j) {
  for (const auto& m : j.value("messages", JobJson::array()))
    if (m.is_string()) print_error(m.get<std::string>());
  for (const auto& n : j.value("notes", JobJson::array()))
    if (n.is_string()) print_error("note: " + n.get<std::string>());
}

// A job's end as an exit status: its exit code (128+N for signal N, as `cordon run` exits), or
// 125 when it was refused.
int end_status(const JobJson& j) {
  if (j.contains("exit_code")) return j["exit_code"].get<int>();
  if (j.contains("error")) print_error(j["error"].value("message", std::string()));
  return kExitRefused;
}

int output(const Ctx& c) {
  if (!find_job(c)) return kExitRefused;
  auto r = print_new_output(c, c.args.all);
  while (r && c.args.follow && r->value("running", false)) {
    (void)c.keeper.call("job/wait", {{"job", c.args.job}, {"timeout_ms", 500}});
    r = print_new_output(c, false);
  }
  if (!r) return 1;
  if (c.args.follow) return end_status(*r);
  if (r->contains("error"))  // refused before it started: why
    print_error((*r)["error"].value("message", std::string()));
  else if (!r->value("running", false))
    print_error(fmt::format("job {} has ended ({}).", c.args.job, state_of(*r)));
  return 0;
}

int write(const Ctx& c) {
  if (!find_job(c)) return kExitRefused;
  JobJson p{{"job", c.args.job}, {"eof", c.args.eof}};
  if (c.args.text) {
    p["data"] = *c.args.text + (c.args.no_newline ? "" : "\n");
  } else if (!isatty(0)) {
    p["data"] = std::string(std::istreambuf_iterator<char>(std::cin), {});
  } else if (!c.args.eof) {
    print_error("give the TEXT to write, pipe it in, or give --eof to close the job's input.");
    return kExitRefused;
  }
  auto r = c.keeper.call("job/write", p);
  if (!r.ok()) {
    print_error(r.error().message);
    return 1;
  }
  return 0;
}

int kill(const Ctx& c) {
  if (!find_job(c)) return kExitRefused;
  auto r = c.keeper.call("job/signal", {{"job", c.args.job}, {"signal", c.args.signal}});
  if (!r.ok()) {
    print_error(r.error().message);
    return 1;
  }
  // KILL ends the whole tree: said done once it has ended, with its aftercare.
  const std::string s = c.args.signal;
  if (s == "KILL" || s == "SIGKILL" || s == "9")
    (void)c.keeper.call("job/wait", {{"job", c.args.job}, {"timeout_ms", 10000}});
  return 0;
}

int wait(const Ctx& c) {
  if (!find_job(c)) return kExitRefused;
  std::optional<std::chrono::milliseconds> limit;
  if (!c.args.timeout.empty()) {
    limit = parse_duration(c.args.timeout);
    if (!limit) {
      print_error("--timeout " + c.args.timeout + ": not a duration; use 30s, 5m, 1h.");
      return kExitRefused;
    }
  }
  auto until = std::chrono::steady_clock::now() + limit.value_or(std::chrono::hours(24 * 365));
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    uint64_t ms = std::min<uint64_t>(kWaitSliceMs, std::max<int64_t>(left.count(), 1));
    auto r = c.keeper.call("job/wait", {{"job", c.args.job}, {"timeout_ms", ms}});
    if (!r.ok()) {
      print_error(r.error().message);
      return 1;
    }
    if (r->value("ended", false)) {
      print_notes(*r);
      return end_status(*r);
    }
    if (std::chrono::steady_clock::now() >= until) {
      print_error(fmt::format("job {} is still running after {}.", c.args.job, c.args.timeout));
      return kExitStillRunning;
    }
  }
}

}  // namespace

int cmd_job(const CliContext& ctx, const JobArgs& args) {
  KeeperTarget t = keeper_target(ctx, args.session, "");
  if (t.session.empty()) {
    print_error("name the session: --session ID or CORDON_SESSION.");
    return kExitRefused;
  }
  auto keeper = KeeperClient::connect(t, /*start=*/false);
  if (!keeper.ok()) {
    print_error(keeper.error().message);
    return kExitRefused;
  }
  Ctx c{t, **keeper, args};
  if (args.action == "list") return list(c);
  if (args.action == "output") return output(c);
  if (args.action == "write") return write(c);
  if (args.action == "kill") return kill(c);
  return wait(c);
}

}  // namespace cordon
