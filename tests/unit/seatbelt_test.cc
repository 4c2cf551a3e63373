// The Seatbelt renderer and the macOS plan (MAC-1..4, BUD-1 on macOS), without a Mac (MAC-3).
//
// Golden profiles (tests/golden/seatbelt_*.sb; regenerate with CORDON_UPDATE_GOLDEN=1) were
// read by hand against Apple's SBPL as used by profiles that run on Macs (Chromium's and
// Firefox's .sb files, openai/codex's seatbelt_base_policy.sbpl, anthropic's sandbox-runtime):
// - `(version 1)` first, then `(deny default)`;
// - each rule is `(allow|deny OPERATION... FILTER...)`, several filters meaning any of them;
// - path filters are (literal "P"), (subpath "P") and (regex "RE") over real paths
//   (/private/tmp, not /tmp, on a Mac), regexes as ordinary strings with `\\.` for a dot;
// - strings escape only `"` and `\` (and \n \t \r), other bytes (UTF-8) as they are;
// - the unfiltered `(allow file-read*)` comes before every filtered file rule, and each
//   filtered deny comes after the allow it narrows (the last matching filtered rule decides);
// - comments start with `;` and never hold a control character.
// Beyond reading, every profile here is parsed by a TinyScheme-like reader (sbpl_reader.h) and
// its decisions evaluated on paths, so a test fails when a rule stops meaning what it should.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "fake_facts.h"
#include "plan/cache_tools.h"
#include "plan/planner.h"
#include "render/seatbelt_plan.h"
#include "render/seatbelt_profile.h"
#include "sbpl_reader.h"
#include "test_paths.h"

namespace cordon {
namespace {

using testing::evaluate;
using testing::FakeWorld;
using testing::file_info;
using testing::link_info;
using testing::read_sbpl;
using testing::Sexp;
using testing::Verdict;

constexpr Verdict kAllow = Verdict::kAllow;
constexpr Verdict kDeny = Verdict::kDeny;

void expect_golden(const std::string& name, const std::string& text) {
  std::string path = test_golden_dir() + "/" + name;
  if (std::getenv("CORDON_UPDATE_GOLDEN")) {
    std::ofstream(path, std::ios::binary) << text;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << "missing golden file " << path
                         << " (run with CORDON_UPDATE_GOLDEN=1 to create it)";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), text) << "golden file " << path << " differs";
}

Request cmd(std::vector<std::string> argv = {"make", "test"}) {
  Request r;
  r.argv = std::move(argv);
  return r;
}

SeatbeltPlan seatbelt(FakeWorld& w, const Request& r = cmd(), const SeatbeltOptions& o = {}) {
  w.facts.machine.sandbox_exec = "/usr/bin/sandbox-exec";
  return make_seatbelt_plan(w.policy, w.facts, r, o);
}

// The profile read back as forms; fails the test when it does not read.
std::vector<Sexp> forms_of(const SeatbeltPlan& sp) {
  auto read = read_sbpl(sp.profile);
  EXPECT_EQ(read.error, "") << sp.profile;
  return read.forms;
}

// Every string argument of every path filter in the profile.
void collect_paths(const Sexp& s, std::vector<std::string>& out) {
  std::string h = s.head();
  if ((h == "literal" || h == "subpath") && s.items.size() == 2) out.push_back(s.items[1].text);
  for (const auto& i : s.items) collect_paths(i, out);
}

ProtectedFact prot(const FakeWorld& w, const std::string& rel, Kind kind, bool folder = false) {
  ProtectedFact f;
  f.rel = rel;
  f.folder = folder;
  f.why = "default list";
  f.info = file_info(w.project + "/" + rel, kind);
  return f;
}

// A representative world: hidden folder, hidden symlink, hidden file.
void add_common_hidden(FakeWorld& w) {
  w.exists_hidden("~/.ssh", file_info("/home/u/.ssh", Kind::kDir));
  w.exists_hidden("~/.aws", link_info("/home/u/.aws", "/home/u/dotfiles/aws", Kind::kDir));
  w.exists_hidden("~/.netrc", file_info("/home/u/.netrc"));
}

TEST(SbplString, EscapesQuoteAndBackslashOnly) {  // MAC-1
  EXPECT_EQ(sbpl_string("/a b"), "\"/a b\"");
  EXPECT_EQ(sbpl_string("a\"b"), "\"a\\\"b\"");
  EXPECT_EQ(sbpl_string("a\\b"), "\"a\\\\b\"");
  EXPECT_EQ(sbpl_string("a\nb\tc\rd"), "\"a\\nb\\tc\\rd\"");
  EXPECT_EQ(sbpl_string("caf\xc3\xa9"), "\"caf\xc3\xa9\"");  // UTF-8 bytes as they are
  EXPECT_EQ(sbpl_string("(x) ; y"), "\"(x) ; y\"");
}

TEST(SbplString, EveryByteReadsBackThroughTinySchemeRules) {  // MAC-1
  std::string all;
  for (int c = 1; c < 256; ++c) all += static_cast<char>(c);
  // Escapes that a careless writer would leave for the reader to misread: \x41, \101, \".
  for (std::string s : {all, std::string("\\x41\\101\\\"\\"), std::string("\\"), std::string("")}) {
    auto read = read_sbpl("(literal " + sbpl_string(s) + ")");
    ASSERT_EQ(read.error, "");
    ASSERT_EQ(read.forms.size(), 1u);
    ASSERT_EQ(read.forms[0].items.size(), 2u);
    EXPECT_EQ(read.forms[0].items[1].text, s);
  }
}

TEST(SbplRegex, LiteralMatchesItselfOnlyInEitherCase) {  // MAC-1
  const std::string p = "/Users/u/a.b+c(d)[e]{f}|g^h$i*j?k\\l";
  std::regex re("^" + regex_literal(p) + "$", std::regex::extended);
  EXPECT_TRUE(std::regex_search(p, re));
  EXPECT_TRUE(std::regex_search(std::string("/USERS/U/A.B+C(D)[E]{F}|G^H$I*J?K\\L"), re));
  EXPECT_FALSE(std::regex_search(std::string("/Users/u/aXb+c(d)[e]{f}|g^h$i*j?k\\l"), re));
}

TEST(SbplRegex, GlobCoversMatchesAndWhatIsBelowThem) {  // FS-4 .cargo/credentials*, MAC-1
  std::regex re(glob_path_regex("/home/u/.cargo/credentials*"), std::regex::extended);
  for (const char* yes : {"/home/u/.cargo/credentials", "/home/u/.cargo/credentials.toml",
                          "/home/u/.cargo/CREDENTIALS", "/home/u/.cargo/credentials.d/x"})
    EXPECT_TRUE(std::regex_search(std::string(yes), re)) << yes;
  for (const char* no : {"/home/u/.cargo/config.toml", "/home/u/xcargo/credentials",
                         "/home/u/.cargo/cred", "/srv/home/u/.cargo/credentials"})
    EXPECT_FALSE(std::regex_search(std::string(no), re)) << no;
  std::regex q(glob_path_regex("/h/key?"), std::regex::extended);
  EXPECT_TRUE(std::regex_search(std::string("/h/key1"), q));
  EXPECT_FALSE(std::regex_search(std::string("/h/key12"), q));
  EXPECT_FALSE(std::regex_search(std::string("/h/key/"), q));
}

TEST(Seatbelt, GoldenDefault) {  // MAC-1, MAC-3, FS-4, FS-5
  FakeWorld w;
  add_common_hidden(w);
  SeatbeltPlan sp = seatbelt(w);
  ASSERT_FALSE(sp.plan.refused()) << sp.plan.refusal->message;
  forms_of(sp);
  expect_golden("seatbelt_default.sb", sp.profile);
}

TEST(Seatbelt, GoldenNetwork) {  // MAC-1, NET-3, MAC-3
  FakeWorld w;
  w.policy.writable = {"~/.cache/pip"};
  w.facts.writable = {file_info("/home/u/.cache/pip", Kind::kDir)};
  w.facts.credential_files = {file_info(w.project + "/.env"),
                              file_info(w.project + "/config/secrets.pem")};
  Request r = cmd({"pip", "install", "-r", "requirements.txt"});
  r.network = true;
  SeatbeltPlan sp = seatbelt(w, r);
  ASSERT_FALSE(sp.plan.refused()) << sp.plan.refusal->message;
  forms_of(sp);
  expect_golden("seatbelt_network.sb", sp.profile);
}

// Writable paths, protected paths judged three ways, git locks, a hidden symlink, and cordon's
// cache (which holds the private temp folder) inside a writable path.
FakeWorld protected_world() {
  FakeWorld w;
  add_common_hidden(w);
  w.policy.writable = {"~/.cache", "~/.npm"};
  w.facts.writable = {file_info("/home/u/.cache", Kind::kDir),
                      file_info("/home/u/.npm", Kind::kDir)};
  w.facts.cordon_dirs = {file_info("/home/u/.cache/cordon", Kind::kDir)};
  w.facts.protected_paths.push_back(prot(w, ".envrc", Kind::kFile));
  ProtectedFact vs = prot(w, ".vscode", Kind::kDir, true);
  vs.children = {{".vscode/settings.json", Kind::kFile, ""},
                 {".vscode/extra.json", Kind::kFile, ""}};
  vs.entry_count = 2;
  vs.tracked = {".vscode/settings.json"};
  w.facts.protected_paths.push_back(vs);
  ProtectedFact cl = prot(w, ".claude", Kind::kDir, true);
  cl.children = {{".claude/settings.json", Kind::kFile, ""}, {".claude/worktrees", Kind::kDir, ""}};
  cl.entry_count = 2;
  w.facts.protected_paths.push_back(cl);
  ProtectedFact md = prot(w, "CLAUDE.md", Kind::kFile);
  md.tracked = {"CLAUDE.md"};
  w.facts.protected_paths.push_back(md);
  const std::string g = w.project + "/.git";
  w.facts.git.locks = {GitLockFact{file_info(g + "/hooks", Kind::kDir), "hooks folder", true},
                       GitLockFact{file_info(g + "/config"), "repository config", false},
                       GitLockFact{file_info("/home/u/.gitconfig"), "global git config", false}};
  return w;
}

TEST(Seatbelt, GoldenProtectedWritableAndGit) {  // MAC-1, PROT-2, PROT-5, GIT-1, FS-2, FS-8
  FakeWorld w = protected_world();
  SeatbeltPlan sp = seatbelt(w);
  ASSERT_FALSE(sp.plan.refused()) << sp.plan.refusal->message;
  forms_of(sp);
  expect_golden("seatbelt_protected.sb", sp.profile);
}

// A project path and hidden entries that need escaping: quotes, a backslash, a newline,
// non-ASCII, and a project file name that tries to end a comment and add a rule.
FakeWorld escaping_world() {
  FakeWorld w;
  w.project = "/home/u/we\"ird\\dir/caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac/new\nline";
  w.facts.project = w.project;
  w.facts.cwd = w.project;
  w.facts.project_info = file_info(w.project, Kind::kDir);
  w.facts.git.dot_git = w.facts.git.git_dir = w.facts.git.common_dir = w.project + "/.git";
  w.policy.hide = {"~/secret \"quoted\"", "~/back\\slash*"};
  w.refresh_hidden();
  w.exists_hidden("~/secret \"quoted\"", file_info("/home/u/secret \"quoted\"", Kind::kDir));
  ProtectedFact vs = prot(w, ".vscode", Kind::kDir, true);
  vs.children = {{".vscode/a\n(allow file-write* (subpath \"/\"))", Kind::kFile, ""},
                 {".vscode/ok.json", Kind::kFile, ""}};
  vs.entry_count = 2;
  vs.tracked = {".vscode/ok.json"};
  w.facts.protected_paths.push_back(vs);
  return w;
}

TEST(Seatbelt, GoldenEscaping) {  // MAC-1
  FakeWorld w = escaping_world();
  SeatbeltPlan sp = seatbelt(w);
  ASSERT_FALSE(sp.plan.refused()) << sp.plan.refusal->message;
  forms_of(sp);
  expect_golden("seatbelt_escaping.sb", sp.profile);
}

TEST(Seatbelt, PathsNeedingEscapesReadBackExactly) {  // MAC-1
  FakeWorld w = escaping_world();
  SeatbeltPlan sp = seatbelt(w);
  auto forms = forms_of(sp);
  std::vector<std::string> paths;
  for (const auto& f : forms) collect_paths(f, paths);
  auto has = [&](const std::string& p) {
    return std::find(paths.begin(), paths.end(), p) != paths.end();
  };
  EXPECT_TRUE(has(w.project));
  EXPECT_TRUE(has("/home/u/secret \"quoted\""));
  EXPECT_TRUE(has(w.project + "/.vscode/a\n(allow file-write* (subpath \"/\"))"));
  EXPECT_EQ(evaluate(forms, "file-write-data", w.project + "/src/main.c"), kAllow);
  EXPECT_EQ(evaluate(forms, "file-read-data", "/home/u/secret \"quoted\"/key"), kDeny);
  // The glob with a backslash: its regex names the backslash literally.
  EXPECT_EQ(evaluate(forms, "file-read-data", "/home/u/back\\slash-2"), kDeny);
  EXPECT_EQ(evaluate(forms, "file-read-data", "/home/u/backslash-2"), kAllow);
}

TEST(Seatbelt, AFileNameCannotAddARule) {  // MAC-1: comments hold no control character
  FakeWorld w = escaping_world();
  SeatbeltPlan sp = seatbelt(w);
  auto forms = forms_of(sp);
  for (const auto& f : forms) {
    if (f.head() != "allow") continue;
    for (const auto& i : f.items) {
      if (i.head() == "subpath") {
        EXPECT_NE(i.items[1].text, "/") << "a rule came from a name";
      }
    }
  }
  EXPECT_EQ(evaluate(forms, "file-write-data", "/etc/passwd"), kDeny);
  for (size_t i = 0; i < sp.profile.size(); ++i) {
    if (sp.profile[i] != ';') continue;
    // A comment runs to the end of its line and holds no other control character.
    size_t end = sp.profile.find('\n', i);
    for (size_t k = i; k < end; ++k)
      EXPECT_GE(static_cast<unsigned char>(sp.profile[k]), 0x20) << sp.profile.substr(i, end - i);
    i = end;
  }
}

TEST(Seatbelt, DefaultProfileMeansWhatMac1Says) {  // MAC-1, FS-1..4, NET-1, PROC-2
  FakeWorld w;
  add_common_hidden(w);
  SeatbeltPlan sp = seatbelt(w);
  auto f = forms_of(sp);
  const std::string tmp = w.facts.session_tmp;
  // Reads everywhere, writes in the project and the private temp folder only.
  EXPECT_EQ(evaluate(f, "file-read-data", "/etc/hosts"), kAllow);
  EXPECT_EQ(evaluate(f, "file-read-data", w.project + "/README"), kAllow);
  EXPECT_EQ(evaluate(f, "file-write-data", w.project + "/README"), kAllow);
  EXPECT_EQ(evaluate(f, "file-write-create", tmp + "/x"), kAllow);
  EXPECT_EQ(evaluate(f, "file-write-create", "/tmp/x"), kDeny);
  EXPECT_EQ(evaluate(f, "file-write-create", "/private/tmp/x"), kDeny);
  EXPECT_EQ(evaluate(f, "file-write-data", "/home/u/.bashrc"), kDeny);
  EXPECT_EQ(evaluate(f, "file-write-data", "/home/u/.cache/cordon/other"), kDeny);
  // Hidden: not read, written or run; the target of a hidden link too (FS-5); a hidden path
  // that does not exist yet is hidden where it would be made.
  for (const char* p : {"/home/u/.ssh/id_ed25519", "/home/u/.ssh", "/home/u/.netrc",
                        "/home/u/dotfiles/aws/credentials", "/home/u/.aws",
                        "/home/u/.docker/config.json", "/home/u/.cargo/credentials.toml",
                        "/home/u/.config/cordon/config.toml", "/home/u/Library/Keychains/x"}) {
    EXPECT_EQ(evaluate(f, "file-read-data", p), kDeny) << p;
    EXPECT_EQ(evaluate(f, "file-read-metadata", p), kDeny) << p;
    EXPECT_EQ(evaluate(f, "file-write-data", p), kDeny) << p;
    EXPECT_EQ(evaluate(f, "process-exec", p), kDeny) << p;
    EXPECT_EQ(evaluate(f, "file-link", p), kDeny) << p;
    EXPECT_EQ(evaluate(f, "file-clone", p), kDeny) << p;
  }
  EXPECT_EQ(evaluate(f, "file-read-data", "/home/u/dotfiles/vimrc"), kAllow);
  // No network, not even loopback; no Unix sockets.
  EXPECT_EQ(evaluate(f, "network-outbound", "93.184.216.34:443"), kDeny);
  EXPECT_EQ(evaluate(f, "network-outbound", "127.0.0.1:8080"), kDeny);
  EXPECT_EQ(evaluate(f, "network-bind", "127.0.0.1:8080"), kDeny);
  EXPECT_EQ(evaluate(f, "network-outbound", "/private/var/run/mDNSResponder"), kDeny);
  EXPECT_EQ(evaluate(f, "system-socket", ""), kDeny);
  // Devices and terminals.
  EXPECT_EQ(evaluate(f, "file-write-data", "/dev/null"), kAllow);
  EXPECT_EQ(evaluate(f, "file-read-data", "/dev/ttys003"), kDeny);
  EXPECT_EQ(evaluate(f, "file-write-data", "/dev/tty"), kDeny);
  EXPECT_EQ(evaluate(f, "file-read-data", "/dev/ptmx"), kAllow);
  // Renames: not the project, not the private temp folder.
  EXPECT_EQ(evaluate(f, "file-write-unlink", w.project), kDeny);
  EXPECT_EQ(evaluate(f, "file-write-unlink", tmp), kDeny);
  EXPECT_EQ(evaluate(f, "file-write-unlink", w.project + "/build"), kAllow);
  // The environment names the private temp folder (MAC-1, ENV-5).
  EXPECT_EQ(sp.plan.env.value("TMPDIR"), tmp);
  EXPECT_EQ(sp.plan.env.value("CORDON_SANDBOX"), "1");
  EXPECT_TRUE(sp.plan.seccomp.empty());
  EXPECT_EQ(
      seatbelt_command_line(sp),
      (std::vector<std::string>{"/usr/bin/sandbox-exec", "-p", sp.profile, "--", "make", "test"}));
}

TEST(Seatbelt, OnlyCordonsOwnTerminalIsWrittenAndNoTerminalRead) {  // PROC-2, MAC-1
  FakeWorld w;
  SeatbeltOptions o;
  o.terminals = {"/dev/ttys003"};
  SeatbeltPlan sp = seatbelt(w, cmd(), o);
  auto f = forms_of(sp);
  EXPECT_EQ(evaluate(f, "file-write-data", "/dev/ttys003"), kAllow);
  EXPECT_EQ(evaluate(f, "file-ioctl", "/dev/ttys003"), kAllow);
  EXPECT_EQ(evaluate(f, "file-read-data", "/dev/ttys003"), kDeny);
  EXPECT_EQ(evaluate(f, "file-write-data", "/dev/ttys004"), kDeny);  // another window's
  EXPECT_EQ(evaluate(f, "file-write-data", "/dev/tty"), kDeny);
  // Without a terminal (output captured), none is written.
  auto g = forms_of(seatbelt(w));
  EXPECT_EQ(evaluate(g, "file-write-data", "/dev/ttys003"), kDeny);
}

TEST(Seatbelt, NetworkTrueOpensTheNetworkButNotUnixSockets) {  // MAC-1, NET-2, NET-3
  FakeWorld w;
  w.facts.credential_files = {file_info(w.project + "/.env"),
                              file_info(w.project + "/config/secrets.pem")};
  Request r = cmd({"curl", "https://example.com"});
  r.network = true;
  SeatbeltPlan sp = seatbelt(w, r);
  ASSERT_FALSE(sp.plan.refused());
  auto f = forms_of(sp);
  EXPECT_EQ(evaluate(f, "network-outbound", "93.184.216.34:443"), kAllow);
  EXPECT_EQ(evaluate(f, "network-outbound", "127.0.0.1:8080"), kAllow);
  EXPECT_EQ(evaluate(f, "network-bind", "127.0.0.1:8080"), kAllow);
  EXPECT_EQ(evaluate(f, "network-outbound", "/private/var/run/mDNSResponder"), kAllow);
  EXPECT_EQ(evaluate(f, "network-outbound", "/private/tmp/com.apple.launchd.x/Listeners"), kDeny);
  // NET-3: the project's credential files are hidden from it; macOS refuses writes there too.
  for (const char* rel : {"/.env", "/config/secrets.pem"}) {
    EXPECT_EQ(evaluate(f, "file-read-data", w.project + rel), kDeny) << rel;
    EXPECT_EQ(evaluate(f, "file-write-data", w.project + rel), kDeny) << rel;
  }
  EXPECT_EQ(evaluate(f, "file-write-unlink", w.project + "/config"), kDeny);
  EXPECT_EQ(evaluate(f, "file-read-data", w.project + "/config/app.toml"), kAllow);
}

TEST(Seatbelt, ProtectedPathsAndGitFilesAreReadOnlyInsideWritableRoots) {  // PROT, GIT-1, FS-8
  FakeWorld w = protected_world();
  SeatbeltPlan sp = seatbelt(w);
  ASSERT_FALSE(sp.plan.refused());
  auto f = forms_of(sp);
  const std::string p = w.project;
  EXPECT_EQ(evaluate(f, "file-write-data", p + "/.envrc"), kDeny);    // PROT-2
  EXPECT_EQ(evaluate(f, "file-write-unlink", p + "/.envrc"), kDeny);  // rename over, rm
  EXPECT_EQ(evaluate(f, "file-write-mode", p + "/.envrc"), kDeny);    // chmod
  EXPECT_EQ(evaluate(f, "file-link", p + "/.envrc"), kDeny);  // no second name to write through
  EXPECT_EQ(evaluate(f, "file-link", p + "/src/main.c"), kAllow);
  EXPECT_EQ(evaluate(f, "file-write-data", p + "/CLAUDE.md"), kAllow);              // PROT-4
  EXPECT_EQ(evaluate(f, "file-write-data", p + "/.vscode/settings.json"), kAllow);  // PROT-5
  EXPECT_EQ(evaluate(f, "file-write-data", p + "/.vscode/extra.json"), kDeny);
  EXPECT_EQ(evaluate(f, "file-write-unlink", p + "/.vscode"), kDeny);  // a folder on the way
  EXPECT_EQ(evaluate(f, "file-write-create", p + "/.claude/agents/x.md"), kDeny);       // whole
  EXPECT_EQ(evaluate(f, "file-write-create", p + "/.claude/worktrees/wt1/f"), kAllow);  // PROT-1
  EXPECT_EQ(evaluate(f, "file-write-data", p + "/.git/config"), kDeny);                 // GIT-1
  EXPECT_EQ(evaluate(f, "file-write-create", p + "/.git/hooks/pre-commit"), kDeny);
  EXPECT_EQ(evaluate(f, "file-write-create", p + "/.git/objects/ab/cdef"), kAllow);
  EXPECT_EQ(evaluate(f, "file-write-unlink", p + "/.git"), kDeny);
  // The global git config is outside the writable roots: read-only without a rule of its own.
  EXPECT_EQ(evaluate(f, "file-write-data", "/home/u/.gitconfig"), kDeny);
  // A writable path holding cordon's cache: the cache is read-only (FS-8), the private temp
  // folder inside it stays writable, and the rest of the writable path too.
  EXPECT_EQ(evaluate(f, "file-write-data", "/home/u/.cache/cordon/probe"), kDeny);
  EXPECT_EQ(evaluate(f, "file-write-create", w.facts.session_tmp + "/x"), kAllow);
  EXPECT_EQ(evaluate(f, "file-write-create", "/home/u/.cache/pip/wheel"), kAllow);
  EXPECT_EQ(evaluate(f, "file-write-create", "/home/u/.npm/_cacache/x"), kAllow);
  EXPECT_EQ(evaluate(f, "file-write-unlink", "/home/u/.cache"), kDeny);
  EXPECT_EQ(evaluate(f, "file-write-unlink", "/home/u/.cache/cordon"), kDeny);
}

TEST(Seatbelt, AnUntrackedProtectedFileWithASecondNameRefuses) {  // MAC-1, PROT-2
  FakeWorld w;
  ProtectedFact envrc = prot(w, ".envrc", Kind::kFile);
  envrc.info.nlink = 2;
  w.facts.protected_paths.push_back(envrc);
  SeatbeltPlan sp = seatbelt(w);
  ASSERT_TRUE(sp.plan.refused());
  EXPECT_NE(sp.plan.refusal->message.find(".envrc has another hard link"), std::string::npos);
  EXPECT_NE(sp.plan.refusal->message.find("cp -p .envrc .envrc.copy && mv .envrc.copy .envrc"),
            std::string::npos)
      << sp.plan.refusal->message;
  // Tracked, it is writable anyway (PROT-4): nothing to get around.
  w.facts.protected_paths.back().tracked = {".envrc"};
  EXPECT_FALSE(seatbelt(w).plan.refused());
}

TEST(Seatbelt, HiddenPathInsideTheProjectCannotBeMovedOutOfItsRule) {  // FS-7, MAC-1
  FakeWorld w;
  w.policy.hide = {"/home/u/proj/deploy/keys"};
  w.refresh_hidden();
  w.exists_hidden("/home/u/proj/deploy/keys", file_info("/home/u/proj/deploy/keys", Kind::kDir));
  SeatbeltPlan sp = seatbelt(w);
  auto f = forms_of(sp);
  EXPECT_EQ(evaluate(f, "file-read-data", "/home/u/proj/deploy/keys/prod.pem"), kDeny);
  EXPECT_EQ(evaluate(f, "file-write-unlink", "/home/u/proj/deploy"), kDeny);
  EXPECT_EQ(evaluate(f, "file-write-data", "/home/u/proj/deploy/run.sh"), kAllow);
}

TEST(Seatbelt, EntriesHoldingTheProjectStayVisible) {  // FS-7
  FakeWorld w;
  w.policy.hide = {"~", "~/pr*"};
  w.refresh_hidden();
  w.exists_hidden("~", file_info("/home/u", Kind::kDir));
  w.exists_hidden("~/pr*", file_info("/home/u/proj", Kind::kDir));
  w.exists_hidden("~/pr*", file_info("/home/u/private", Kind::kDir));
  SeatbeltPlan sp = seatbelt(w);
  ASSERT_FALSE(sp.plan.refused());
  auto f = forms_of(sp);
  EXPECT_EQ(evaluate(f, "file-read-data", "/home/u/proj/main.c"), kAllow);
  EXPECT_EQ(evaluate(f, "file-write-data", "/home/u/proj/main.c"), kAllow);
  EXPECT_EQ(evaluate(f, "file-read-data", "/home/u/notes.txt"), kAllow);
  // The glob's other match is still hidden, by its own path (its regex would hide the project).
  EXPECT_EQ(evaluate(f, "file-read-data", "/home/u/private/diary"), kDeny);
  EXPECT_EQ(sp.profile.find("[pP][rR][^/]*"), std::string::npos);
  bool noticed = false;
  for (const auto& n : sp.plan.notices) noticed |= n.find("stays visible") != std::string::npos;
  EXPECT_TRUE(noticed);
}

// FS-12 on macOS: no copy can take a file's place. A global config holding a credential is not
// read at all; one whose removed keys are merely not on the allowlist stays readable, and so
// does the project's own config (git cannot run without it).
TEST(Seatbelt, GitConfigsWithCredentialsAndWithoutThem) {  // FS-12, NET-3, FS-4, MAC-1
  FakeWorld w;
  w.facts.git.common_dir = "/home/u/proj/.git";
  w.facts.git_config_copies = {
      {"/home/u/.gitconfig", "~/.gitconfig", "/c/a", {"sendemail.smtppass (...)"}, false},
      {"/home/u/.gitconfig.work", "~/.gitconfig.work", "/c/b", {"http.extraheader (...)"}, true},
      {"/home/u/proj/.git/config", ".git/config", "/c/d", {"remote.origin.url (...)"}, true}};
  w.facts.home_config_copies = {{"/home/u/.bashrc", "~/.bashrc", "/c/e", {"line 2 (...)"}}};
  auto f = forms_of(seatbelt(w));
  EXPECT_EQ(evaluate(f, "file-read-data", "/home/u/.gitconfig"), kAllow);
  EXPECT_EQ(evaluate(f, "file-read-data", "/home/u/.gitconfig.work"), kDeny);
  EXPECT_EQ(evaluate(f, "file-read-data", "/home/u/proj/.git/config"), kAllow);
  EXPECT_EQ(evaluate(f, "file-read-data", "/home/u/.bashrc"), kDeny);
}

TEST(Seatbelt, NotSandboxedMeansNoProfile) {  // MODE-2, MODE-3, NET-4
  FakeWorld w;
  w.policy.mode = SandboxMode::kOff;
  SeatbeltPlan off = seatbelt(w);
  EXPECT_EQ(off.plan.runner, Runner::kUnconfined);
  EXPECT_TRUE(off.profile.empty());
  w.policy.mode = SandboxMode::kOn;
  Request r = cmd();
  r.outside_sandbox = true;
  SeatbeltPlan out = seatbelt(w, r);
  EXPECT_EQ(out.plan.runner, Runner::kUnconfined);
  EXPECT_TRUE(out.profile.empty());
}

TEST(Seatbelt, MissingSandboxExecMakesTheSandboxUnavailable) {  // MODE-4
  FakeWorld w;
  SeatbeltPlan sp = make_seatbelt_plan(w.policy, w.facts, cmd());
  ASSERT_TRUE(sp.plan.refused());
  EXPECT_EQ(sp.plan.refusal->reason, ErrorKind::kUnavailable);
  EXPECT_NE(sp.plan.refusal->message.find("/usr/bin/sandbox-exec"), std::string::npos);
  // bwrap is Linux's: a Mac without it is fine.
  w.facts.machine.bwrap.clear();
  EXPECT_FALSE(seatbelt(w).plan.refused());
}

TEST(Seatbelt, PathFilterCapExactlyAThousandPasses) {  // MAC-2
  FakeWorld w0;
  const size_t base = seatbelt(w0).filters.total();
  ASSERT_LT(base, 200u);
  FakeWorld w;
  w.add_hidden_files(1000 - base);
  SeatbeltPlan sp = seatbelt(w);
  EXPECT_EQ(sp.filters.total(), 1000u);
  EXPECT_FALSE(sp.plan.refused()) << sp.plan.refusal->message;
  EXPECT_FALSE(sp.profile.empty());
}

TEST(Seatbelt, PathFilterCapRefusesTheThousandAndFirstNamingHiddenPaths) {  // MAC-2
  FakeWorld w0;
  const size_t base = seatbelt(w0).filters.total();
  FakeWorld w;
  w.add_hidden_files(1001 - base);
  SeatbeltPlan sp = seatbelt(w);
  EXPECT_EQ(sp.filters.total(), 1001u);
  ASSERT_TRUE(sp.plan.refused());
  const std::string& m = sp.plan.refusal->message;
  EXPECT_NE(m.find("1001 path filters"), std::string::npos) << m;
  EXPECT_NE(m.find("(1000)"), std::string::npos) << m;
  EXPECT_NE(m.find("most are hidden paths"), std::string::npos) << m;
  EXPECT_NE(m.find("shorten the [sandbox] hide list in ~/.config/cordon/config.toml"),
            std::string::npos)
      << m;
  // Linux's mount budget does not apply on macOS: 300 hidden paths are fine there.
  FakeWorld w3;
  w3.add_hidden_files(300);
  EXPECT_FALSE(seatbelt(w3).plan.refused());
  EXPECT_TRUE(make_plan(w3.policy, w3.facts, cmd()).refused());
}

TEST(Seatbelt, PastTheCapFileByFileFoldersBecomeWholeFirst) {  // MAC-2, PROT-5
  FakeWorld w;
  ProtectedFact vs = prot(w, ".vscode", Kind::kDir, true);
  for (int i = 0; i < 990; ++i)
    vs.children.push_back({".vscode/f" + std::to_string(i), Kind::kFile, ""});
  vs.entry_count = 990;
  vs.tracked = {".vscode/f0"};
  w.facts.protected_paths.push_back(vs);
  SeatbeltPlan sp = seatbelt(w);
  ASSERT_FALSE(sp.plan.refused()) << sp.plan.refusal->message;
  EXPECT_TRUE(sp.plan.coarsened);
  EXPECT_LE(sp.filters.total(), 1000u);
  bool noticed = false;
  for (const auto& n : sp.plan.notices)
    noticed |= n.find("read-only whole for this command") != std::string::npos;
  EXPECT_TRUE(noticed);
  auto f = forms_of(sp);
  EXPECT_EQ(evaluate(f, "file-write-data", w.project + "/.vscode/f0"), kDeny);  // whole now
}

TEST(Seatbelt, PathFilterCapNamesProtectedPathsWhenTheyAreMost) {  // MAC-2, PROT-9
  FakeWorld w;
  for (int i = 0; i < 1000; ++i) {
    std::string rel = "gen/f" + std::to_string(i) + ".sh";
    w.policy.protect.push_back(rel);
    ProtectedFact pf = prot(w, rel, Kind::kFile);
    pf.why = "[sandbox] protect";
    w.facts.protected_paths.push_back(pf);
  }
  SeatbeltPlan sp = seatbelt(w);
  ASSERT_TRUE(sp.plan.refused());
  const std::string& m = sp.plan.refusal->message;
  EXPECT_NE(m.find("most are protected paths and git files"), std::string::npos) << m;
  EXPECT_NE(m.find("[sandbox] protect"), std::string::npos) << m;
}

TEST(Seatbelt, PathFilterCapNamesCredentialFilesWhenTheyAreMost) {  // MAC-2, NET-3
  FakeWorld w;
  for (int i = 0; i < 1000; ++i)
    w.facts.credential_files.push_back(file_info(w.project + "/k" + std::to_string(i) + ".key"));
  Request r = cmd();
  r.network = true;
  SeatbeltPlan sp = seatbelt(w, r);
  ASSERT_TRUE(sp.plan.refused());
  const std::string& m = sp.plan.refusal->message;
  EXPECT_NE(m.find("most are credential files"), std::string::npos) << m;
  EXPECT_NE(m.find("without network"), std::string::npos) << m;
}

TEST(Seatbelt, ArgumentLimitCountsTheProfile) {  // BUD-1 on macOS
  FakeWorld w;
  add_common_hidden(w);
  SeatbeltPlan sp = seatbelt(w);
  ASSERT_FALSE(sp.plan.refused());
  // Exactly at the limit (less the reserve for the kernel's own strings) passes.
  const uint64_t need = command_line_bytes(seatbelt_command_line(sp), sp.plan.env);
  SeatbeltOptions o;
  o.arg_max = need + ArgumentBudget{}.reserve;
  EXPECT_FALSE(seatbelt(w, cmd(), o).plan.refused());
  o.arg_max -= 1;
  SeatbeltPlan over = seatbelt(w, cmd(), o);
  ASSERT_TRUE(over.plan.refused());
  const std::string& m = over.plan.refusal->message;
  EXPECT_NE(m.find("the largest part is the sandbox profile"), std::string::npos) << m;
  EXPECT_NE(m.find("shorten the [sandbox] hide and protect lists"), std::string::npos) << m;
}

TEST(Seatbelt, ArgumentLimitNamesTheCommandsArgumentsAndTmpdir) {  // BUD-1 on macOS
  FakeWorld w;
  SeatbeltPlan sp = seatbelt(w, cmd({"printf", std::string(1100000, 'a')}));
  ASSERT_TRUE(sp.plan.refused());
  const std::string& m = sp.plan.refusal->message;
  EXPECT_NE(m.find("(1048576 bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("the largest part is the command's own arguments"), std::string::npos) << m;
  EXPECT_NE(m.find("$TMPDIR"), std::string::npos) << m;
  // macOS has no per-string limit: one 200 KB argument fits in 1 MiB (Linux refuses it).
  SeatbeltPlan big = seatbelt(w, cmd({"printf", std::string(200000, 'a')}));
  EXPECT_FALSE(big.plan.refused()) << big.plan.refusal->message;
  EXPECT_TRUE(make_plan(w.policy, w.facts, cmd({"printf", std::string(200000, 'a')})).refused());
}

TEST(Seatbelt, ArgumentLimitNamesTheEnvironment) {  // BUD-1 on macOS
  FakeWorld w;
  w.facts.env.set("BIG", std::string(1100000, 'b'));
  SeatbeltPlan sp = seatbelt(w);
  ASSERT_TRUE(sp.plan.refused());
  EXPECT_NE(sp.plan.refusal->message.find("the largest part is the environment"),
            std::string::npos);
}

TEST(Seatbelt, MacosAdditionsAreListedForPolicy) {  // MAC-1, CFG-6
  FakeWorld w;
  SeatbeltPlan sp = seatbelt(w);
  bool keychains = false;
  for (const auto& h : sp.plan.hidden) keychains |= h.path == "~/Library/Keychains" && h.hidden;
  EXPECT_TRUE(keychains);
}

TEST(SeatbeltProfile, CordonsCacheFolderShowsOnlyWhatTheCommandNeeds) {  // FS-13, PKG-2, MAC-1
  FakeWorld w;
  const std::string cache = w.facts.folders.cache;
  const std::string tools = project_cache_tools(cache, w.project);
  w.facts.caches.tools_dir = tools;
  SeatbeltPlan sp = seatbelt(w);
  ASSERT_FALSE(sp.plan.refused()) << sp.plan.refusal->message;
  auto forms = forms_of(sp);
  // Other sessions' private temp folders, other projects' caches, cordon's own files: hidden.
  for (const std::string& p :
       {cache + "/sandbox-tmp/fedcba9876543210/notes.txt",
        cache + "/packages/other-0000000000000000/tools/npm/x", cache + "/probe-0.json", cache}) {
    EXPECT_EQ(evaluate(forms, "file-read-data", p), kDeny) << p;
    EXPECT_EQ(evaluate(forms, "file-write-data", p), kDeny) << p;
  }
  // This command's own: its $TMPDIR and the project's package caches, read, written and run.
  for (const std::string& p : {w.facts.session_tmp + "/a.out", tools + "/npm/_cacache/x"}) {
    EXPECT_EQ(evaluate(forms, "file-read-data", p), kAllow) << p;
    EXPECT_EQ(evaluate(forms, "file-write-data", p), kAllow) << p;
    EXPECT_EQ(evaluate(forms, "process-exec", p), kAllow) << p;
  }
  // The folders on the way can be looked at (realpath, mkdir -p), not listed.
  EXPECT_EQ(evaluate(forms, "file-read-metadata", cache), kAllow);
  EXPECT_EQ(evaluate(forms, "file-read-metadata", cache + "/packages"), kAllow);
  EXPECT_EQ(evaluate(forms, "file-read-metadata", cache + "/packages/other-0000000000000000"),
            kDeny);
  // Neither may be renamed away (their paths would leave their rules).
  EXPECT_EQ(evaluate(forms, "file-write-unlink", tools), kDeny);
  EXPECT_EQ(evaluate(forms, "file-write-unlink", w.facts.session_tmp), kDeny);
}

}  // namespace
}  // namespace cordon
