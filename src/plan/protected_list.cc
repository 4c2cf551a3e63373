#include "plan/protected_list.h"

#include "core/paths.h"
#include "core/strings.h"

namespace cordon {

const std::vector<ProtectedRow>& protected_rows() {
  // PROT-1, PROT-6. `below_root`: the tool reads the entry in the folder it is opened or
  // started in, or in every folder it works in, so a copy in a subfolder (a monorepo package,
  // a git worktree under .claude/worktrees/, a nested clone) steers it as the root's does.
  static const std::vector<ProtectedRow> rows = {
      // Shells and editors.
      {".envrc", true, "direnv runs it when a shell enters that folder (direnv.net)"},
      {".vscode/", true,
       "VS Code: tasks.json (a task may run when the folder opens), launch.json, settings.json, "
       "mcp.json (servers it starts) of each folder it opens (code.visualstudio.com/docs)"},
      {".idea/", true,
       "JetBrains IDEs: run configurations and startup tasks of each folder opened as a project "
       "(jetbrains.com/help/idea)"},
      {".zed/", true,
       "Zed: settings.json and tasks.json of each worktree, settings in any subfolder "
       "(zed.dev/docs/configuring-zed)"},
      {".devcontainer/", true,
       "Dev Containers: devcontainer.json commands (postCreateCommand) of the folder opened "
       "(containers.dev/implementors/json_reference)"},
      {".devcontainer.json", true, "Dev Containers: the same, as one file at a folder's top"},
      // Agents: settings that run commands (hooks, MCP servers), and instructions they obey.
      {".claude/", true,
       "Claude Code: settings*.json (hooks run commands), commands, agents, skills of the "
       "folder it starts in (code.claude.com/docs/en/settings)"},
      {".agents/", true,
       "Codex: skills in .agents/skills of each folder from where it works up to the "
       "repository's top (developers.openai.com/codex/skills)"},
      {".codex/", true,
       "Codex: project config.toml (MCP servers, profiles) of the folders it works in "
       "(developers.openai.com/codex/config-advanced)"},
      {".gemini/", true,
       "Gemini CLI: settings.json (MCP servers, hooks), commands of the folder it starts in "
       "(geminicli.com/docs/get-started/configuration)"},
      {".cursor/", true, "Cursor: rules (nested in subfolders too), mcp.json (docs.cursor.com)"},
      {".cursorrules", true, "Cursor: the old single rules file of the folder opened"},
      {".windsurfrules", true, "Windsurf: workspace rules (docs.windsurf.com)"},
      {".windsurf/", true, "Windsurf: rules and workflows in .windsurf/, in subfolders too"},
      {".clinerules", true, "Cline: rules, a file or a folder, of the workspace (docs.cline.bot)"},
      {"CLAUDE.md", true, "Claude Code reads it in every folder it works in"},
      {"CLAUDE.local.md", true, "Claude Code reads it in every folder it works in"},
      {"AGENTS.md", true, "Codex and other agents read it in every folder they work in"},
      {"AGENTS.override.md", true, "Codex reads it in place of AGENTS.md"},
      {"GEMINI.md", true, "Gemini CLI reads it from every folder of the project"},
      {".mcp.json", true,
       "Claude Code: project MCP servers (commands it starts) of the folder it starts in "
       "(code.claude.com/docs/en/mcp)"},
      {".github/copilot-instructions.md", true,
       "GitHub Copilot: instructions of each workspace folder (docs.github.com/copilot)"},
      {".github/instructions/", true,
       "GitHub Copilot: *.instructions.md of each workspace folder (docs.github.com/copilot)"},
      // CI: read on the server at the root of the repository that is pushed; a copy in a
      // subfolder runs nowhere.
      {".github/workflows/", false, "GitHub Actions, at the repository's root"},
      {".gitlab-ci.yml", false, "GitLab CI, at the repository's root"},
      {".circleci/", false, "CircleCI, at the repository's root"},
      // Git hooks managers: read at the top of the work tree a commit is made in (a linked
      // worktree or a nested clone is one).
      {".pre-commit-config.yaml", true,
       "pre-commit: the commands run on `git commit` in that work tree (pre-commit.com)"},
      {".husky/", true,
       "husky: hooks folder (core.hooksPath=.husky, relative to the work tree) run on commit "
       "(typicode.github.io/husky)"},
      {"lefthook.yml", true, "lefthook: the commands run on `git commit` (lefthook.dev)"},
      {".lefthook.yml", true, "lefthook: the same, as a dotfile"},
      {"lefthook-local.yml", true, "lefthook: local overrides of the same"},
      {".lefthook/", true, "lefthook: scripts run by its hooks"},
      // Git: how git treats files in the root's work tree.
      {".gitmodules", false,
       "git submodule: URLs and paths at a work tree's top; git refuses `update = !command` "
       "from it, so it runs nothing (a nested one is judged with its git folder)"},  // GIT-8
      {".gitattributes", false,
       "git: picks filter, diff and merge drivers for files; only drivers the user's own "
       "config defines run (git-lfs). Below the root it is not watched: tracked copies are "
       "common there (vendored code, worktrees), and it names drivers, never programs"},
      {".lfsconfig", true,
       "git-lfs: lfs.url at a work tree's top sends pushed large files elsewhere "
       "(git-lfs-config(5))"},
      // Package managers and toolchains: settings that name a program they run.
      {".npmrc", true,
       "npm: script-shell runs every `npm run`/`npm test` script, node-options loads code; "
       "read in the nearest folder with a package.json (docs.npmjs.com/cli/using-npm/config)"},
      {".yarnrc.yml", true,
       "Yarn 2 and on: yarnPath runs a JS file as yarn itself, plugins load code; read in the "
       "project folder and the ones above (yarnpkg.com/configuration/yarnrc)"},
      {".yarnrc", true,
       "Yarn 1: yarn-path runs a JS file as yarn itself (classic.yarnpkg.com/en/docs/yarnrc)"},
      {".pnpmfile.cjs", true,
       "pnpm: hooks (readPackage, afterAllResolved) run at every install (pnpm.io/pnpmfile)"},
      {"bunfig.toml", true,
       "Bun: preload scripts run before `bun run` and `bun test` (bun.sh/docs/runtime/bunfig)"},
      {"rust-toolchain.toml", true,
       "rustup: a `path` toolchain runs a planted rustc or cargo; read in the working folder "
       "and the ones above (rust-lang.github.io/rustup/overrides.html)"},
      {"rust-toolchain", true, "rustup: the same, without the extension"},
      {".python-version", true,
       "uv: a request may be an interpreter's path or folder, which `uv run` then runs; read "
       "in the working folder and the ones above (docs.astral.sh/uv/concepts/python-versions)"},
      {".tool-versions", true,
       "asdf and mise: a `path:` version runs planted binaries "
       "(asdf-vm.com/manage/configuration.html, mise.jdx.dev)"},
      {".mise.toml", true,
       "mise: tasks, hooks, [env] _.source run code; read in the working folder and the ones "
       "above (mise.jdx.dev/configuration.html)"},
      {"mise.toml", true, "mise: the same"},
      {".mise.local.toml", true, "mise: the same, local overrides"},
      {"mise.local.toml", true, "mise: the same, local overrides"},
      {".mise/", true, "mise: .mise/config.toml, the same"},
      {".config/mise.toml", true, "mise: the same, under .config"},
      {".config/mise/", true, "mise: .config/mise/config.toml and conf.d, the same"},
      {".cargo/config.toml", true,
       "Cargo: build.rustc-wrapper, target runners, aliases run programs; read in the working "
       "folder and every folder above (doc.rust-lang.org/cargo/reference/config.html)"},
      {".cargo/config", true, "Cargo: the same, the old name"},
      {".cordon/", false, "reserved for cordon's own project settings, at the project root"},
      // The file tools ask before writing these anywhere (FILE-6); the sandbox leaves them
      // writable, since builds write them (PROT-1).
      {"**/build.rs", false, "Cargo runs it on every build"},
      {"**/conftest.py", false, "pytest imports it"},
      {"**/Makefile", false, "make runs its recipes"},
      {"**/package.json", false, "npm, yarn, pnpm and bun run its scripts"},
  };
  return rows;
}

const std::vector<std::string>& default_protected_entries() {
  static const std::vector<std::string> list = [] {
    std::vector<std::string> out;
    for (const auto& r : protected_rows()) out.push_back(r.entry);
    return out;
  }();
  return list;
}

namespace {
ProtectEntry parse_entry(const std::string& e, const char* why) {
  ProtectEntry p;
  p.why = why;
  std::string s = e;
  if (starts_with(s, "**/")) {
    p.anywhere = true;
    s = s.substr(3);
  }
  if (ends_with(s, "/")) {
    p.folder = true;
    while (ends_with(s, "/")) s.pop_back();
  }
  p.rel = normalize_path(s);
  return p;
}
}  // namespace

std::vector<ProtectEntry> protected_entries(const Policy& policy) {
  std::vector<ProtectEntry> out;
  for (const auto& e : default_protected_entries()) out.push_back(parse_entry(e, "default list"));
  for (const auto& e : policy.protect) {
    ProtectEntry p = parse_entry(e, "[sandbox] protect");
    bool dup = false;
    for (const auto& o : out)
      if (o.rel == p.rel && o.anywhere == p.anywhere) dup = true;
    if (!dup) out.push_back(std::move(p));
  }
  return out;
}

bool is_protected_path(const std::vector<ProtectEntry>& entries, const std::string& rel_in) {
  std::string rel = normalize_path(rel_in);
  if (rel == ".claude/worktrees" || starts_with(rel, ".claude/worktrees/")) return false;
  for (const auto& e : entries) {
    if (e.anywhere) {
      if (path_base(rel) == e.rel) return true;
      continue;
    }
    if (rel == e.rel) return true;
    if (e.folder && starts_with(rel, e.rel + "/")) return true;
  }
  return false;
}

}  // namespace cordon
