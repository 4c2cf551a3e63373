#include "session/audit_log.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "core/paths.h"
#include "process/process.h"
#include "session/record_sync.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

// The longest line a tail read must hold: every text in an event is capped at 4 KiB
// (audit_event.h), so a line stays well below this.
constexpr size_t kTailBytes = 256 << 10;

std::string rotated_path(const std::string& dir, const std::string& session, int n) {
  return path_join(dir, fmt::format("{}.{}.jsonl", session, n));
}

Status io_error(const std::string& what, const std::string& path, int e) {
  return make_error(ErrorKind::kIo, fmt::format("cannot {} {} ({})", what, path, std::strerror(e)),
                    path, e);
}

// The numbers of the session's rotated files (<session>.<n>.jsonl), in order.
std::vector<int> rotated_numbers(const std::string& dir, const std::string& session) {
  std::vector<int> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  const std::string prefix = session + ".", suffix = ".jsonl";
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string n = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos)
      continue;
    out.push_back(std::stoi(n));
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// The chain's end in the file `fd` (of `size` bytes), from its tail.
std::optional<ChainHead> tail_head(int fd, uint64_t size) {
  if (size == 0) return std::nullopt;
  const size_t n = static_cast<size_t>(std::min<uint64_t>(size, kTailBytes));
  std::string tail(n, '\0');
  ssize_t got = pread(fd, tail.data(), n, static_cast<off_t>(size - n));
  if (got != static_cast<ssize_t>(n)) return std::nullopt;
  return head_of_tail(tail);
}

// The head the session's own .head file holds (not one-shot.heads: the log's writer reads this
// for a named session, whose head is there).
std::optional<ChainHead> head_file(const std::string& dir, const std::string& session) {
  auto text = read_file_nofollow(path_join(dir, session + ".head"), 4096);
  if (!text.ok()) return std::nullopt;
  return parse_head(*text);
}

// The sessions with a line in one-shot.heads, each with its log's time (to the nanosecond).
std::vector<std::pair<long long, std::string>> one_shot_sessions(const std::string& dir) {
  std::vector<std::pair<long long, std::string>> out;
  auto text = read_file_nofollow(path_join(dir, kOneShotHeads), 1ull << 32);
  if (!text.ok()) return out;
  for (size_t at = 0; at < text->size();) {
    size_t nl = text->find('\n', at);
    if (nl == std::string::npos) nl = text->size();
    nlohmann::json j = nlohmann::json::parse(std::string_view(*text).substr(at, nl - at), nullptr,
                                             false);
    at = nl + 1;
    if (!j.is_object() || !j.contains("session") || !j["session"].is_string()) continue;
    const std::string s = j["session"].get<std::string>();
    if (s.empty() || s.find('/') != std::string::npos || s[0] == '.') continue;
    const RecordStamp stamp = record_stamp(path_join(dir, s + ".jsonl"));
    if (stamp.ino == 0) continue;
    out.emplace_back(stamp.mtime_ns, s);
  }
  return out;
}

// The head file's fixed size: its JSON, spaces, a newline.
constexpr size_t kHeadBytes = 128;

// Holds the log's lock until it goes.
struct FileLock {
  int fd;
  explicit FileLock(int f) : fd(f) {
    while (flock(fd, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~FileLock() { flock(fd, LOCK_UN); }
};

}  // namespace

std::string audit_dir(const Folders& folders) { return path_join(folders.data, "audit"); }

std::string AuditLog::current_path() const { return path_join(dir_, session_ + ".jsonl"); }
std::string AuditLog::head_path() const { return path_join(dir_, session_ + ".head"); }

Status AuditLog::make_dir() {
  std::lock_guard<std::mutex> lock(mu_);
  if (dir_made_) return ok_status();
  if (auto st = make_dirs(dir_, 0700); !st.ok()) return st;
  dir_made_ = true;
  return ok_status();
}

Status AuditLog::append(const nlohmann::json& event) {
  if (auto st = make_dir(); !st.ok()) return st;
  std::lock_guard<std::mutex> lock(mu_);
  if (sole_)
    if (std::optional<Status> st = append_alone(event)) return *st;
  const std::string path = current_path();
  for (int attempt = 0; attempt < 8; ++attempt) {
    if (log_.fd < 0) {
      log_ = Fd(::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
      if (log_.fd < 0) return io_error("write the audit log", path, errno);
    }
    FileLock held(log_.fd);
    // Another process may have rotated the file since it was opened: write to the one the name
    // holds now.
    struct stat mine, now;
    if (fstat(log_.fd, &mine) != 0) return io_error("write the audit log", path, errno);
    if (stat(path.c_str(), &now) != 0 || now.st_ino != mine.st_ino || now.st_dev != mine.st_dev) {
      log_.reset();
      continue;
    }
    return append_locked(mine, event);
  }
  return make_error(ErrorKind::kIo, fmt::format("cannot write the audit log {}", path), path);
}

// The sole writer's append (set_sole_writer): nothing to lock or check, the chain's end and the
// size are this process's own. nullopt: the log was there already (not a new session's after
// all): the shared path takes it from here, as it does after a failed write.
std::optional<Status> AuditLog::append_alone(const nlohmann::json& event) {
  if (log_.fd < 0) {
    const std::string path = current_path();
    log_ = Fd(::open(path.c_str(),
                     O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (log_.fd < 0) {
      if (errno != EEXIST) return io_error("write the audit log", path, errno);
      sole_ = false;
      return std::nullopt;
    }
    // A new file: the chain goes on from the rotated one's end, or (a new session) starts.
    known_ = Known{0, 0, 0, known_ ? known_->head : ChainHead{}};
  }
  const std::string line = chain_line(event, known_->head);
  const std::string text = line + "\n";
  if (int e = write_fully(log_.fd, text.data(), text.size()); e != 0) {
    sole_ = false;
    known_.reset();
    log_.reset();
    return io_error("write the audit log", current_path(), e);
  }
  known_->size += text.size();
  known_->head = chain_next(known_->head, line);
  write_head(known_->head);
  if (known_->size < rotate_bytes_) return ok_status();
  log_.reset();
  return rotate();
}

// The chain's end before this append: as this process left it when nobody wrote since (the
// usual case: no read), else from the file's tail, else (a new file) from the head.
ChainHead AuditLog::chain_end(const struct stat& st) {
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (known_ && known_->dev == st.st_dev && known_->ino == st.st_ino && known_->size == size)
    return known_->head;
  if (auto h = tail_head(log_.fd, size)) return *h;
  return head_file(dir_, session_).value_or(ChainHead{});
}

Status AuditLog::append_locked(const struct stat& st, const nlohmann::json& event) {
  const ChainHead head = chain_end(st);
  const std::string line = chain_line(event, head);
  const std::string text = line + "\n";
  if (int e = write_fully(log_.fd, text.data(), text.size()); e != 0) {
    known_.reset();
    return io_error("write the audit log", current_path(), e);
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size) + text.size();
  known_ = Known{st.st_dev, st.st_ino, size, chain_next(head, line)};
  write_head(known_->head);
  if (size < rotate_bytes_) return ok_status();
  known_.reset();
  log_.reset();
  return rotate();
}

// The head is rewritten in place, one fixed-size pwrite (no new file, no rename: those cost
// more than the rest of an append), under the log's lock.
void AuditLog::write_head(const ChainHead& head) {
  if (sole_) return write_one_shot_head(head);
  if (head_.fd < 0) {
    head_ = Fd(::open(head_path().c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (head_.fd < 0) return;
  }
  std::string text = head_text(head);
  text.resize(kHeadBytes - 1, ' ');
  text += '\n';
  (void)pwrite(head_.fd, text.data(), text.size(), 0);
}

// A sole writer's head: its line in one-shot.heads, appended at the first event (O_APPEND: the
// lines of several runs never mix) and then rewritten in place at the offset it got.
void AuditLog::write_one_shot_head(const ChainHead& head) {
  std::string text = nlohmann::json{{"session", session_}, {"seq", head.seq}, {"hash", head.hash}}
                         .dump();
  text.resize(kOneShotHeadBytes - 1, ' ');
  text += '\n';
  if (heads_.fd >= 0) {
    (void)pwrite(heads_.fd, text.data(), text.size(), head_at_);
    return;
  }
  const std::string path = path_join(dir_, kOneShotHeads);
  heads_ = Fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (heads_.fd < 0) return;
  if (write_fully(heads_.fd, text.data(), text.size()) != 0) {
    heads_.reset();
    return;
  }
  // Where the line went (the offset after an O_APPEND write is its end); then no more
  // appending: a pwrite on an O_APPEND file would append on Linux.
  head_at_ = lseek(heads_.fd, 0, SEEK_CUR) - static_cast<off_t>(text.size());
  if (head_at_ < 0 || fcntl(heads_.fd, F_SETFL, 0) != 0) heads_.reset();
}

Status AuditLog::rotate() {
  std::vector<int> taken = rotated_numbers(dir_, session_);
  const std::string to = rotated_path(dir_, session_, taken.empty() ? 1 : taken.back() + 1);
  if (::rename(current_path().c_str(), to.c_str()) != 0)
    return io_error("rotate the audit log to", to, errno);
  return ok_status();
}

Result<std::vector<AuditFile>> read_audit_files(const std::string& dir,
                                                const std::string& session) {
  std::vector<std::string> paths;
  for (int n : rotated_numbers(dir, session)) paths.push_back(rotated_path(dir, session, n));
  struct stat st;
  const std::string current = path_join(dir, session + ".jsonl");
  if (lstat(current.c_str(), &st) == 0) paths.push_back(current);
  std::vector<AuditFile> out;
  for (const auto& p : paths) {
    auto text = read_file_nofollow(p, 1ull << 32);
    if (!text.ok()) return text.error();
    out.push_back(AuditFile{p, std::move(*text)});
  }
  return out;
}

std::optional<ChainHead> read_audit_head(const std::string& dir, const std::string& session) {
  if (auto h = head_file(dir, session)) return h;
  // A one-shot session's line (the last one, should there be two).
  auto text = read_file_nofollow(path_join(dir, kOneShotHeads), 1ull << 32);
  if (!text.ok()) return std::nullopt;
  const std::string key = fmt::format("\"session\":\"{}\"", session);
  const size_t at = text->rfind(key);
  if (at == std::string::npos) return std::nullopt;
  const size_t start = text->rfind('\n', at);
  const size_t from = start == std::string::npos ? 0 : start + 1;
  const size_t end = text->find('\n', at);
  return parse_head(std::string_view(*text).substr(
      from, end == std::string::npos ? std::string::npos : end - from));
}

std::vector<std::string> audit_sessions(const std::string& dir) {
  // Each session once, at its latest time: a one-shot session's log, a named one's head.
  std::map<std::string, long long> when;
  for (auto& [t, s] : one_shot_sessions(dir)) when[s] = t;
  DIR* d = opendir(dir.c_str());
  if (!d) return {};
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    const std::string suffix = ".head";
    if (name.size() <= suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const RecordStamp stamp = record_stamp(path_join(dir, name));  // to the nanosecond
    if (stamp.ino == 0) continue;
    long long& t = when[name.substr(0, name.size() - suffix.size())];
    t = std::max(t, static_cast<long long>(stamp.mtime_ns));
  }
  closedir(d);
  std::vector<std::pair<long long, std::string>> found;
  for (auto& [s, t] : when) found.emplace_back(t, s);
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

}  // namespace cordon
