// FS-5 (issue 13 item 2): the targets of links inside hidden folders are hidden too. The walk on
// real files (src/host/hidden_links), then what a command sees in a real sandbox.
#include "host/hidden_links.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "harness.h"

namespace cordon::it {
namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void link(const std::string& target, const std::string& path) {
  ASSERT_EQ(::symlink(target.c_str(), path.c_str()), 0) << path;
}

std::vector<std::string> targets(const HiddenLinkScan& s) {
  std::vector<std::string> out;
  for (const auto& l : s.links) out.push_back(l.info.real);
  std::sort(out.begin(), out.end());
  return out;
}

const auto kNothingKept = [](const std::string&) { return false; };

TEST(HiddenLinks, FindsTargetsOutsideFollowsTargetFoldersAndStopsAtCycles) {  // FS-5
  World w(false);
  std::string h = w.home();
  w.write(h + "/dotfiles/gh/hosts.yml", "oauth_token: x\n");
  w.write(h + "/vault/keys/id_rsa", "KEY\n");
  w.write(h + "/vault2/deploy", "KEY2\n");
  w.write(h + "/.config/gh/config.yml", "editor: vi\n");
  link(h + "/dotfiles/gh/hosts.yml", h + "/.config/gh/hosts.yml");
  link("../../vault", h + "/.config/gh/vault");   // relative, to a folder
  link(h + "/vault2", h + "/vault/keys/more");    // inside a target folder: walked in turn
  link(h + "/.config/gh", h + "/vault/back");     // back into the hidden folder: nothing new
  link(h + "/vault", h + "/vault2/cycle");        // a cycle ends
  link(h + "/gone", h + "/.config/gh/dangling");  // leads to nothing
  link("config.yml", h + "/.config/gh/inside");   // stays inside: already hidden
  HiddenLinkScan s = scan_hidden_links({h + "/.config/gh"}, {"~/.config/gh"}, kNothingKept);
  EXPECT_TRUE(s.refusal.empty()) << s.refusal;
  EXPECT_EQ(targets(s),
            (std::vector<std::string>{h + "/dotfiles/gh/hosts.yml", h + "/vault", h + "/vault2"}));
  for (const auto& l : s.links) EXPECT_EQ(l.root, 0u);
}

TEST(HiddenLinks, AFolderThatStaysVisibleIsNotWalked) {  // FS-5, FS-7
  World w(false);
  std::string h = w.home();
  w.write(h + "/.ssh/config", "Host x\n");
  w.write(h + "/big/secret", "s\n");
  link(h + "/big/secret", h + "/big/link");
  link(h + "/big", h + "/.ssh/home-ish");
  auto kept = [&](const std::string& t) { return t == h + "/big"; };
  HiddenLinkScan s = scan_hidden_links({h + "/.ssh"}, {"~/.ssh"}, kept);
  // The target itself is reported (the planner decides and says why it stays visible), but
  // what lies inside it is not looked at.
  EXPECT_EQ(targets(s), (std::vector<std::string>{h + "/big"}));
}

TEST(HiddenLinks, PastTheBoundTheWalkRefusesNamingTheFolder) {  // FS-5, NET-3's bounds
  World w(false);
  std::string h = w.home();
  for (int i = 0; i < 30; ++i) w.write(h + "/.aws/f" + std::to_string(i), "x\n");
  for (int i = 0; i < 5; ++i) {
    w.write(h + "/t/" + std::to_string(i), "x\n");
    link(h + "/t/" + std::to_string(i), h + "/.aws/l" + std::to_string(i));
  }
  HiddenLinkLimits few_entries{20, 1000};
  HiddenLinkScan s = scan_hidden_links({h + "/.aws"}, {"~/.aws"}, kNothingKept, few_entries);
  EXPECT_TRUE(has(s.refusal, "~/.aws holds more than 20 entries")) << s.refusal;
  EXPECT_TRUE(has(s.refusal, "--outside-sandbox")) << s.refusal;
  EXPECT_TRUE(s.links.empty());
  HiddenLinkLimits few_targets{100000, 3};
  s = scan_hidden_links({h + "/.aws"}, {"~/.aws"}, kNothingKept, few_targets);
  EXPECT_TRUE(has(s.refusal, "~/.aws holds links to more than 3 places")) << s.refusal;
}

// PERF-1: the walk's cache. An unchanged folder is not listed again, yet a new link anywhere
// below, a target reached through a folder replaced by a link, and a folder that became
// listable are all seen by the next walk.
TEST(HiddenLinks, TheCacheSeesEveryChangeByTheNextWalk) {  // FS-5, PERF-1
  World w(false);
  std::string h = w.home();
  w.write(h + "/.claude/projects/p/a.jsonl", "{}\n");
  w.write(h + "/.claude/todos/t.json", "[]\n");
  w.write(h + "/dotfiles/gh/hosts.yml", "t\n");
  w.write(h + "/other/hosts.yml", "t2\n");
  w.write(h + "/.claude/locked/inner/x", "x\n");
  link(h + "/dotfiles/gh/hosts.yml", h + "/.claude/hosts");
  w.write(h + "/keys2/k2", "k2\n");
  link(h + "/keys2/k2", h + "/.claude/locked/inner/k2");
  ASSERT_EQ(::chmod((h + "/.claude/locked").c_str(), 0), 0);
  const bool root = geteuid() == 0;  // root lists a mode-0 folder all the same
  const std::string file = h + "/hidden-links-cache";
  ::usleep(200 * 1000);  // past the racy window, so the listings are kept
  bool changed = false;
  auto walk = [&] {
    HiddenLinkCache c = load_hidden_link_cache(file);
    HiddenLinkScan s = scan_hidden_links({h + "/.claude"}, {"~/.claude"}, kNothingKept, {}, &c);
    changed = c.changed;
    EXPECT_TRUE(save_hidden_link_cache(file, c).ok());
    EXPECT_TRUE(s.refusal.empty()) << s.refusal;
    return targets(s);
  };
  const std::string hosts = h + "/dotfiles/gh/hosts.yml", k2 = h + "/keys2/k2";
  auto first = walk();
  EXPECT_TRUE(changed);
  EXPECT_EQ(first, root ? (std::vector<std::string>{hosts, k2}) : std::vector<std::string>{hosts});
  EXPECT_EQ(walk(), first);
  EXPECT_FALSE(changed);  // every listing from the cache
  // A new link deep inside.
  w.write(h + "/keys/token", "SECRET\n");
  link(h + "/keys/token", h + "/.claude/projects/p/token");
  auto after = walk();
  EXPECT_NE(std::find(after.begin(), after.end(), h + "/keys/token"), after.end());
  // A folder on the way to a target replaced by a link: the link now leads elsewhere.
  ASSERT_EQ(::rename((h + "/dotfiles/gh").c_str(), (h + "/dotfiles/gh-old").c_str()), 0);
  link(h + "/other", h + "/dotfiles/gh");
  after = walk();
  EXPECT_NE(std::find(after.begin(), after.end(), h + "/other/hosts.yml"), after.end());
  // A folder that could not be listed is tried again (its own ctime says nothing of ours).
  ASSERT_EQ(::chmod((h + "/.claude/locked").c_str(), 0755), 0);
  after = walk();
  EXPECT_NE(std::find(after.begin(), after.end(), k2), after.end());
}

// The next command sees a link added to ~/.claude since the last one (the cache is no excuse).
TEST(HiddenLinks, ALinkAddedBetweenCommandsIsHiddenFromTheNextOne) {  // FS-5, PERF-1
  REQUIRE_SANDBOX();
  World w;
  std::string h = w.home();
  w.write(h + "/.claude/projects/p/a.jsonl", "{}\n");
  w.write(h + "/keys/token", "SECRET-TOKEN\n");
  Proc r = w.sh("cat " + h + "/keys/token");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "SECRET-TOKEN")) << r.out;  // not linked yet: an ordinary file
  ::usleep(200 * 1000);
  ASSERT_EQ(w.sh("true").status, 0);  // the listings are cached now
  link(h + "/keys/token", h + "/.claude/projects/p/token");
  r = w.sh("cat " + h + "/keys/token");
  EXPECT_FALSE(has(r.out, "SECRET-TOKEN")) << r.out;
}

// What a command sees: stow-style dotfiles, a link to a file and one to a folder.
TEST(HiddenLinks, StowStyleDotfilesTargetsReadEmptyInTheSandbox) {  // FS-4, FS-5
  REQUIRE_SANDBOX();
  World w;
  std::string h = w.home();
  w.write(h + "/dotfiles/gh/hosts.yml", "oauth_token: gho_SECRET\n");
  w.write(h + "/dotfiles/ssh/id_ed25519", "PRIVATE KEY\n", 0600);
  w.write(h + "/dotfiles/README", "my dotfiles\n");
  w.write(h + "/.config/gh/config.yml", "editor: vi\n");
  link(h + "/dotfiles/gh/hosts.yml", h + "/.config/gh/hosts.yml");
  w.write(h + "/.ssh/known_hosts", "", 0600);
  link("../dotfiles/ssh", h + "/.ssh/keys");
  Proc r = w.sh("cat " + h + "/dotfiles/gh/hosts.yml; echo; ls " + h + "/dotfiles/ssh; cat " + h +
                "/dotfiles/README; echo x > " + h + "/dotfiles/gh/hosts.yml || echo write-refused");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(has(r.out, "gho_SECRET")) << r.out;
  EXPECT_FALSE(has(r.out, "id_ed25519")) << r.out;
  EXPECT_TRUE(has(r.out, "my dotfiles")) << r.out;  // the rest of the folder stays readable
  EXPECT_TRUE(has(r.out, "write-refused")) << r.out;
  EXPECT_EQ(w.read(h + "/dotfiles/gh/hosts.yml"), "oauth_token: gho_SECRET\n");
  // The file tools hide them too, and `cordon policy` names each target and its link.
  Proc p = w.cordon({"policy"});
  EXPECT_TRUE(has(p.out, "~/dotfiles/gh/hosts.yml")) << p.out;
  EXPECT_TRUE(has(p.out, "~/.config/gh/hosts.yml")) << p.out;
  EXPECT_TRUE(has(p.out, "~/dotfiles/ssh")) << p.out;
}

TEST(HiddenLinks, ALinkToTheHomeOrASystemFolderIsNotHiddenAndSaysWhy) {  // FS-5, FS-7
  REQUIRE_SANDBOX();
  World w;
  std::string h = w.home();
  w.write(h + "/.aws/config", "[default]\n", 0600);
  link(h, h + "/.aws/home");
  link("/usr", h + "/.aws/usr");
  Proc r = w.sh("ls /usr/bin/env && echo usr-visible");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "usr-visible"));
  Proc p = w.cordon({"policy"});
  EXPECT_TRUE(has(p.out, "system folder")) << p.out;
  EXPECT_TRUE(has(p.out, "holds the home folder")) << p.out;
}

}  // namespace
}  // namespace cordon::it
