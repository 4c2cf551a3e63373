// `cordon setup apparmor` (PROBE-4) and `cordon --version` (DIST-3).
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "cli/commands.h"
#include "core/paths.h"
#include "core/strings.h"
#include "core/version.h"
#include "host/facts_reader.h"
#include "launch/linux/bwrap_info.h"
#include "process/process.h"
#include "render/bwrap_diagnosis.h"
#include "sys/fs_util.h"

#ifndef CORDON_COMMIT
#define CORDON_COMMIT "unknown"
#endif

namespace cordon {

namespace {

// The profile names the file bwrap is (AppArmor attaches by path), not a symlink to it.
std::string bwrap_for_profile(const CliContext& ctx) {
  std::string b = find_bwrap(ctx.env);
  if (b.empty()) return "/usr/bin/bwrap";
  char real[PATH_MAX];
  if (realpath(b.c_str(), real)) return real;
  return b;
}

std::string find_apparmor_parser(const EnvMap& env) {
  for (const char* p : {"/usr/sbin/apparmor_parser", "/sbin/apparmor_parser"})
    if (access(p, X_OK) == 0) return p;
  return resolve_command("apparmor_parser", env, "/");
}

const char* kProfileHeader = "# Written by `cordon setup apparmor`";

}  // namespace

int cmd_setup_apparmor(const CliContext& ctx, bool print_only) {
  const std::string bwrap = bwrap_for_profile(ctx);
  const std::string profile = apparmor_profile(bwrap);
  // A test root stands in for "/": the profile is written under it and never loaded.
  const std::string test_root = ctx.env.value("CORDON_SETUP_ROOT");
  if (print_only || (geteuid() != 0 && test_root.empty())) {
    // The profile alone on stdout, so that the first command below works as printed.
    std::fputs(profile.c_str(), stdout);
    std::fflush(stdout);
    std::fprintf(stderr,
                 "cordon: the AppArmor profile above lets %s create user namespaces where "
                 "AppArmor restricts them (Ubuntu 23.10 and later). Install and load it as "
                 "root:\n"
                 "  cordon setup apparmor | sudo tee %s >/dev/null\n"
                 "  sudo apparmor_parser -r %s\n"
                 "cordon: or run `sudo cordon setup apparmor`, which does both. For every "
                 "program on this machine instead: %s\n",
                 bwrap.c_str(), kAppArmorProfileFile, kAppArmorProfileFile, kAppArmorSysctlCommand);
    return 0;
  }
  // Concatenated, not path_join: the profile's path is absolute and must stay under the root.
  const std::string file = test_root.empty()
                               ? std::string(kAppArmorProfileFile)
                               : normalize_path(test_root + "/" + kAppArmorProfileFile);
  if (!test_root.empty() && !path_within(file, normalize_path(test_root))) {
    print_error("CORDON_SETUP_ROOT must be an absolute folder: " + test_root);
    return 1;
  }
  auto existing = read_file(file, 1 << 20);
  if (existing.ok() && *existing != profile && !starts_with(*existing, kProfileHeader)) {
    print_error(
        fmt::format("{} exists and was not written by cordon; it is left as it is. "
                    "Compare it with `cordon setup apparmor` run as a normal user.",
                    file));
    return 1;
  }
  if (existing.ok() && *existing == profile) {
    std::printf("%s already holds the profile for %s\n", file.c_str(), bwrap.c_str());
  } else {
    if (auto s = make_dirs(path_parent(file), 0755); !s.ok()) {
      print_error(s.error().message);
      return 1;
    }
    if (auto s = write_file_atomic(file, profile, /*sync=*/true, 0644); !s.ok()) {
      print_error(fmt::format("could not write {}: {}", file, s.error().message));
      return 1;
    }
    std::printf("wrote %s (lets %s create user namespaces)\n", file.c_str(), bwrap.c_str());
  }
  if (!test_root.empty()) {
    std::printf("not loaded: CORDON_SETUP_ROOT is set (%s stands in for /)\n", test_root.c_str());
    return 0;
  }
  std::string parser = find_apparmor_parser(ctx.env);
  if (parser.empty()) {
    std::printf(
        "not loaded: apparmor_parser was not found (this machine may not use AppArmor; "
        "the profile loads when AppArmor starts)\n");
    return 0;
  }
  ProcessSpec spec;
  spec.path = parser;
  spec.argv = {"apparmor_parser", "-r", file};
  spec.env.set("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
  spec.in = InputMode::kNull;
  spec.out = OutputMode::kInherit;
  spec.err = OutputMode::kInherit;
  spec.timeout = std::chrono::seconds(60);
  auto o = run_process(spec);
  if (!o.ok() || o->exit_code != 0) {
    print_error(fmt::format(
        "`{} -r {}` failed{}", parser, file,
        o.ok() ? fmt::format(" (exit status {})", o->exit_code) : ": " + o.error().message));
    return 1;
  }
  std::printf("loaded it with `%s -r %s`; `cordon probe` checks the sandbox now\n", parser.c_str(),
              file.c_str());
  return 0;
}

std::string version_text(const CliContext& ctx) {
  std::string out = fmt::format("cordon {} (commit {})\n", kCordonVersion, CORDON_COMMIT);
  std::string bwrap = find_bwrap(ctx.env);
  if (bwrap.empty()) {
    out += "bwrap: not found (install the bubblewrap package)\n";
  } else {
    BwrapInfo info = read_bwrap_info(bwrap, ctx.folders.cache);
    out += fmt::format("bwrap: {} ({})\n", bwrap,
                       info.version ? "bubblewrap " + info.version->str() : info.version_text);
  }
  out += "backend: linux (bubblewrap namespaces, seccomp)";
  return out;
}

}  // namespace cordon
