// PKG-5: `cordon cache` lists the projects' sandbox package caches; `cordon cache clean`
// removes one project's (default: the current one) or, with --all, every project's.
#include <fmt/format.h>

#include <cstdio>
#include <ctime>

#include "cli/commands.h"
#include "core/paths.h"
#include "core/strings.h"
#include "host/facts_reader.h"
#include "host/package_caches.h"
#include "host/path_info.h"

namespace cordon {

namespace {

std::string human_size(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(units)) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, units[u]);
}

std::string when(int64_t t) {
  if (t <= 0) return "unknown";
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

int list(const CliContext& ctx) {
  auto caches = list_project_caches(ctx.folders);
  if (caches.empty()) {
    std::printf("no sandbox package caches yet (they are made under %s/packages)\n",
                printable(tilde_path(ctx.folders.cache, ctx.home)).c_str());
    return 0;
  }
  uint64_t total = 0;
  std::printf("%-10s  %-16s  %s\n", "size", "last used", "project (cache folder)");
  for (const auto& c : caches) {
    total += c.bytes;
    std::printf("%-10s  %-16s  %s\n    %s\n", human_size(c.bytes).c_str(),
                when(c.last_used).c_str(),
                printable(c.project.empty() ? "(unknown project)" : c.project).c_str(),
                printable(tilde_path(c.root, ctx.home)).c_str());
  }
  std::printf("%s in %s\n", human_size(total).c_str(),
              plural(caches.size(), "project", "projects").c_str());
  return 0;
}

}  // namespace

int cmd_cache(const CliContext& ctx, const CacheArgs& args) {
  if (!args.clean) return list(ctx);
  if (args.all && !args.project.empty()) {
    print_error("cache clean takes --project DIR or --all, not both.");
    return 2;
  }
  std::string project;
  if (!args.all)
    project = real_or_lexical(args.project.empty() ? find_project_root(ctx.cwd) : args.project);
  auto removed = remove_project_caches(ctx.folders, project);
  if (!removed.ok()) {
    print_error(removed.error().message);
    return 1;
  }
  if (args.all)
    std::printf("removed the sandbox package caches of %s\n",
                plural(*removed, "project", "projects").c_str());
  else if (*removed == 0)
    std::printf("no sandbox package caches for %s\n", printable(project).c_str());
  else
    std::printf("removed the sandbox package caches of %s\n", printable(project).c_str());
  return 0;
}

}  // namespace cordon
