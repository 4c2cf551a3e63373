#include "session/session_store.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/base64.h"
#include "core/paths.h"
#include "core/strings.h"
#include "plan/record_check.h"
#include "process/process.h"
#include "sys/fs_util.h"

namespace cordon {

using nlohmann::json;

namespace {

// PERF-1: an entry holds only what differs from SnapshotEntry's defaults. Most entries name
// something absent (the auto-run files a project does not have), so the record a command
// writes before it starts is a fifth of its full size, and quicker to build. Records that
// spell every field out (older cordons wrote them) read the same.
json entry_json(const SnapshotEntry& e) {
  json x{{"rel", e.rel}, {"kind", static_cast<int>(e.kind)}};
  if (!e.link_target.empty()) x["link"] = e.link_target;
  if (e.dev != 0) x["dev"] = e.dev;
  if (e.ino != 0) x["ino"] = e.ino;
  if (e.tracked) x["tracked"] = true;
  if (e.file_by_file) x["file_by_file"] = true;
  if (!e.children.empty()) {
    json c = json::array();
    for (const auto& ch : e.children)
      c.push_back({ch.rel, static_cast<int>(ch.kind), ch.link_target});
    x["children"] = std::move(c);
  }
  if (!e.tracked_children.empty()) x["tracked_children"] = e.tracked_children;
  if (!e.via_link.empty()) x["via_link"] = e.via_link;
  if (!e.via_link_target.empty()) x["via_link_target"] = e.via_link_target;
  return x;
}

SnapshotEntry entry_from(const json& e) {
  SnapshotEntry x;
  x.rel = e.at("rel");
  x.kind = static_cast<Kind>(e.at("kind").get<int>());
  x.link_target = e.value("link", "");
  x.dev = e.value("dev", uint64_t{0});
  x.ino = e.value("ino", uint64_t{0});
  x.tracked = e.value("tracked", false);
  x.file_by_file = e.value("file_by_file", false);
  if (auto c = e.find("children"); c != e.end())
    for (const auto& ch : *c)
      x.children.push_back(ChildFact{ch.at(0), static_cast<Kind>(ch.at(1).get<int>()), ch.at(2)});
  x.tracked_children = e.value("tracked_children", std::vector<std::string>{});
  x.via_link = e.value("via_link", "");
  x.via_link_target = e.value("via_link_target", "");
  return x;
}

json snapshot_json(const ProtectedSnapshot& s) {
  json j;
  j["project"] = s.project;
  j["git_dir"] = s.git_dir;
  j["commondir_exists"] = s.commondir_exists;
  j["git_candidates"] = s.git_candidates;
  j["git_links"] = s.git_links;
  j["unreadable"] = s.unreadable;
  j["common_dir"] = s.common_dir;
  j["dir_index"] = s.dir_index;
  j["identities"] = json::array();
  for (const auto& i : s.identities)
    j["identities"].push_back({{"root", i.root},
                               {"rel", i.rel},
                               {"kind", static_cast<int>(i.kind)},
                               {"dev", i.dev},
                               {"ino", i.ino},
                               {"what", i.what}});
  j["guarded"] = json::array();
  for (const auto& g : s.guarded)  // LL-1, GIT-1: the bytes to put back after an interruption
    j["guarded"].push_back({{"root", g.root},
                            {"rel", g.rel},
                            {"shown", g.shown},
                            {"kind", static_cast<int>(g.kind)},
                            {"dev", g.dev},
                            {"ino", g.ino},
                            {"size", g.size},
                            {"mode", g.mode},
                            {"has_content", g.has_content},
                            {"content", base64_encode(g.content)},
                            {"link", g.link_target},
                            {"in_folder", g.in_folder},
                            {"listed", g.listed},
                            {"unreadable", g.unreadable}});
  j["entries"] = json::array();
  for (const auto& e : s.entries) j["entries"].push_back(entry_json(e));
  return j;
}

ProtectedSnapshot snapshot_from(const json& j) {
  ProtectedSnapshot s;
  s.project = j.at("project");
  s.git_dir = j.at("git_dir");
  s.commondir_exists = j.at("commondir_exists");
  s.git_candidates = j.at("git_candidates").get<std::vector<std::pair<std::string, bool>>>();
  s.git_links = j.at("git_links").get<std::vector<std::pair<std::string, std::string>>>();
  s.unreadable = j.at("unreadable").get<std::vector<std::string>>();
  s.common_dir = j.value("common_dir", "");
  s.dir_index = j.value("dir_index", "");
  for (const auto& i : j.value("identities", json::array()))
    s.identities.push_back(IdentityEntry{i.at("root"), i.at("rel"),
                                         static_cast<Kind>(i.at("kind").get<int>()), i.at("dev"),
                                         i.at("ino"), i.at("what")});
  for (const auto& g : j.value("guarded", json::array())) {
    GuardedEntry x;
    x.root = g.at("root");
    x.rel = g.at("rel");
    x.shown = g.at("shown");
    x.kind = static_cast<Kind>(g.at("kind").get<int>());
    x.dev = g.at("dev");
    x.ino = g.at("ino");
    x.size = g.at("size");
    x.mode = g.at("mode");
    x.has_content = g.at("has_content");
    auto bytes = base64_decode(g.at("content").get<std::string>());
    if (!bytes) throw std::runtime_error("guarded bytes are not base64");
    x.content = std::move(*bytes);
    x.link_target = g.at("link");
    x.in_folder = g.at("in_folder");
    x.listed = g.at("listed");
    x.unreadable = g.at("unreadable");
    s.guarded.push_back(std::move(x));
  }
  for (const auto& e : j.at("entries")) s.entries.push_back(entry_from(e));
  return s;
}

}  // namespace

long long process_start_time(int pid) {
  auto st = read_proc_stat(pid);
  return st ? st->start : 0;
}

bool process_alive(int pid, long long start) {
  if (pid <= 0) return false;
  auto st = read_proc_stat(pid);
  if (!st) return false;
  if (start != 0 && st->start != start) return false;  // the pid was reused
  return st->state != 'Z';  // a zombie has ended: it only waits to be collected
}

std::string SessionStore::record_path(const std::string& id) const {
  return path_join(folders_.state, "sessions/" + id + ".json");
}
std::string SessionStore::leftovers_dir(const std::string& id) const {
  return path_join(folders_.state, "leftovers/" + id);
}
std::string SessionStore::tmp_dir(const std::string& id) const {
  return path_join(folders_.cache, "sandbox-tmp/" + id);
}
std::string SessionStore::keeper_dir(const std::string& id) const {
  return path_join(folders_.state, "keepers/" + id);
}
std::string SessionStore::leftover_path(const std::string& id, uint64_t effect) const {
  return path_join(leftovers_dir(id), std::to_string(effect));
}

Result<std::optional<SessionRecord>> SessionStore::load(const std::string& id) const {
  if (!valid_session_id(id))
    return make_error(ErrorKind::kInvalid,
                      fmt::format("\"{}\" is not a session id: a session id is 16 "
                                  "hex digits (0-9, a-f), as `cordon session start` "
                                  "prints it",  // SES-1
                                  id));
  std::string path = record_path(id);
  if (access(path.c_str(), F_OK) != 0) return std::optional<SessionRecord>();
  auto text = read_file(path, 64 << 20);
  if (!text.ok()) return text.error();
  try {
    json j = json::parse(*text);
    SessionRecord r;
    r.id = j.at("id");
    r.project = j.at("project");
    r.started = j.at("started");
    r.tracked_known = j.value("tracked_known", false);
    r.tracked_at_start = j.value("tracked_at_start", std::vector<std::string>{});
    r.unreadable = j.value("unreadable", std::vector<std::string>{});
    for (const auto& h : j.value("held", json::array()))
      r.held.push_back(HeldProcess{h.at(0), h.at(1)});
    r.effects = j.value("effects", 0ULL);
    r.boot_id = j.value("boot_id", "");
    return std::optional<SessionRecord>(std::move(r));
  } catch (const std::exception& e) {
    return make_error(ErrorKind::kState,
                      fmt::format("the session record {} is damaged ({}); end the "
                                  "session with `cordon session end {}` or remove that "
                                  "file.",
                                  path, e.what(), id),
                      path);
  }
}

Status SessionStore::save(const SessionRecord& r) const {
  json held = json::array();
  for (const auto& h : r.held) held.push_back({h.pid, h.start});
  json j{{"version", kRecordVersion},
         {"id", r.id},
         {"project", r.project},
         {"started", r.started},
         {"tracked_known", r.tracked_known},
         {"tracked_at_start", r.tracked_at_start},
         {"unreadable", r.unreadable},
         {"held", held},
         {"effects", r.effects},
         {"boot_id", r.boot_id}};
  std::string path = record_path(r.id);
  if (auto s = make_dirs(path_parent(path), 0700); !s.ok()) return s;
  return write_file_atomic(path, j.dump(1) + "\n", /*sync=*/true);
}

Result<std::vector<SessionRecord>> SessionStore::list() const {
  std::vector<SessionRecord> out;
  std::string dir = path_join(folders_.state, "sessions");
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  std::vector<std::string> ids;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (ends_with(n, ".json") && valid_session_id(n.substr(0, n.size() - 5)))
      ids.push_back(n.substr(0, n.size() - 5));
  }
  closedir(d);
  std::sort(ids.begin(), ids.end());
  for (const auto& id : ids) {
    auto r = load(id);
    if (r.ok() && r->has_value()) out.push_back(**r);
  }
  return out;
}

Status SessionStore::remove(const std::string& id) const {
  (void)remove_tree(tmp_dir(id));
  (void)remove_tree(keeper_dir(id));
  unlink(record_path(id).c_str());
  rmdir(leftovers_dir(id).c_str());  // only when empty: records are never thrown away
  return ok_status();
}

Status SessionStore::write_leftover(const LeftoverRecord& r) const {
  json j{{"version", r.version},     {"cordon_version", r.cordon_version},
         {"session", r.session},     {"project", r.project},
         {"effect", r.effect},       {"sandboxed", r.sandboxed},
         {"owner_pid", r.owner_pid}, {"owner_start", r.owner_start},
         {"pid", r.pid},             {"pid_start", r.pid_start},
         {"pgid", r.pgid},           {"command", r.command},
         {"started", r.started},     {"boot_id", r.boot_id}};
  if (r.snapshot) j["snapshot"] = snapshot_json(*r.snapshot);
  std::string dir = leftovers_dir(r.session);
  if (auto s = make_dirs(dir, 0700); !s.ok()) return s;
  // No fsync: the record guards against cordon being killed, which keeps the page cache; a
  // power cut can leave it empty or damaged, and resume then holds the session (SES-3).
  return write_file_atomic(leftover_path(r.session, r.effect), j.dump() + "\n", /*sync=*/false);
}

std::vector<std::string> SessionStore::leftover_files(const std::string& id) const {
  std::vector<std::string> out;
  std::string dir = leftovers_dir(id);
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == ".." || n.find(".tmp-") != std::string::npos) continue;
    out.push_back(path_join(dir, n));
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

Result<LeftoverRecord> read_leftover(const std::string& path) {
  auto text = read_file(path, 64 << 20);
  if (!text.ok())
    return make_error(ErrorKind::kDamaged, "it cannot be read", path, text.error().sys_errno);
  if (trim(*text).empty()) return make_error(ErrorKind::kDamaged, "it is empty", path);
  try {
    json j = json::parse(*text);
    LeftoverRecord r;
    r.version = j.at("version");
    if (r.version != kRecordVersion)
      return make_error(ErrorKind::kDamaged,
                        fmt::format("it is from another version of cordon "
                                    "(record version {})",
                                    r.version),
                        path);
    r.cordon_version = j.at("cordon_version");
    r.session = j.at("session");
    r.project = j.at("project");
    r.effect = j.at("effect");
    r.sandboxed = j.at("sandboxed");
    r.owner_pid = j.at("owner_pid");
    r.owner_start = j.at("owner_start");
    r.pid = j.at("pid");
    r.pid_start = j.at("pid_start");
    r.pgid = j.at("pgid");
    r.command = j.at("command").get<std::vector<std::string>>();
    r.started = j.at("started");
    r.boot_id = j.value("boot_id", "");
    if (j.contains("snapshot")) r.snapshot = snapshot_from(j.at("snapshot"));
    if (r.sandboxed && !r.snapshot)
      return make_error(ErrorKind::kDamaged,
                        "it is incomplete (no snapshot of the protected paths)", path);
    return r;
  } catch (const std::exception& e) {
    return make_error(ErrorKind::kDamaged, fmt::format("it is damaged ({})", e.what()), path);
  }
}

}  // namespace cordon
