// Issue 29 item 8: what the built binary shows people names no requirement ids: the --help of
// every command, the man page and the completions generated from them, the policy report (text,
// JSON and the Seatbelt profile), the MCP server's tool list, and the notes of a command that
// plants a file. The unit test MessageIds.* scans the sources; this one reads the real output,
// which also catches an id put together at run time.
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "harness.h"
#include "rpc_client.h"
#include "test_paths.h"

namespace cordon::it {
namespace {

// "PROT-7", "CFG-6", ... by the prefixes of docs/requirements.ids; not "TEST-NET-1", "UTF-8".
const std::regex& id_pattern() {
  static const std::regex re = [] {
    std::set<std::string> prefixes;
    std::ifstream in(test_source_dir() + "/docs/requirements.ids");
    std::string line;
    const std::regex id_line("^([A-Z]{2,6})-[0-9]{1,2} ");
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, id_line)) prefixes.insert(m[1]);
    if (prefixes.empty())  // the source tree unreadable: the prefixes as of issue 29
      prefixes = {"APR",  "BUD", "CFG",  "CMD", "DIST", "ENV", "FILE",  "FS",
                  "GIT",  "MAC", "MODE", "NET", "PERF", "PKG", "PROBE", "PROC",
                  "PROT", "RES", "REV",  "SES", "SRV",  "WSL"};
    std::string alt;
    for (const auto& p : prefixes) alt += (alt.empty() ? "" : "|") + p;
    return std::regex("(^|[^-A-Za-z0-9_])(" + alt + ")-[0-9]{1,2}([^0-9]|$)");
  }();
  return re;
}

// The lines of `text` that name an id, each with `what` in front; empty when none does.
std::string lines_with_ids(const std::string& what, const std::string& text) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (std::regex_search(line, id_pattern())) out += what + ": " + line + "\n";
  return out;
}

// The subcommands a CLI11 help page lists under "SUBCOMMANDS:".
std::vector<std::string> subcommands_of(const std::string& help) {
  std::vector<std::string> out;
  std::istringstream in(help);
  std::string line;
  bool in_list = false;
  const std::regex entry("^  ([a-z][a-z0-9-]*)( |$)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (line.rfind("SUBCOMMANDS:", 0) == 0 || line.rfind("Subcommands:", 0) == 0) {
      in_list = true;
      continue;
    }
    if (in_list && !line.empty() && line[0] != ' ') in_list = false;
    if (in_list && std::regex_search(line, m, entry)) out.push_back(m[1]);
  }
  return out;
}

TEST(HelpText, TheScanSeesAnId) {
  EXPECT_NE(lines_with_ids("x", "ok\nthe policy (CFG-6).\n"), "");
  EXPECT_EQ(lines_with_ids("x", "Documentation (TEST-NET-1), UTF-8\n"), "");
  EXPECT_EQ(subcommands_of("SUBCOMMANDS:\n  run   Run one.\n  session\n\nOPTIONS:\n  -h\n"),
            (std::vector<std::string>{"run", "session"}));
}

TEST(HelpText, EveryHelpPageManPageAndCompletionNamesNoId) {
  World w(false);
  std::vector<std::vector<std::string>> todo = {{}};
  std::string found;
  size_t pages = 0;
  while (!todo.empty()) {
    std::vector<std::string> path = todo.back();
    todo.pop_back();
    std::vector<std::string> args = path;
    args.push_back("--help");
    Proc r = w.cordon(args);
    EXPECT_EQ(r.status, 0) << r.err;
    std::string name = "cordon";
    for (const auto& p : path) name += " " + p;
    found += lines_with_ids(name + " --help", r.out + r.err);
    ++pages;
    for (const auto& sub : subcommands_of(r.out)) {
      auto p = path;
      p.push_back(sub);
      todo.push_back(p);
    }
  }
  // run, probe, policy, review (+start), cache (+clean), session (+4), serve, mcp, classify,
  // setup (+apparmor and six agents), hook, version: the walk must not stop at the top.
  EXPECT_GE(pages, 25u) << "the help walk found too few commands: check subcommands_of()";
  Proc man = w.cordon({"__man"});
  EXPECT_EQ(man.status, 0) << man.err;
  EXPECT_NE(man.out.find(".TH"), std::string::npos);
  found += lines_with_ids("man page", man.out);
  for (const char* shell : {"bash", "zsh", "fish"}) {
    Proc c = w.cordon({"__completion", shell});
    EXPECT_EQ(c.status, 0) << c.err;
    found += lines_with_ids(std::string(shell) + " completion", c.out);
  }
  EXPECT_EQ(found, "");
}

TEST(HelpText, PolicyReportsNameNoId) {
  World w;
  w.write(".envrc", "export X=1\n");
  w.write(".vscode/settings.json", "{}\n");
  w.write(".env", "TOKEN=x\n");
  w.write(w.home() + "/.ssh/id_ed25519", "secret\n");
  w.config(
      "[sandbox]\nhide = [\"~/private-notes\"]\nwritable = [\"~/.cache/pip\"]\n"
      "[network]\nallow = [\"registry.npmjs.org\"]\n");
  std::string found;
  for (const std::vector<std::string>& args : {std::vector<std::string>{"policy"},
                                               {"policy", "--json"},
                                               {"policy", "--seatbelt"},
                                               {"probe"},
                                               {"version"},
                                               {"cache"},
                                               {"session", "list"}}) {
    Proc r = w.cordon(args);
    std::string name = "cordon";
    for (const auto& a : args) name += " " + a;
    found += lines_with_ids(name, r.out + r.err);
  }
  EXPECT_EQ(found, "");
}

TEST(HelpText, McpToolListNamesNoId) {
  World w;
  RpcClient mcp({"mcp", "--project", w.project()}, w.env, w.project());
  json init = mcp.mcp_initialize();
  ASSERT_TRUE(init.contains("result")) << init.dump() << mcp.stderr_text();
  json tools = mcp.call("tools/list");
  ASSERT_TRUE(tools.contains("result")) << tools.dump();
  EXPECT_GE(tools["result"]["tools"].size(), 5u);
  EXPECT_EQ(lines_with_ids("initialize", init.dump(2)), "");
  EXPECT_EQ(lines_with_ids("tools/list", tools.dump(2)), "");
}

TEST(HelpText, NotesOfARunNameNoId) {
  REQUIRE_SANDBOX();
  World w;
  w.env["GITHUB_TOKEN"] = "ghp_0123456789abcdef0123456789abcdef0123";
  // A planted .envrc is moved aside with a note; the stripped token gets its notice.
  Proc r = w.sh("echo 'export X=1' > .envrc");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("note:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("GITHUB_TOKEN"), std::string::npos) << r.err;
  EXPECT_EQ(lines_with_ids("cordon run", r.err), "");
  // The command policy's reasons.
  Proc d = w.cordon({"classify", "-c", "sudo reboot; sort -o x y; cat ~/.ssh/id_rsa"});
  EXPECT_EQ(lines_with_ids("cordon classify", d.out + d.err), "");
  // A refusal: a config that cannot be read.
  w.config("[sandbox]\nmode = 3\n");
  Proc bad = w.sh("true");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err, "");
  EXPECT_EQ(lines_with_ids("cordon run (bad config)", bad.err), "");
}

}  // namespace
}  // namespace cordon::it
