// Sessions, leftover records, resume, holds and limits (SES, PROC-3, PROC-6, NET-4).
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "harness.h"

namespace cordon::it {
namespace {

using json = nlohmann::json;

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") out.push_back(n);
    }
    closedir(d);
  }
  return out;
}

bool host_has_process(const std::string& pattern) {
  return run_program({"/usr/bin/pgrep", "-f", pattern}, {{"PATH", "/usr/bin:/bin"}}, "/")
             .status == 0;
}

bool wait_for(const std::function<bool()>& cond, int ms = 10000) {
  for (int i = 0; i < ms / 20; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return cond();
}

std::string state_dir(const World& w) { return w.home() + "/.local/state/cordon"; }

TEST(Session, StartListEndAndTmpLifetime) {  // SES-1, FS-3
  REQUIRE_SANDBOX();
  World w;
  Proc r = w.cordon({"session", "start"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string id = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(id.size(), 16u);
  EXPECT_NE(r.err.find("started"), std::string::npos);
  r = w.cordon({"session", "list"});
  EXPECT_NE(r.out.find(id), std::string::npos);
  EXPECT_NE(r.out.find(w.project()), std::string::npos);
  w.cordon({"run", "--session", id, "--", "/bin/sh", "-c", "echo kept > /tmp/k"});
  std::string tmp = w.home() + "/.cache/cordon/sandbox-tmp/" + id;
  EXPECT_TRUE(w.exists(tmp + "/k"));
  r = w.cordon({"session", "end", id});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(w.exists(tmp));
  r = w.cordon({"session", "list"});
  EXPECT_EQ(r.out.find(id), std::string::npos);
  r = w.cordon({"session", "resume", id});
  EXPECT_NE(r.status, 0);
}

TEST(Session, StagingInsideTheSessionDoesNotUnlock) {  // PROT-3, SES-4
  REQUIRE_SANDBOX();
  World w;
  w.write(".envrc", "export A=1\n");
  Proc r = w.cordon({"session", "start", "--id", "0000000000000003"});
  ASSERT_EQ(r.status, 0) << r.err;
  // The command stages the untracked .envrc (the index is writable) ...
  r = w.cordon({"run", "--session", "0000000000000003", "--", "git", "add", "-f", ".envrc"});
  EXPECT_EQ(r.status, 0) << r.err;
  // ... which does not make it writable in this session.
  w.cordon({"run", "--session", "0000000000000003", "--", "/bin/sh", "-c", "echo evil >> .envrc"});
  EXPECT_EQ(w.read(".envrc"), "export A=1\n");
  // Committed by the user and resumed: a fresh tracked set (SES-4), so it is writable.
  w.host({"git", "commit", "-q", "-m", "envrc"});
  r = w.cordon({"session", "resume", "0000000000000003"});
  EXPECT_EQ(r.status, 0) << r.err;
  w.cordon({"run", "--session", "0000000000000003", "--", "/bin/sh", "-c", "echo more >> .envrc"});
  EXPECT_EQ(w.read(".envrc"), "export A=1\nmore\n");
}

TEST(Session, KilledCordonIsCleanedUpByResume) {  // SES-2, SES-3, PROT-7
  REQUIRE_SANDBOX();
  World w;
  ASSERT_EQ(w.cordon({"session", "start", "--id", "00000000000c4a54"}).status, 0);
  std::string tag = "4" + std::to_string(getpid() % 10000) + "7";
  pid_t pid = w.spawn_cordon({"run", "--session", "00000000000c4a54", "--", "/bin/sh", "-c",
                               "echo 'export PLANTED=1' > .envrc; sleep " + tag});
  ASSERT_TRUE(wait_for([&] { return w.exists(".envrc"); }));
  std::string leftovers = state_dir(w) + "/leftovers/00000000000c4a54";
  EXPECT_EQ(list_dir(leftovers).size(), 1u);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  // bwrap's --die-with-parent takes the sandbox down with cordon.
  EXPECT_TRUE(wait_for([&] { return !host_has_process("sleep " + tag.substr(0, tag.size() - 1) + "[" + tag.back() + "]"); }));
  EXPECT_TRUE(w.exists(".envrc"));
  Proc r = w.cordon({"session", "resume", "00000000000c4a54"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(w.exists(".envrc"));
  EXPECT_NE(r.err.find(".envrc.cordon-quarantined-"), std::string::npos) << r.err;
  EXPECT_TRUE(list_dir(leftovers).empty());
  EXPECT_EQ(w.cordon({"run", "--session", "00000000000c4a54", "--", "true"}).status, 0);
}

TEST(Session, KilledEphemeralRunIsSweptByTheNextCommand) {  // SES-3
  REQUIRE_SANDBOX();
  World w;
  pid_t pid = w.spawn_cordon({"run", "--", "/bin/sh", "-c", "echo x > AGENTS.md; sleep 60"});
  ASSERT_TRUE(wait_for([&] { return w.exists("AGENTS.md"); }));
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  Proc r = w.sh("true");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(w.exists("AGENTS.md"));
  EXPECT_NE(r.err.find("AGENTS.md.cordon-quarantined-"), std::string::npos) << r.err;
}

// SES-3: a record edited outside the sandbox is damaged: the session is held, nothing moves
// (not another folder's files, not files outside the project, not unprotected files), and an
// absolute `rel` does not make resume spin.
TEST(Session, EditedRecordHoldsAndMovesNothing) {  // SES-3
  REQUIRE_SANDBOX();
  World w;
  const std::string id = "00000000000e0d17";
  w.write("a.txt", "mine\n");
  w.write(w.home() + "/other/.envrc", "theirs\n");
  w.write(w.home() + "/x", "outside\n");
  ASSERT_EQ(w.cordon({"session", "start", "--id", id}).status, 0);
  std::string rec = state_dir(w) + "/leftovers/" + id + "/7";
  auto record = [&](const std::string& snapshot_project, const std::string& rel) {
    json entry = {{"rel", rel},
                  {"kind", 0},
                  {"link", ""},
                  {"dev", 0},
                  {"ino", 0},
                  {"tracked", false},
                  {"file_by_file", false},
                  {"children", json::array()},
                  {"tracked_children", json::array()}};
    json snap = {{"project", snapshot_project}, {"git_dir", ""},
                 {"commondir_exists", false},   {"git_candidates", json::array()},
                 {"git_links", json::array()},  {"unreadable", json::array()},
                 {"entries", {entry}}};
    json j = {{"version", 1}, {"cordon_version", "x"}, {"session", id},   {"project", w.project()},
              {"effect", 7},  {"sandboxed", true},     {"owner_pid", 0},  {"owner_start", 0},
              {"pid", 0},     {"pid_start", 0},        {"pgid", 0},       {"command", {"sh"}},
              {"started", 0}, {"boot_id", ""},         {"snapshot", snap}};
    w.write(rec, j.dump());
  };
  const std::string other = w.home() + "/other";
  for (const auto& [project, rel] :
       std::vector<std::pair<std::string, std::string>>{{other, ".envrc"},
                                                        {w.project(), "../x"},
                                                        {w.project(), "a.txt"},
                                                        {w.project(), w.project() + "/a.txt"}}) {
    record(project, rel);
    Proc r = w.cordon({"session", "resume", id});
    EXPECT_NE(r.err.find("held"), std::string::npos) << rel << ": " << r.err;
    EXPECT_EQ(w.cordon({"run", "--session", id, "--", "/bin/echo", "ran"}).status, 125) << rel;
    EXPECT_EQ(w.read("a.txt"), "mine\n") << rel;
    EXPECT_EQ(w.read(other + "/.envrc"), "theirs\n") << rel;
    EXPECT_EQ(w.read(w.home() + "/x"), "outside\n") << rel;
  }
  unlink(rec.c_str());
  EXPECT_EQ(w.cordon({"run", "--session", id, "--", "/bin/echo", "ran"}).status, 0);
}

// SES-1: a session id is 16 hex digits wherever it is read.
TEST(Session, IdsAreSixteenHexDigits) {  // SES-1
  REQUIRE_SANDBOX();
  World w;
  for (const char* bad : {"s1", "../../x", "0123456789ABCDEF"}) {
    Proc r = w.cordon({"session", "start", "--id", bad});
    EXPECT_NE(r.status, 0) << bad;
    r = w.cordon({"run", "--session", bad, "--", "true"});
    EXPECT_NE(r.status, 0) << bad;
    EXPECT_NE(r.err.find("16"), std::string::npos) << r.err;
  }
}

TEST(Session, DamagedRecordHoldsUntilRemoved) {  // SES-3
  REQUIRE_SANDBOX();
  World w;
  w.write(".envrc", "x\n");
  ASSERT_EQ(w.cordon({"session", "start", "--id", "0000000000000d39"}).status, 0);
  std::string rec = state_dir(w) + "/leftovers/0000000000000d39/7";
  w.write(rec, "{not json");
  Proc r = w.cordon({"run", "--session", "0000000000000d39", "--", "/bin/echo", "ran"});
  EXPECT_EQ(r.status, 125);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("held"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(".envrc"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rm " + rec), std::string::npos) << r.err;
  // Outside-sandbox commands are not held by it.
  r = w.cordon(
      {"run", "--session", "0000000000000d39", "--outside-sandbox", "--", "/bin/echo", "ran"});
  EXPECT_EQ(r.out, "ran\n") << r.err;
  // An empty record holds too.
  w.write(rec, "");
  EXPECT_EQ(w.cordon({"run", "--session", "0000000000000d39", "--", "/bin/echo", "ran"}).status,
            125);
  unlink(rec.c_str());
  r = w.cordon({"run", "--session", "0000000000000d39", "--", "/bin/echo", "ran"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "ran\n");
}

// Also the abort after bwrap got its options: the leftover record fails while bwrap builds the
// sandbox, and the command must not start (the seccomp pipe ends empty). A `--block-fd` gate
// failed this, against the sanitized (slower) cordon, every time.
TEST(Session, UnwritableStateRefusesSandboxedButNotApprovedOutside) {  // SES-2
  REQUIRE_SANDBOX();
  World w;
  std::string leftovers = state_dir(w) + "/leftovers";
  mkdir((w.home() + "/.local").c_str(), 0755);
  mkdir((w.home() + "/.local/state").c_str(), 0755);
  mkdir(state_dir(w).c_str(), 0755);
  mkdir(leftovers.c_str(), 0755);
  bool mounted = false;
  if (geteuid() == 0) {
    // Root writes through permissions: a read-only filesystem it is.
    ASSERT_EQ(mount("tmpfs", leftovers.c_str(), "tmpfs", MS_RDONLY, "size=16k"), 0);
    mounted = true;
  } else {
    chmod(leftovers.c_str(), 0555);
  }
  Proc r = w.sh("echo ran");
  Proc out = w.sh("echo ran-outside", {"--outside-sandbox"});
  if (mounted) umount(leftovers.c_str());
  chmod(leftovers.c_str(), 0755);
  EXPECT_EQ(r.status, 125);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(leftovers), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("writable"), std::string::npos) << r.err;
  EXPECT_EQ(out.status, 0) << out.err;
  EXPECT_EQ(out.out, "ran-outside\n");
  EXPECT_NE(out.err.find("leftover record not written"), std::string::npos) << out.err;
}

// The processes this user has now. Without a cgroup (an unprivileged user), `pids` is the
// per-user RLIMIT_NPROC, which counts every process of the user on the machine.
size_t processes_of_this_user() {
  size_t n = 0;
  DIR* d = opendir("/proc");
  if (!d) return 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    struct stat st;
    if (stat(("/proc/" + std::string(e->d_name)).c_str(), &st) == 0 && st.st_uid == getuid()) ++n;
  }
  closedir(d);
  return n;
}

TEST(Limits, ForkBombAndMemoryBombEndTheCommandNotTheSession) {  // PROC-6
  REQUIRE_SANDBOX();
  World w;
  // As root the limit is the command's own cgroup; as a user, leave the bomb 64 processes on top
  // of what the user already runs (other tests' sessions, a desktop).
  size_t pids = geteuid() == 0 ? 64 : processes_of_this_user() + 64;
  w.config("[limits]\npids = " + std::to_string(pids) + "\nmemory = \"256M\"\n");
  ASSERT_EQ(w.cordon({"session", "start", "--id", "0000000000000111"}).status, 0);
  // Written inline, the command policy refuses the bomb (CMD-4) before anything runs; and
  // promptly, leaving nothing behind that holds cordon's output open.
  const std::string bomb = "b() { b | b & }; b; sleep 2; echo survived";
  Proc r = w.cordon(
      {"run", "--session", "0000000000000111", "--timeout", "20s", "--", "/bin/bash", "-c", bomb});
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("fork bomb"), std::string::npos) << r.err;
  EXPECT_LT(r.ms, 20000);
  // In a script the policy cannot read, it runs and meets the limit. The script's own shell
  // ends by exec (a `sleep` it had to fork would wait out bash's fork retries, 15 s, while the
  // bomb holds every slot), and cordon ends the bomb with it, well before the 60 s backstop.
  w.write("bomb.sh", "b() { b | b & }; b; exec /bin/sleep 2\n");
  r = w.cordon(
      {"run", "--session", "0000000000000111", "--timeout", "60s", "--", "/bin/bash", "bomb.sh"});
  EXPECT_EQ(r.err.find("refused"), std::string::npos) << r.err.substr(0, 2000);
  EXPECT_NE(r.status, 124) << "ended by the timeout, not by itself";
  EXPECT_LT(r.ms, 30000);
  EXPECT_NE(r.err.find("fork: "), std::string::npos) << r.err.substr(0, 2000);
  r = w.cordon({"run", "--session", "0000000000000111", "--", "/usr/bin/python3", "-c",
                "x = []\nwhile True: x.append(bytearray(10**7))"});
  EXPECT_NE(r.status, 0);
  EXPECT_LT(r.ms, 20000);
  // cordon and the session carry on.
  r = w.cordon({"run", "--session", "0000000000000111", "--", "/bin/echo", "carries on"});
  EXPECT_EQ(r.out, "carries on\n") << r.err;
  r = w.cordon({"policy"});
  EXPECT_NE(r.out.find("pids"), std::string::npos);
  EXPECT_NE(r.out.find(geteuid() == 0 ? "cgroup" : "rlimit"), std::string::npos) << r.out;
}

TEST(Limits, CpuFileSizeAndOpenFiles) {  // PROC-6
  REQUIRE_SANDBOX();
  World w;
  w.config("[limits]\ncpu_seconds = 1\nfile_size = \"1M\"\nopen_files = 64\n");
  Proc r = w.sh("ulimit -t; ulimit -n; dd if=/dev/zero of=big bs=1M count=4 2>&1 | tail -1");
  EXPECT_NE(r.out.find("1\n64\n"), std::string::npos) << r.out << r.err;
  struct stat st;
  ASSERT_EQ(stat(w.abs("big").c_str(), &st), 0);
  EXPECT_LE(st.st_size, 1 << 20);
  r = w.sh("while :; do :; done");
  EXPECT_EQ(r.status, 128 + SIGKILL == r.status ? r.status : 128 + SIGXCPU) << r.status;
  EXPECT_LT(r.ms, 10000);
}

TEST(Session, OutsideSandboxSetsidSurvivorIsNamedAndLeftRunning) {  // NET-4
  REQUIRE_SANDBOX();
  World w;
  std::string tag = "5" + std::to_string(getpid() % 10000) + "3";
  Proc r = w.cordon({"run", "--outside-sandbox", "--", "/bin/sh", "-c",
                     "setsid sleep " + tag + " >/dev/null 2>&1 < /dev/null & sleep " + tag +
                         "1 & sleep 0.5; echo started"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("still running outside the sandbox"), std::string::npos) << r.err;
  std::string pattern = "sleep " + tag.substr(0, tag.size() - 1) + "[" + tag.back() + "]$";
  EXPECT_TRUE(host_has_process(pattern));
  // Its own process group ended with it.
  EXPECT_FALSE(host_has_process("sleep " + tag + "[1]"));
  run_program({"/usr/bin/pkill", "-f", pattern}, {{"PATH", "/usr/bin:/bin"}}, "/");
}

}  // namespace
}  // namespace cordon::it
