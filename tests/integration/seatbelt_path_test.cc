// The Seatbelt backend end to end on Linux (MAC-5): with CORDON_BACKEND=seatbelt and a stand-in
// for sandbox-exec (CORDON_SANDBOX_EXEC), `cordon run`, `serve` and `mcp` go through the same
// path as bwrap's: facts, plan, the launch of `sandbox-exec -p PROFILE -- COMMAND`, the
// leftover record, aftercare and notes. The stand-in confines nothing: these tests check the
// path taken (the profile handed over, the environment, aftercare, records), and MAC-3's golden
// profiles and the macOS workflow check what the profile means on a Mac.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "harness.h"
#include "rpc_client.h"

namespace cordon::it {
namespace {

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Checks its arguments as sandbox-exec takes them (`-p PROFILE -- COMMAND...`), keeps each
// profile and command line for the test, and runs the command. It can refuse every profile, or
// only cordon's (not the probe's), exiting 71 the way sandbox-exec does when the kernel refuses.
enum class Refuse { kNone, kAll, kCommands };

struct StandIn {
  std::string path, log;

  explicit StandIn(World& w, Refuse refuse = Refuse::kNone) {
    path = w.root() + "/stand-in/sandbox-exec";
    log = w.root() + "/stand-in/log";
    w.write(log + "/commands", "");
    std::string body =
        "#!/bin/sh\n"
        "# A stand-in for /usr/bin/sandbox-exec (MAC-5 tests): no confinement.\n"
        "log='" +
        log +
        "'\n"
        "if [ \"$1\" != -p ]; then echo \"stand-in: expected -p, got '$1'\" >&2; exit 64; fi\n"
        "case \"$2\" in *'(version 1)'*) ;; *) echo 'stand-in: not a profile' >&2; exit 64;; esac\n"
        "if [ \"$3\" != -- ]; then echo \"stand-in: expected --, got '$3'\" >&2; exit 64; fi\n"
        "if [ $# -lt 4 ]; then echo 'stand-in: no command' >&2; exit 64; fi\n";
    const std::string no =
        "echo 'sandbox-exec: sandbox_apply: Operation not permitted' >&2; exit 71";
    if (refuse == Refuse::kAll) body += no + "\n";
    if (refuse == Refuse::kCommands)
      body += "case \"$2\" in *'(deny default)'*) " + no + ";; esac\n";
    body +=
        "n=$(($(wc -l < \"$log/commands\") + 1))\n"
        "printf '%s' \"$2\" > \"$log/profile.$n\"\n"
        "shift 3\n"
        "printf '%s\\n' \"$*\" >> \"$log/commands\"\n"
        "exec \"$@\"\n";
    w.write(path, body, 0755);
    chmod((w.root() + "/stand-in").c_str(), 0755);
    w.env["CORDON_BACKEND"] = "seatbelt";
    w.env["CORDON_SANDBOX_EXEC"] = path;
  }

  std::vector<std::string> commands() const {
    std::ifstream in(log + "/commands");
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  // The profile of the n-th run (1-based; the probe's included), or "".
  std::string profile(size_t n) const {
    std::ifstream in(log + "/profile." + std::to_string(n), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::string last_profile() const { return profile(commands().size()); }
};

std::vector<std::string> files_below(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    struct stat st;
    std::string p = dir + "/" + n;
    // Gone since it was listed: not a file (cordon's exit holder removes the command's empty
    // folders just after cordon has exited).
    if (lstat(p.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      for (auto& f : files_below(p)) out.push_back(f);
    } else {
      out.push_back(p);
    }
  }
  closedir(d);
  return out;
}

TEST(SeatbeltPath, RunGoesThroughSandboxExecWithTheProfile) {  // MAC-5, MAC-1, ENV-1, ENV-5
  World w;
  StandIn sb(w);
  w.env["GITHUB_TOKEN"] = "ghp_notarealtokenbutlongenough1234567890";
  Proc r = w.sh(
      "pwd; echo \"TMPDIR=$TMPDIR\"; env | grep -c GITHUB_TOKEN; "
      "echo x > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"; exit 3");
  EXPECT_EQ(r.status, 3) << r.err;
  std::vector<std::string> lines;
  std::istringstream out(r.out);
  for (std::string l; std::getline(out, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 4u) << r.out << r.err;
  EXPECT_EQ(lines[0], w.project());
  // MAC-1: TMPDIR is the session's private temp folder, under cordon's cache.
  const std::string tmpdir = lines[1].substr(7);
  EXPECT_TRUE(has(tmpdir, "/sandbox-tmp/")) << lines[1];
  EXPECT_EQ(lines[2], "0");  // ENV-1: stripped
  EXPECT_EQ(lines[3], "x");
  // The stand-in ran once for the probe and once for the command, with cordon's profile.
  auto cmds = sb.commands();
  ASSERT_EQ(cmds.size(), 2u) << r.err;
  EXPECT_EQ(cmds[0], "/bin/sh -c exit 0");  // the probe
  EXPECT_TRUE(has(cmds[1], "-c pwd; echo")) << cmds[1];
  const std::string prof = sb.last_profile();
  EXPECT_TRUE(has(prof, "\n(version 1)\n(deny default)\n")) << prof.substr(0, 400);
  EXPECT_TRUE(has(prof, "(subpath \"" + w.project() + "\")"));
  EXPECT_TRUE(has(prof, "(subpath \"" + tmpdir + "\")"));
  EXPECT_FALSE(has(prof, "network-outbound (remote"));  // MAC-1: no network
  // A command that does not exist reads as it does everywhere.
  r = w.cordon({"run", "--", "no-such-program-xyz"});
  EXPECT_EQ(r.status, 127) << r.err;
  EXPECT_TRUE(has(r.err, "no-such-program-xyz: command not found")) << r.err;
}

TEST(SeatbeltPath, AftercareMovesAPlantedHuskyAside) {  // MAC-5, PROT-6, PROT-7
  World w;
  StandIn sb(w);
  Proc r = w.sh("mkdir -p .husky && printf 'curl evil\\n' > .husky/pre-commit");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(sb.commands().size(), 2u);
  EXPECT_FALSE(w.exists(".husky/pre-commit")) << r.err;
  bool moved = false;
  for (const auto& f : files_below(w.project()))
    moved |= has(f, ".husky.cordon-quarantined-") || has(f, ".cordon-quarantined-");
  EXPECT_TRUE(moved) << r.err;
  EXPECT_TRUE(has(r.err, ".husky")) << r.err;  // the note names it
  // A command that says sandbox-exec's words and exits as it does still gets aftercare.
  r = w.sh(
      "mkdir -p .husky && echo evil > .husky/pre-push; "
      "echo 'sandbox-exec: sandbox_apply: Operation not permitted' >&2; exit 71");
  EXPECT_EQ(r.status, 71) << r.err;
  EXPECT_FALSE(w.exists(".husky/pre-push")) << r.err;
}

TEST(SeatbeltPath, LeftoverRecordIsWrittenThenRemoved) {  // MAC-5, SES-2
  World w;
  StandIn sb(w);
  const std::string leftovers = w.home() + "/.local/state/cordon/leftovers";
  // Not counting a record being rewritten (its temporary file, renamed over it): cordon writes
  // the command's pid into it while the command starts, and a slow (sanitized) cordon may be
  // in that write when the command lists the folder (resume skips these files too).
  Proc r = w.sh("find '" + leftovers + "' -type f ! -name '*.tmp-*' | wc -l");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "1\n") << r.err;  // the record of this very command, while it runs
  EXPECT_EQ(files_below(leftovers), std::vector<std::string>{}) << r.err;
  EXPECT_EQ(sb.commands().size(), 2u);
}

TEST(SeatbeltPath, NetworkOpensTheProfileOutsideSandboxSkipsIt) {  // MAC-5, MAC-1, NET-4
  World w;
  StandIn sb(w);
  Proc r = w.sh("echo net", {"--network"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "net\n");
  ASSERT_EQ(sb.commands().size(), 2u) << r.err;
  EXPECT_TRUE(has(sb.last_profile(), "(allow network-outbound (remote ip \"*:*\"))"));
  // NET-4: unconfined, sandbox-exec not run, the environment still stripped (ENV-1).
  w.env["GITHUB_TOKEN"] = "ghp_notarealtokenbutlongenough1234567890";
  r = w.sh("echo outside; env | grep -c GITHUB_TOKEN", {"--outside-sandbox"});
  EXPECT_EQ(r.status, 1) << r.err;  // grep -c found none
  EXPECT_EQ(r.out, "outside\n0\n");
  EXPECT_EQ(sb.commands().size(), 2u);
}

TEST(SeatbeltPath, ArgumentBudgetCountsTheProfile) {  // MAC-5, BUD-1
  World w;
  StandIn sb(w);
  ASSERT_EQ(w.sh("true").status, 0);
  const size_t profile = sb.last_profile().size();
  ASSERT_GT(profile, 8000u) << "the test needs a profile larger than the environment";
  const size_t budget = 1048576 - 4096;  // macOS's kern.argmax, less what the system keeps
  auto run_with = [&](size_t arg_bytes) {
    std::vector<std::string> args = {"run", "--", "sh", "-c", "echo ran", "sh"};
    for (size_t left = arg_bytes; left > 0;) {
      size_t n = std::min<size_t>(left, 100000);
      args.push_back(std::string(n, 'a'));
      left -= n;
    }
    return w.cordon(args);
  };
  // Fits with the profile counted.
  Proc r = run_with(budget - profile - 20000);
  EXPECT_EQ(r.status, 0) << r.err.substr(0, 2000);
  EXPECT_EQ(r.out, "ran\n");
  const size_t runs = sb.commands().size();
  // Would fit without the profile, but not with it: refused before anything starts.
  r = run_with(budget - profile / 2);
  EXPECT_EQ(r.status, 125) << r.err.substr(0, 2000);
  EXPECT_TRUE(has(r.err, "argument limit (1048576 bytes")) << r.err.substr(0, 2000);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(sb.commands().size(), runs);
}

TEST(SeatbeltPath, ARefusedProfileStopsTheCommand) {  // MAC-5, MODE-4, PROBE-2
  World w;
  StandIn sb(w, Refuse::kAll);
  // The probe finds out first: nothing runs (MODE-4, fail closed).
  Proc r = w.sh("touch ran");
  EXPECT_EQ(r.status, 125) << r.err;
  EXPECT_TRUE(has(r.err, "sandbox-exec: sandbox_apply: Operation not permitted")) << r.err;
  EXPECT_FALSE(w.exists("ran"));
  EXPECT_TRUE(sb.commands().empty());
  r = w.cordon({"probe"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.out, "profile_applies")) << r.out;
  EXPECT_TRUE(has(r.err, "fix: ")) << r.err;
}

TEST(SeatbeltPath, AProfileRefusedForOneCommandIsNamed) {  // MAC-5, PROBE-4
  World w;
  StandIn sb(w, Refuse::kCommands);
  Proc r = w.sh("touch ran");
  EXPECT_EQ(r.status, 71) << r.err;
  EXPECT_TRUE(has(r.err, "the sandbox may not have started: sandbox-exec: sandbox_apply")) << r.err;
  EXPECT_FALSE(w.exists("ran"));
}

TEST(SeatbeltPath, ServeAndMcpGoThroughSandboxExec) {  // MAC-5, SRV-1, MCP-1
  World w;
  StandIn sb(w);
  {
    RpcClient serve({"serve"}, w.env, w.project());
    json init = serve.call("initialize", {{"project", w.project()}});
    ASSERT_TRUE(init.contains("result")) << init.dump() << serve.stderr_text();
    EXPECT_EQ(init["result"]["sandbox"]["backend"], "seatbelt");
    EXPECT_EQ(init["result"]["sandbox"]["available"], true) << init.dump();
    json r = serve.call("exec", {{"command", "echo via-serve; pwd; exit 4"}});
    ASSERT_TRUE(r.contains("result")) << r.dump();
    EXPECT_EQ(r["result"]["exit_code"], 4);
    EXPECT_EQ(r["result"]["stdout"], "via-serve\n" + w.project() + "\n");
    r = serve.call("exec", {{"argv", {"/bin/sh", "-c", "cat"}}, {"stdin", "from stdin"}});
    EXPECT_EQ(r["result"]["stdout"], "from stdin") << r.dump();
    r = serve.call("exec", {{"command", "sleep 5"}, {"timeout_ms", 200}});
    EXPECT_EQ(r["result"]["exit_code"], 124) << r.dump();
    serve.close_stdin();
    serve.wait_exit();
  }
  auto cmds = sb.commands();
  size_t sandboxed = 0;
  for (const auto& c : cmds) sandboxed += has(c, "echo via-serve") || has(c, "cat");
  EXPECT_EQ(sandboxed, 2u);

  RpcClient mcp({"mcp", "--project", w.project()}, w.env, w.project());
  json init = mcp.mcp_initialize();
  ASSERT_TRUE(init.contains("result")) << init.dump() << mcp.stderr_text();
  json r = mcp.call("tools/call", {{"name", "bash"}, {"arguments", {{"command", "echo via-mcp"}}}});
  EXPECT_TRUE(has(r.dump(), "via-mcp")) << r.dump();
  EXPECT_TRUE(has(sb.commands().back(), "echo via-mcp")) << sb.commands().back();
  EXPECT_TRUE(has(sb.last_profile(), "\n(version 1)\n(deny default)\n"));
}

TEST(SeatbeltPath, PolicyAndProbeNameTheBackend) {  // MAC-5, MAC-2
  World w;
  StandIn sb(w);
  Proc r = w.cordon({"policy"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "backend:      Seatbelt (sandbox-exec)")) << r.out;
  EXPECT_TRUE(has(r.out, sb.path + " (CORDON_SANDBOX_EXEC)")) << r.out;
  EXPECT_TRUE(has(r.out, "path filters of at most 1000")) << r.out;
  EXPECT_FALSE(has(r.out, "mounts:")) << r.out;
  r = w.cordon({"policy", "--json"});
  json j = json::parse(r.out);
  EXPECT_EQ(j["backend"], "seatbelt");
  EXPECT_EQ(j["backend_detail"]["stand_in"], true);
  EXPECT_EQ(j["backend_detail"]["sandbox_exec"], sb.path);
  EXPECT_GT(j["backend_detail"]["profile_bytes"].get<size_t>(), 1000u);
  EXPECT_GT(j["backend_detail"]["path_filters"].get<size_t>(), 0u);
  EXPECT_EQ(j["backend_detail"]["max_path_filters"], 1000);
  EXPECT_EQ(j["network"], "none");  // MAC-1: loopback too
  // MAC-4 unchanged: --seatbelt prints the profile, with the real sandbox-exec's name.
  r = w.cordon({"policy", "--seatbelt"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("; cordon's Seatbelt profile"), 0u) << r.out;

  r = w.cordon({"probe"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  for (const char* s : {"Seatbelt (sandbox-exec)", "sandbox_exec_present", "profile_applies"})
    EXPECT_TRUE(has(r.out, s)) << s << "\n" << r.out;
  EXPECT_FALSE(has(r.out, "bwrap_present")) << r.out;
  r = w.cordon({"probe", "--json"});
  j = json::parse(r.out);
  EXPECT_EQ(j["backend"], "seatbelt");
  EXPECT_EQ(j["ok"], true);

  // A bad value is a clear error.
  w.env["CORDON_BACKEND"] = "docker";
  r = w.sh("echo ran");
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(has(r.err, "CORDON_BACKEND=docker")) << r.err;
  EXPECT_EQ(r.out, "");
}

// Without a pid namespace (macOS), a process that left the command's group with setsid is
// found by the command's marker and ended with it, as PROC-1 asks of every backend.
TEST(SeatbeltPath, AProcessThatLeftTheGroupEndsWithTheCommand) {  // MAC-5, PROC-1, PROC-3
  if (access("/usr/bin/setsid", X_OK) != 0 && access("/bin/setsid", X_OK) != 0)
    GTEST_SKIP() << "no setsid(1) here (macOS has none): util-linux's";
  World w;
  StandIn sb(w);
  Proc r = w.sh("setsid sleep 60 >/dev/null 2>&1 </dev/null & echo $!; sleep 0.3");
  EXPECT_EQ(r.status, 0) << r.err;
  const int pid = std::atoi(r.out.c_str());
  ASSERT_GT(pid, 0) << r.out;
  // Gone when cordon returns (a zombie only waits for whoever collects it).
  auto running = [pid] {
    std::ifstream st("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(st, line)) return false;
    size_t rp = line.rfind(')');
    return rp != std::string::npos && rp + 2 < line.size() && line[rp + 2] != 'Z';
  };
  EXPECT_FALSE(running()) << "process " << pid << " outlived the command";
  if (running()) kill(pid, SIGKILL);
  EXPECT_FALSE(has(r.err, "still running")) << r.err;
  // The command saw its marker (how it is found), and nothing else of cordon's.
  r = w.sh("echo \"$CORDON_RUN\" | wc -c");
  EXPECT_EQ(r.out, "17\n") << r.out;  // 16 hex digits and the newline
}

TEST(SeatbeltPath, AStrayStandInNeverReplacesBwrap) {  // MAC-5
#if defined(__APPLE__) || defined(CORDON_MACOS_BUILD)
  GTEST_SKIP() << "bwrap is Linux's";
#endif
  World w;
  StandIn sb(w);
  w.env.erase("CORDON_BACKEND");
  Proc r = w.cordon({"policy"});
  EXPECT_TRUE(has(r.out, "backend:      bubblewrap (Linux)")) << r.out;
  EXPECT_TRUE(has(r.out, "CORDON_SANDBOX_EXEC is set and ignored")) << r.out;
  REQUIRE_SANDBOX();
  r = w.sh("echo ran");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "ran\n");
  EXPECT_TRUE(sb.commands().empty());
}

// On a Mac (the macOS workflow): the real sandbox-exec with cordon's profile holds.
TEST(SeatbeltMac, RealSandboxExecHoldsTheProfile) {  // MAC-1, MAC-5
  if (access("/usr/bin/sandbox-exec", X_OK) != 0) GTEST_SKIP() << "no sandbox-exec: not a Mac";
  World w;
  w.write(w.home() + "/.ssh/id_rsa", "PRIVATE KEY\n");
  Proc r = w.sh(
      "echo in > inside.txt; echo x > \"$HOME/outside.txt\" || echo refused; "
      "cat \"$HOME/.ssh/id_rsa\" || echo hidden; echo t > \"$TMPDIR/t\" && echo tmp");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "refused\nhidden\ntmp\n") << r.err;
  EXPECT_EQ(w.read("inside.txt"), "in\n");
  EXPECT_FALSE(w.exists(w.home() + "/outside.txt"));
  r = w.cordon({"probe"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "Seatbelt (sandbox-exec)")) << r.out;
}

}  // namespace
}  // namespace cordon::it
