#include "review/blob_compare.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>

#include "core/paths.h"
#include "core/strings.h"
#include "host/beneath.h"
#include "host/git_runner.h"

namespace cordon {

namespace {

constexpr size_t kHashBatch = 500;  // paths per hash-object call (well under ARG_MAX)

Result<std::string> git_out(const std::vector<std::string>& args, const std::string& project,
                            const EnvMap& env, const std::string& input = {}) {
  auto r = run_git(args, project, env, {}, input, kReviewGitTimeout);
  if (!r.ok()) return r.error();
  if (r->status != 0)
    return make_error(ErrorKind::kGit,
                      fmt::format("git {} failed: {}", args.empty() ? "" : args[0], trim(r->err)));
  return std::move(r->out);
}

// Ids of the files' bytes as they are on disk, one per path, in order.
Result<std::vector<std::string>> hash_files(const std::vector<std::string>& paths,
                                            const std::string& project, const EnvMap& env) {
  std::vector<std::string> ids;
  for (size_t i = 0; i < paths.size(); i += kHashBatch) {
    std::vector<std::string> args = {"hash-object", "--no-filters", "--"};
    for (size_t j = i; j < paths.size() && j < i + kHashBatch; ++j) args.push_back(paths[j]);
    auto out = git_out(args, project, env);
    if (!out.ok()) return out.error();
    for (auto& l : split(*out, '\n'))
      if (!l.empty()) ids.push_back(std::move(l));
  }
  if (ids.size() != paths.size())
    return make_error(ErrorKind::kGit, "git hash-object gave fewer ids than files asked for");
  return ids;
}

// The contents of blobs (link texts), by `cat-file --batch`.
Result<std::vector<std::string>> blob_texts(const std::vector<std::string>& ids,
                                            const std::string& project, const EnvMap& env) {
  std::string input;
  for (const auto& id : ids) input += id + "\n";
  auto out = git_out({"cat-file", "--batch"}, project, env, input);
  if (!out.ok()) return out.error();
  std::vector<std::string> texts;
  size_t p = 0;
  for (size_t k = 0; k < ids.size(); ++k) {
    size_t nl = out->find('\n', p);
    if (nl == std::string::npos) break;
    auto header = split(out->substr(p, nl - p), ' ');
    p = nl + 1;
    if (header.size() != 3 || header[1] != "blob") {
      texts.push_back("");
      continue;
    }
    size_t size = std::stoul(header[2]);
    texts.push_back(out->substr(p, size));
    p += size + 1;
  }
  if (texts.size() != ids.size())
    return make_error(ErrorKind::kGit, "git cat-file gave fewer blobs");
  return texts;
}

}  // namespace

std::vector<TreeEntry> parse_ls_tree(const std::string& out) {
  std::vector<TreeEntry> v;
  for (const auto& rec : split(out, '\0')) {
    size_t tab = rec.find('\t');
    if (tab == std::string::npos) continue;
    auto head = split(rec.substr(0, tab), ' ');
    if (head.size() != 3) continue;
    v.push_back(TreeEntry{head[0], head[2], rec.substr(tab + 1)});
  }
  return v;
}

Result<std::vector<std::string>> changed_since(const std::string& project,
                                               const std::string& commit, const EnvMap& env) {
  auto listed = git_out({"ls-tree", "-r", "-z", "--full-tree", commit}, project, env);
  if (!listed.ok()) return listed.error();
  auto beneath = Beneath::open(project);
  if (!beneath.ok()) return beneath.error();
  std::vector<std::pair<std::string, std::string>> out;  // (letter, path) in tree order
  std::vector<size_t> to_hash, to_read;
  std::vector<TreeEntry> entries = parse_ls_tree(*listed);
  std::vector<std::string> hash_paths, link_ids;
  std::vector<BeneathStat> stats(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const TreeEntry& e = entries[i];
    if (e.mode == "160000") continue;  // submodules: their own index (see the limits)
    stats[i] = beneath->lstat(e.path);
    const BeneathStat& st = stats[i];
    bool link = e.mode == "120000";
    if (st.kind == Kind::kMissing) {
      out.push_back({"D", e.path});
    } else if (st.kind != (link ? Kind::kSymlink : Kind::kFile)) {
      out.push_back({"T", e.path});
    } else if (link) {
      to_read.push_back(i);
      link_ids.push_back(e.id);
    } else {
      to_hash.push_back(i);
      hash_paths.push_back(e.path);
    }
  }
  auto ids = hash_files(hash_paths, project, env);
  if (!ids.ok()) return ids.error();
  for (size_t k = 0; k < to_hash.size(); ++k) {
    const TreeEntry& e = entries[to_hash[k]];
    struct stat st;
    bool exec_now = ::lstat(path_join(project, e.path).c_str(), &st) == 0 && (st.st_mode & 0100);
    if ((*ids)[k] != e.id || exec_now != (e.mode == "100755")) out.push_back({"M", e.path});
  }
  auto texts = blob_texts(link_ids, project, env);
  if (!texts.ok()) return texts.error();
  for (size_t k = 0; k < to_read.size(); ++k)
    if ((*texts)[k] != stats[to_read[k]].link_target)
      out.push_back({"M", entries[to_read[k]].path});
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  std::vector<std::string> lines;
  for (const auto& [letter, path] : out) lines.push_back(letter + " " + path);
  return lines;
}

}  // namespace cordon
