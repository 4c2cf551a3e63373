#include "host/facts_reader.h"

#include <sys/stat.h>
#include <unistd.h>

#include "core/paths.h"
#include "core/strings.h"
#include "core/trace.h"
#include "host/config_copy.h"
#include "host/credential_scan.h"
#include "host/git_config_copy.h"
#include "host/dir_index.h"
#include "host/git_facts.h"
#include "host/gpu_facts.h"
#include "host/hidden_links.h"
#include "host/listing_scope.h"
#include "host/package_caches.h"
#include "host/path_info.h"
#include "host/protected_facts.h"
#include "host/ssh_folder.h"
#include "host/wsl_facts.h"
#include "plan/hidden_list.h"
#include "plan/project_rules.h"
#include "plan/protected_list.h"

namespace cordon {

std::string find_project_root(const std::string& cwd) {
  std::string dir = normalize_path(cwd);
  while (true) {
    struct stat st;
    std::string g = path_join(dir, ".git");
    if (lstat(g.c_str(), &st) == 0 &&
        (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
      return dir;
    if (dir == "/") return normalize_path(cwd);
    dir = path_parent(dir);
  }
}

std::string find_bwrap(const EnvMap& env) {
  if (auto b = env.get("CORDON_BWRAP")) return access(b->c_str(), X_OK) == 0 ? *b : "";
  if (access("/usr/bin/bwrap", X_OK) == 0) return "/usr/bin/bwrap";
  for (const auto& dir : split(env.value("PATH"), ':')) {
    if (dir.empty() || dir[0] != '/') continue;
    std::string p = path_join(dir, "bwrap");
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

namespace {

// FS-5: the targets of links inside the hidden folders. cordon's own folders are left out: they
// are hidden to keep sessions apart, and commands write links there (their /tmp).
void read_hidden_links(Facts& f, const std::string& cache_dir) {
  std::vector<std::string> roots, shown;
  std::vector<size_t> owner;
  for (size_t i = 0; i < f.hidden.size(); ++i) {
    if (starts_with(f.hidden[i].why, "cordon's")) continue;
    for (const auto& m : f.hidden[i].matches) {
      if (m.real.empty() || m.real_kind != Kind::kDir) continue;
      if (!link_target_kept_because(m.real, f.home, f.project).empty()) continue;
      roots.push_back(m.real);
      shown.push_back(tilde_path(m.path, f.home));
      owner.push_back(i);
    }
  }
  if (roots.empty()) return;
  trace("facts: hidden links walk");
  auto kept = [&](const std::string& t) {
    return !link_target_kept_because(t, f.home, f.project).empty();
  };
  // PERF-1: the listings of unchanged folders come from the cache; every link is resolved anew.
  const std::string file = cache_dir.empty() ? "" : path_join(cache_dir, "hidden-links");
  HiddenLinkCache cache;
  if (!file.empty()) cache = load_hidden_link_cache(file);
  HiddenLinkScan scan = scan_hidden_links(roots, shown, kept, {}, file.empty() ? nullptr : &cache);
  if (!file.empty()) (void)save_hidden_link_cache(file, cache);
  trace("facts: hidden links");
  f.hidden_links_refusal = std::move(scan.refusal);
  for (auto& l : scan.links) f.hidden[owner[l.root]].links.push_back(std::move(l.info));
}

// FS-1: what each hidden entry names now. Most do not exist: their folders' listings say so.
std::vector<HiddenFact> read_hidden_facts(const Policy& policy, const FactsInput& in) {
  ListingScope listings;  // PERF-1: reads only, so no listing goes stale within it
  std::vector<HiddenFact> out;
  for (const auto& e : hide_entries(policy, in.folders, in.home)) {
    HiddenFact h{e.entry, e.why, {}, {}};
    for (const auto& p : expand_last_glob(e.path)) {
      PathInfo info = read_path_info(p);
      if (info.exists() || info.error) h.matches.push_back(std::move(info));
    }
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace

Facts gather_facts(const Policy& policy, const FactsInput& in) {
  Facts f;
  f.home = in.home;
  f.cwd = in.cwd;
  f.project = in.project;
  f.project_info = read_path_info(in.project);
  f.project_searchable = searchable_without_caps(f.project_info, geteuid(), getegid());
  f.folders = in.folders;
  f.config_real = real_or_lexical(in.folders.config_file);
  for (const auto& d : {in.folders.state, in.folders.data, in.folders.cache})
    f.cordon_dirs.push_back(read_path_info(d));
  f.session_id = in.session_id;
  f.session_tmp = in.session_tmp;
  f.empty_file = in.empty_file;
  f.empty_dir = in.empty_dir;
  f.env = in.env;
  f.hidden = read_hidden_facts(policy, in);
  read_hidden_links(f, in.folders.cache);
  for (const auto& w : policy.writable)
    f.writable.push_back(read_path_info(expand_home(w, in.home)));
  std::vector<ProtectEntry> entries = protected_entries(policy);
  GitFactsInput gi;
  gi.project = in.project;
  gi.home = in.home;
  gi.env = in.env;
  gi.cache_dir = in.folders.cache;
  for (const auto& e : entries)
    if (!e.anywhere) gi.protected_rels.push_back(e.rel);
  // GIT-8: the nested git folders kept so far, from the directory index (PERF-3: no walk).
  if (!in.folders.cache.empty())
    gi.nested_git = indexed_nested_git(dir_index_file(in.folders.cache, in.project), in.project);
  f.git = read_git_facts(gi);
  f.protected_paths = read_protected_facts(entries, in.project, f.git);
  trace("facts: protected");
  f.git_config_copies = sanitized_git_configs(in.env, in.home, in.folders.cache);  // FS-12
  // NET-3: a token in the project's own remote URL, for every command (what a command can read
  // now, a later networked one can send).
  if (auto c = sanitized_project_git_config(f.git.common_dir, in.project, in.env, in.folders.cache))
    f.git_config_copies.push_back(std::move(*c));
  trace("facts: git config copies");
  f.home_config_copies =  // FS-4, FS-6
      sanitized_home_configs({in.home, in.folders.cordon_home}, in.home, in.folders.cache);
  trace("facts: home config copies");
  if (in.network) {
    CredentialScanLimits lim;
    lim.cache_dir = in.folders.cache;
    trace("credential scan: start");
    CredentialScan scan = scan_credentials(in.project, lim);
    trace("credential scan: done");
    f.credential_files = std::move(scan.files);
    f.credential_copies = std::move(scan.copies);
    f.credential_scan_refusal = std::move(scan.refusal);
  }
  if (in.ssh_route && !in.session_tmp.empty()) {  // NET-12
    SshFolderInput si;
    si.policy = &policy;
    si.env = in.env;
    si.home = in.home;
    si.session_tmp = in.session_tmp;
    si.cordon_exe = in.cordon_exe;
    si.bwrap = in.ssh_bwrap;
    f.ssh = prepare_ssh_folder(si);
  }
  CacheFactsInput ci;
  ci.mode = policy.caches;
  ci.folders = in.folders;
  ci.home = in.home;
  ci.project = in.project;
  ci.env = in.env;
  ci.prepare = in.prepare_caches;
  f.caches = read_cache_facts(ci);
  trace("facts: caches");
  f.machine.bwrap = find_bwrap(in.env);
  long am = sysconf(_SC_ARG_MAX);
  if (am > 0) f.machine.arg_max = static_cast<uint64_t>(am);
  f.machine.is_root = geteuid() == 0;
#ifdef __APPLE__
  if (access("/usr/bin/sandbox-exec", X_OK) == 0) f.machine.sandbox_exec = "/usr/bin/sandbox-exec";
#else
  read_wsl_facts(f.machine);  // WSL-1
  if (policy.gpu) read_gpu_facts(f.machine);  // GPU-1
#endif
  for (const char* marker : {"/.dockerenv", "/run/.containerenv"}) {
    if (access(marker, F_OK) == 0) {
      f.machine.container_marker = true;
      f.machine.container_marker_path = marker;
      break;
    }
  }
  return f;
}

}  // namespace cordon
