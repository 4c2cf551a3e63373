// PROBE-4, DIST-1, DIST-3: bwrap's own failure messages diagnosed end to end, an older bwrap
// (0.6.1) running commands with the sandbox holding, `cordon setup apparmor`, `--version`,
// and the man page and completions generated from the CLI definition. The bwrap is a stand-in
// script chosen with CORDON_BWRAP.
#include <unistd.h>

#include "harness.h"

namespace cordon::it {
namespace {

bool host_is_container() {
  return access("/.dockerenv", F_OK) == 0 || access("/run/.containerenv", F_OK) == 0;
}

std::string real_bwrap_version() {
  Proc r = run_program({"/usr/bin/bwrap", "--version"}, {{"PATH", "/usr/bin:/bin"}}, "/");
  return r.out.substr(0, r.out.find('\n'));
}

std::string sh_quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

// A bwrap that answers --version with `version` and fails every sandbox with `message`.
std::string failing_bwrap(const World& w, const std::string& version, const std::string& message,
                          bool probe_passes = false) {
  std::string path = w.root() + "/bwrap-failing";
  std::string script =
      "#!/bin/sh\n"
      "if [ \"$1\" = --version ]; then echo " +
      sh_quote(version) + "; exit 0; fi\n";
  // The probe's checker is `cordon __probe-inside`: let it through to the real bwrap when the
  // failure should come with a command instead.
  if (probe_passes)
    script += "case \" $* \" in *' __probe-inside '*) exec /usr/bin/bwrap \"$@\" ;; esac\n";
  // Like bwrap, read the options (--args 3) before failing to set the sandbox up.
  script += "[ \"$1\" = --args ] && /bin/cat <&3 >/dev/null\n";
  script += "echo " + sh_quote(message) + " >&2\nexit 1\n";
  w.write(path, script, 0755);
  return path;
}

// bwrap 0.6.1: no --disable-userns (0.8), no --size (0.7); otherwise the real bwrap. The
// options come through `--args 3`, so the stand-in reads them, refuses the newer ones as
// bwrap 0.6.1 does, and hands the rest on. Each real run is logged.
std::string old_bwrap(const World& w, const std::string& version = "bubblewrap 0.6.1") {
  std::string path = w.root() + "/bwrap-0.6.1";
  std::string log = w.root() + "/bwrap-0.6.1.log";
  w.write(
      path,
      "#!/bin/sh\n"
      "if [ \"$1\" = --version ]; then echo '" +
          version +
          "'; exit 0; fi\n"
          "[ \"$1\" = --args ] && [ \"$2\" = 3 ] || { echo 'bwrap: expected --args 3' >&2; "
          "exit 1; }\n"
          "tmp=$(/usr/bin/mktemp) || exit 1\n"
          "/bin/cat <&3 >\"$tmp\"\n"
          "opt=$(/usr/bin/tr '\\0' '\\n' <\"$tmp\" | /bin/grep -x -m1 -e --disable-userns -e "
          "--size)\n"
          "if [ -n \"$opt\" ]; then /bin/rm -f \"$tmp\"; echo \"bwrap: Unknown option $opt\" >&2; "
          "exit 1; fi\n"
          "exec 3<\"$tmp\"\n"
          "/bin/rm -f \"$tmp\"\n"
          "echo ran >>'" +
          log +
          "'\n"
          "exec /usr/bin/bwrap \"$@\"\n",
      0755);
  return path;
}

struct Message {
  const char* text;  // as bwrap prints it
  const char* row;   // the diagnosis table's row
  bool container;    // a container's row: the fix names external mode
};

const Message kMessages[] = {
    {"bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted", "loopback_newaddr", false},
    {"bwrap: loopback: Failed RTM_NEWLINK: Operation not permitted", "loopback_newlink", false},
    {"bwrap: setting up uid map: Permission denied", "uid_map", false},
    {"bwrap: No permissions to creating new namespace, likely because the kernel does not allow "
     "non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl "
     "kernel.unprivileged_userns_clone=1'.",
     "userns_not_permitted", false},
    {"bwrap: No permissions to create a new namespace, likely because the kernel does not allow "
     "non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl "
     "kernel.unprivileged_userns_clone=1'.",
     "userns_not_permitted", false},
    {"bwrap: Creating new namespace failed: Operation not permitted", "new_namespace_failed", true},
    {"bwrap: Failed to make / slave: Permission denied", "root_slave", true},
    {"bwrap: Can't mount proc on /newroot/proc: Operation not permitted", "mount_proc", true},
};

TEST(BwrapDiagnosis, ProbeNamesTheStepCauseAndFixOfEachMessage) {  // PROBE-4
  for (const auto& m : kMessages) {
    World w(false);
    w.env["CORDON_BWRAP"] = failing_bwrap(w, "bubblewrap 0.8.0", m.text);
    Proc r = w.cordon({"probe", "--json"});
    EXPECT_EQ(r.status, 1) << m.text << r.out << r.err;
    EXPECT_NE(r.out.find("\"failed_check\": \"bwrap_runs\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(std::string("\"diagnosis\": \"") + m.row + "\""), std::string::npos)
        << m.text << "\n"
        << r.out;
    EXPECT_NE(r.out.find("\"step\": "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("no setting fixes"), std::string::npos) << r.out;
    if (m.container) {
      EXPECT_NE(r.out.find("mode = \\\"external\\\""), std::string::npos) << r.out;
    }
    if (std::string(m.row).find("loopback") == 0 && !host_is_container()) {
      EXPECT_NE(r.out.find("sudo cordon setup apparmor"), std::string::npos) << r.out;
    }

    // The text form: one line of cause, one of fix.
    r = w.cordon({"probe"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("cordon: the sandbox is unavailable: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("\ncordon: fix: "), std::string::npos) << r.err;

    // MODE-4: a command is refused with the same diagnosis, and does not run.
    r = w.sh("echo ran");
    EXPECT_EQ(r.status, 125) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.find("no setting fixes"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Fix: "), std::string::npos) << r.err;
  }
}

TEST(BwrapDiagnosis, ACommandWhoseSandboxFailsAfterTheProbeGetsTheDiagnosis) {  // PROBE-4
  REQUIRE_SANDBOX();
  World w(false);
  w.env["CORDON_BWRAP"] = failing_bwrap(w, real_bwrap_version(),
                                        "bwrap: Failed to make / slave: Permission denied", true);
  Proc r = w.cordon({"probe"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;  // the probe's own sandbox goes to the real bwrap
  r = w.sh("echo ran");
  EXPECT_EQ(r.status, 125) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("the sandbox could not start: making / a slave mount"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("mode = \"external\""), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("no setting fixes"), std::string::npos) << r.err;
}

// LL-1 too: where namespaces can be made, a bwrap failing for a reason of its own is reported,
// never a reason for `auto` to fall back to Landlock.
TEST(BwrapDiagnosis, AnUnknownMessageIsReported) {  // PROBE-2, LL-1
  World w(false);
  w.env["CORDON_BWRAP"] = failing_bwrap(w, "bubblewrap 0.8.0", "bwrap: a new failure: Bad thing");
  Proc r = w.cordon({"probe", "--json"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out.find("landlock"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"diagnosis\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the sandbox did not hold (bwrap_runs): bwrap: a new failure: Bad thing"),
            std::string::npos)
      << r.out;
}

TEST(OlderBwrap, Bwrap061RunsCommandsWithTheSandboxHolding) {  // PROBE-4, PROC-7, FS-4
  REQUIRE_SANDBOX();
  World w;
  w.env["CORDON_BWRAP"] = old_bwrap(w);
  w.write(w.home() + "/.netrc", "machine x login y password z\n", 0600);
  Proc r = w.cordon({"probe", "--json"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\"bwrap_version\": \"bubblewrap 0.6.1\""), std::string::npos) << r.out;
  // A hidden file reads empty; a new user namespace is refused (the seccomp rule, without
  // --disable-userns); the project is writable.
  r = w.sh(
      "cat \"$HOME/.netrc\"; echo \"[hidden read]\"; "
      "if unshare -U true 2>/dev/null; then echo userns-created; else echo userns-refused; fi; "
      "echo hi > made.txt && echo written");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "[hidden read]\nuserns-refused\nwritten\n") << r.err;
  EXPECT_EQ(w.read("made.txt"), "hi\n");
  // The real bwrap ran behind the stand-in (the probe, then the command).
  EXPECT_GE(w.read(w.root() + "/bwrap-0.6.1.log").size(), std::string("ran\nran\n").size());
  // `--version` reports what was found.
  r = w.cordon({"--version"});
  EXPECT_NE(r.out.find("(bubblewrap 0.6.1)"), std::string::npos) << r.out;
}

TEST(OlderBwrap, AnOldBwrapThatHidItsVersionIsDiagnosed) {  // PROBE-4
  World w(false);
  // Says 0.8.0 but refuses --disable-userns: cordon passes it, bwrap's refusal is explained.
  w.env["CORDON_BWRAP"] = old_bwrap(w, "bubblewrap 0.8.0");
  Proc r = w.cordon({"probe", "--json"});
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("\"diagnosis\": \"unknown_option\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("does not know --disable-userns"), std::string::npos) << r.out;
}

TEST(OlderBwrap, BelowTheOldestSupportedIsRefusedNamingBothVersions) {  // PROBE-4, MODE-4
  World w(false);
  w.env["CORDON_BWRAP"] = failing_bwrap(w, "bubblewrap 0.5.0", "bwrap: should not run");
  Proc r = w.cordon({"probe", "--json"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("\"failed_check\": \"bwrap_version\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bwrap 0.5.0 at " + w.root() +
                       "/bwrap-failing is older than cordon needs "
                       "(0.6.0 or newer)"),
            std::string::npos)
      << r.out;
  r = w.sh("echo ran");
  EXPECT_EQ(r.status, 125);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("0.5.0"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("0.6.0 or newer"), std::string::npos) << r.err;
}

TEST(SetupAppArmor, PrintsTheProfileAndTheTwoCommands) {  // PROBE-4
  World w(false);
  for (bool print_flag : {true, false}) {
    if (!print_flag && geteuid() == 0) continue;  // as root, without --print, it would install
    std::vector<std::string> args = {"setup", "apparmor"};
    if (print_flag) args.push_back("--print");
    Proc r = w.cordon(args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("profile bwrap /usr/bin/bwrap flags=(unconfined) {\n  userns,\n"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("sudo"), std::string::npos) << "stdout is the profile alone: " << r.out;
    EXPECT_NE(r.err.find("cordon setup apparmor | sudo tee /etc/apparmor.d/bwrap"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("sudo apparmor_parser -r /etc/apparmor.d/bwrap"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"),
              std::string::npos)
        << r.err;
  }
}

TEST(SetupAppArmor, WritesTheProfileUnderARootAndNeverOverwritesAForeignOne) {  // PROBE-4
  World w(false);
  std::string root = w.root() + "/sysroot";
  w.env["CORDON_SETUP_ROOT"] = root;  // never the machine's /etc, never loaded
  const bool machine_had_one = access("/etc/apparmor.d/bwrap", F_OK) == 0;
  Proc r = w.cordon({"setup", "apparmor"});
  EXPECT_EQ(access("/etc/apparmor.d/bwrap", F_OK) == 0, machine_had_one)
      << "the machine's /etc/apparmor.d was touched";
  EXPECT_EQ(r.status, 0) << r.err;
  std::string profile = w.read(root + "/etc/apparmor.d/bwrap");
  EXPECT_NE(profile.find("profile bwrap /usr/bin/bwrap flags=(unconfined) {"), std::string::npos)
      << profile;
  EXPECT_NE(r.out.find("wrote " + root + "/etc/apparmor.d/bwrap"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not loaded"), std::string::npos) << r.out;
  r = w.cordon({"setup", "apparmor"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("already holds the profile"), std::string::npos) << r.out;
  w.write(root + "/etc/apparmor.d/bwrap", "# the admin's own\nprofile bwrap /usr/bin/bwrap {}\n");
  r = w.cordon({"setup", "apparmor"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("was not written by cordon"), std::string::npos) << r.err;
  EXPECT_EQ(w.read(root + "/etc/apparmor.d/bwrap"),
            "# the admin's own\nprofile bwrap /usr/bin/bwrap {}\n");
}

TEST(Version, NamesCordonItsCommitTheBwrapAndTheBackend) {  // DIST-3
  World w(false);
  w.env["CORDON_BWRAP"] = "/usr/bin/bwrap";
  for (auto args : {std::vector<std::string>{"--version"}, std::vector<std::string>{"version"}}) {
    Proc r = w.cordon(args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.rfind("cordon 0.1.0 (commit ", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("bwrap: /usr/bin/bwrap (" + real_bwrap_version() + ")"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("backend: linux"), std::string::npos) << r.out;
  }
  w.env["CORDON_BWRAP"] = "/nonexistent/bwrap";
  Proc r = w.cordon({"--version"});
  EXPECT_NE(r.out.find("bwrap: not found"), std::string::npos) << r.out;
}

TEST(Docs, ManPageSaysWhatHelpSays) {  // DIST-1
  World w(false);
  Proc man = w.cordon({"__man"});
  ASSERT_EQ(man.status, 0);
  EXPECT_EQ(man.out.rfind(".\\\"", 0), 0u);
  EXPECT_NE(man.out.find(".TH CORDON 1"), std::string::npos);
  Proc help = w.cordon({"--help"});
  for (const char* cmd : {"run", "probe", "policy", "review", "session", "serve", "mcp", "classify",
                          "setup", "version"}) {
    EXPECT_NE(help.out.find(cmd), std::string::npos) << cmd;
    EXPECT_NE(man.out.find(std::string(".SS \"cordon ") + cmd), std::string::npos) << cmd;
  }
  // Every option of `run` in its --help is in the man page, with its description.
  Proc run_help = w.cordon({"run", "--help"});
  for (const char* opt : {"--project", "--session", "--network", "--outside-sandbox", "--away",
                          "--allow-command", "--timeout"})
    EXPECT_NE(run_help.out.find(opt), std::string::npos) << opt;
  for (const char* opt :
       {"\\-\\-project", "\\-\\-session", "\\-\\-network", "\\-\\-outside\\-sandbox", "\\-\\-away",
        "\\-\\-allow\\-command", "\\-\\-timeout"})
    EXPECT_NE(man.out.find(opt), std::string::npos) << opt;
  EXPECT_NE(man.out.find("approve the machine's network for this command"), std::string::npos);
  EXPECT_NE(man.out.find(".SS \"cordon setup apparmor\""), std::string::npos);
  // Internal commands are not documented.
  EXPECT_EQ(man.out.find("__probe"), std::string::npos);
}

std::string completion(const World& w, const std::string& shell) {
  Proc r = w.cordon({"__completion", shell});
  EXPECT_EQ(r.status, 0) << shell << r.err;
  std::string path = w.root() + "/completion." + shell;
  w.write(path, r.out);
  return path;
}

// Completes `words` (the last one being typed) with the generated bash function.
std::string bash_complete(const World& w, const std::string& script,
                          const std::vector<std::string>& words) {
  std::string arr;
  for (const auto& x : words) arr += " '" + x + "'";
  Proc r = run_program({"/bin/bash", "-c",
                        "source '" + script + "'; COMP_WORDS=(" + arr +
                            "); COMP_CWORD=" + std::to_string(words.size() - 1) +
                            "; _cordon; printf '%s\\n' \"${COMPREPLY[@]}\""},
                       w.env, "/");
  return r.out;
}

TEST(Docs, BashCompletionFollowsTheCommandLineDefinition) {  // DIST-1
  World w(false);
  std::string s = completion(w, "bash");
  EXPECT_EQ(bash_complete(w, s, {"cordon", "se"}), "session\nserve\nsetup\n");
  EXPECT_EQ(bash_complete(w, s, {"cordon", "session", ""}),
            "start\nlist\nend\nresume\n-h\n--help\n");
  EXPECT_EQ(bash_complete(w, s, {"cordon", "setup", "a"}), "apparmor\n");
  EXPECT_EQ(bash_complete(w, s, {"cordon", "run", "--proj"}), "--project\n");
  // An option's value is not a command: `--project session` stays in `run`.
  EXPECT_EQ(bash_complete(w, s, {"cordon", "run", "--project", "session", "--net"}), "--network\n");
  // After `--` comes the command itself: bash's own completion.
  EXPECT_EQ(bash_complete(w, s, {"cordon", "run", "--", "se"}), "\n");
}

TEST(Docs, ZshAndFishCompletionsParse) {  // DIST-1
  World w(false);
  for (const char* shell : {"zsh", "fish"}) {
    std::string path = completion(w, shell);
    std::string bin = std::string("/usr/bin/") + shell;
    if (access(bin.c_str(), X_OK) != 0) continue;  // scripts/deps.sh installs both
    Proc r = run_program({bin, "-n", path}, w.env, "/");
    EXPECT_EQ(r.status, 0) << shell << ": " << r.err;
  }
  // fish: the subcommands of `session` are offered after `cordon session`.
  if (access("/usr/bin/fish", X_OK) == 0) {
    std::string path = w.root() + "/completion.fish";
    Proc r = run_program(
        {"/usr/bin/fish", "-c", "source " + path + "; complete -C 'cordon session '"}, w.env, "/");
    EXPECT_NE(r.out.find("resume"), std::string::npos) << r.out << r.err;
    r = run_program({"/usr/bin/fish", "-c", "source " + path + "; complete -C 'cordon run --net'"},
                    w.env, "/");
    EXPECT_NE(r.out.find("--network"), std::string::npos) << r.out << r.err;
  }
  Proc bad = w.cordon({"__completion", "tcsh"});
  EXPECT_EQ(bad.status, 2);
}

}  // namespace
}  // namespace cordon::it
