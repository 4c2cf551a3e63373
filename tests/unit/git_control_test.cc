// FILE-6, GIT-1, GIT-2, GIT-3: the file tools ask (protected_write) before writing any file git
// reads to decide what to run, where its objects and config are, or which folder is the
// repository, whether it exists yet or not.
#include <gtest/gtest.h>

#include "file_rules/file_rules.h"

namespace cordon {
namespace {

FileContext ctx() {
  FileContext c;
  c.project = "/p";
  c.cwd = "/p";
  c.home = "/h";
  c.protected_entries = protected_entries(Policy{});
  c.git_dirs = {"/p/.git", "/repo/.git/worktrees/w", "/repo/.git"};
  return c;
}

FileDecision write(const FileContext& c, const std::string& path) {
  FileFacts f;  // a new file: the real path is the path
  f.real = resolve_file_path(c, path);
  return decide_file_access(c, FileRequest{FileTool::kWrite, path, std::nullopt}, f.real, f);
}

// FILE-6: each path asks as protected_write, new or not.
TEST(GitControlFiles, WritesAskAsProtectedWrite) {
  FileContext c = ctx();
  for (const char* path : {".git/commondir",
                           ".git/gitdir",
                           ".git/config",
                           ".git/config.worktree",
                           ".git/info/attributes",
                           ".git/objects/info/alternates",
                           ".git/hooks/pre-commit",
                           ".git/worktrees/w2/config",
                           ".git/worktrees/w2/gitdir",
                           ".git/worktrees/w2/commondir",
                           ".git/worktrees/w2/config.worktree",
                           ".git/modules/lib/config",
                           ".git/modules/lib/hooks/post-checkout",
                           ".git/modules/a/b/config.worktree",
                           ".git/modules/a/modules/b/info/attributes",
                           "/repo/.git/worktrees/w/config.worktree",
                           "/repo/.git/objects/info/alternates",
                           "sub/.git/config",
                           "sub/.git",
                           ".git",
                           "vendor/x/.git/hooks/pre-push"}) {
    FileDecision d = write(c, path);
    EXPECT_EQ(d.verdict, Verdict::kAsk) << path;
    EXPECT_EQ(d.ask.kind, AskKind::kProtectedWrite) << path;
  }
}

// FILE-6: the rest of .git (objects, refs, the index) and ordinary files do not ask.
TEST(GitControlFiles, OtherGitFilesAndProjectFilesDoNotAsk) {
  FileContext c = ctx();
  for (const char* path : {".git/HEAD", ".git/refs/heads/main", ".git/objects/ab/cdef",
                           ".git/info/exclude", ".git/worktrees", "src/config", "hooks/x",
                           "modules/a/config", ".gitignore", "docs/.git-notes"}) {
    FileDecision d = write(c, path);
    EXPECT_EQ(d.verdict, Verdict::kAllow) << path << ": " << d.ask.reason;
  }
}

TEST(GitControlFiles, RelativeNamesWithinAGitFolder) {
  EXPECT_TRUE(git_control_rel("commondir"));
  EXPECT_TRUE(git_control_rel("hooks"));
  EXPECT_TRUE(git_control_rel("modules/x/y/z/hooks/pre-commit"));
  EXPECT_FALSE(git_control_rel("modules/x"));
  EXPECT_FALSE(git_control_rel("worktrees/x"));
  EXPECT_FALSE(git_control_rel("packed-refs"));
}

// FILE-6: make_file_context takes the git folders from the facts.
TEST(GitControlFiles, ContextHasTheGitFolders) {
  Facts f;
  f.project = "/p";
  f.cwd = "/p";
  f.home = "/h";
  f.git.dot_git = "/p/.git";
  f.git.git_dir = "/repo/.git/worktrees/w";
  f.git.common_dir = "/repo/.git";
  FileContext c = make_file_context(Policy{}, f);
  EXPECT_EQ(c.git_dirs,
            (std::vector<std::string>{"/p/.git", "/repo/.git/worktrees/w", "/repo/.git"}));
}

}  // namespace
}  // namespace cordon
