#include "file_tools/file_tools.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

#include "core/paths.h"
#include "core/strings.h"
#include "file_rules/credential_rules.h"
#include "file_rules/text_rules.h"
#include "host/file_open.h"
#include "host/path_info.h"
#include "sys/fs_util.h"

namespace cordon::files {

namespace {

// An owned file descriptor.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_;
};

Kind kind_of(mode_t m) {
  if (S_ISREG(m)) return Kind::kFile;
  if (S_ISDIR(m)) return Kind::kDir;
  if (S_ISLNK(m)) return Kind::kSymlink;
  return Kind::kOther;
}

std::vector<std::string> components(const std::string& abs) {
  std::vector<std::string> out;
  for (auto& part : split(abs, '/'))
    if (!part.empty() && part != ".") out.push_back(std::move(part));
  return out;
}

// Opens the folder `real` (absolute, normalized, no links on the way) without following any
// link: each component is opened with O_NOFOLLOW from the one before, so a link that appears
// after the rules looked fails with ELOOP or ENOTDIR instead of being followed.
Fd open_dir_no_links(const std::string& real, int flags) {
  Fd dir(::open("/", kOpenPathOnly | O_DIRECTORY | O_CLOEXEC));
  if (!dir.ok()) return dir;
  std::vector<std::string> parts = components(real);
  if (parts.empty()) return Fd(::openat(dir.get(), ".", flags | O_DIRECTORY | O_CLOEXEC));
  for (size_t i = 0; i < parts.size(); ++i) {
    int f = i + 1 == parts.size() ? flags : kOpenPathOnly;
    Fd next(::openat(dir.get(), parts[i].c_str(), f | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.ok()) return next;
    dir = std::move(next);
  }
  return dir;
}

std::string changed_message(const std::string& shown) {
  return fmt::format(
      "refused: {} changed while it was being checked (a link or another kind of "
      "file appeared on the way); nothing was done, try again",
      shown);
}

Error open_error(int e, const std::string& shown, const std::string& abs) {
  if (e == ELOOP || e == ENOTDIR || e == EXDEV)
    return make_error(ErrorKind::kRefused, changed_message(shown), abs, e);
  if (e == ENOENT)
    return make_error(ErrorKind::kInvalid, fmt::format("{} does not exist", shown), abs, e);
  if (e == ENXIO) return refuse_not_regular(shown, abs);
  return make_error(ErrorKind::kIo,
                    fmt::format("{} cannot be opened ({})", shown, std::strerror(e)), abs, e);
}

// Opens `name` in `dirfd` for reading, and only if it is a regular file that is not a kernel
// file and not over the limit: first with kOpenPathOnly (host/file_open.h; Linux's O_PATH opens
// nothing, so a FIFO cannot block, a device sees no open and a large file is refused unread),
// checked with fstat and the filesystem, then reopened for reading as that very inode where the
// system can (/proc/self/fd), else by name with O_NONBLOCK, checking that the inode is the
// same. With `expect`, the inode must be the one the rules judged. `st` receives its stat.
Result<Fd> open_regular_at(int dirfd, const std::string& name, const std::string& shown,
                           const std::string& abs, const FileFacts* expect, struct stat& st) {
  Fd path_fd(::openat(dirfd, name.c_str(), kOpenPathOnly | O_NOFOLLOW | O_CLOEXEC));
  if (!path_fd.ok()) return open_error(errno, shown, abs);
  if (::fstat(path_fd.get(), &st) < 0) return open_error(errno, shown, abs);
  if (S_ISLNK(st.st_mode)) return make_error(ErrorKind::kRefused, changed_message(shown), abs);
  if (!S_ISREG(st.st_mode)) return refuse_not_regular(shown, abs);
  if (on_kernel_fs(path_fd.get())) return refuse_kernel_file(shown, abs);
  if (expect && expect->ino != 0 && (st.st_dev != expect->dev || st.st_ino != expect->ino))
    return make_error(ErrorKind::kRefused, changed_message(shown), abs);
  if (static_cast<uint64_t>(st.st_size) > kFileToolMaxBytes) return refuse_too_large(shown, abs);
  Fd fd(reopen_for_reading(path_fd.get()));
  if (!fd.ok() && (errno == ENOENT || errno == ENOTDIR))
    fd = Fd(
        ::openat(dirfd, name.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.ok()) return open_error(errno, shown, abs);
  struct stat again;
  if (::fstat(fd.get(), &again) < 0) return open_error(errno, shown, abs);
  if (again.st_dev != st.st_dev || again.st_ino != st.st_ino || !S_ISREG(again.st_mode))
    return make_error(ErrorKind::kRefused, changed_message(shown), abs);
  st = again;
  return fd;
}

// Reads the whole file, refusing (FILE-2) as soon as it holds more than the limit, so a file
// that grew after the check is never read whole.
Result<std::string> read_capped(int fd, const std::string& shown, const std::string& abs,
                                uint64_t size_hint) {
  std::string data;
  data.resize(static_cast<size_t>(std::min<uint64_t>(size_hint, kFileToolMaxBytes)) + 1);
  size_t off = 0;
  while (true) {
    if (off == data.size()) {
      if (data.size() > kFileToolMaxBytes) return refuse_too_large(shown, abs);
      data.resize(std::min<size_t>(data.size() * 2 + 4096, kFileToolMaxBytes + 1));
    }
    ssize_t r = ::read(fd, data.data() + off, data.size() - off);
    if (r < 0) {
      if (errno == EINTR) continue;
      return make_error(ErrorKind::kIo,
                        fmt::format("{} cannot be read ({})", shown, std::strerror(errno)), abs,
                        errno);
    }
    if (r == 0) break;
    off += static_cast<size_t>(r);
  }
  if (off > kFileToolMaxBytes) return refuse_too_large(shown, abs);
  data.resize(off);
  return data;
}

// Opens the regular file the rules allowed (`target`: a real path) for reading.
Result<Fd> open_target(const std::string& target, const std::string& shown, const FileFacts& facts,
                       struct stat& st) {
  Fd dir = open_dir_no_links(path_parent(target), kOpenPathOnly);
  if (!dir.ok()) return open_error(errno, shown, target);
  return open_regular_at(dir.get(), path_base(target), shown, target, &facts, st);
}

std::string error_text(int e) { return std::strerror(e); }

// What a file looked like when it was read, so that a change before the write is noticed.
struct Identity {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  struct timespec mtime = {};
};

bool same_identity(const struct stat& st, const Identity& id) {
  const timespec mtime = stat_mtime(st);
  return st.st_dev == id.dev && st.st_ino == id.ino && st.st_size == id.size &&
         mtime.tv_sec == id.mtime.tv_sec && mtime.tv_nsec == id.mtime.tv_nsec;
}

// Opens the folder `parent`, creating the missing folders on the way without following links.
Result<Fd> make_parents(const std::string& parent, const std::string& shown,
                        std::vector<std::string>& created) {
  Fd dir(::open("/", kOpenPathOnly | O_DIRECTORY | O_CLOEXEC));
  if (!dir.ok()) return open_error(errno, shown, parent);
  std::string so_far = "/";
  for (const auto& part : components(parent)) {
    so_far = path_join(so_far, part);
    Fd next(
        ::openat(dir.get(), part.c_str(), kOpenPathOnly | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.ok() && errno == ENOENT) {
      if (::mkdirat(dir.get(), part.c_str(), 0777) == 0) {
        created.push_back(so_far);
      } else if (errno != EEXIST) {
        return make_error(ErrorKind::kIo,
                          fmt::format("the folder {} cannot be created for {} ({})", so_far, shown,
                                      error_text(errno)),
                          so_far, errno);
      }
      next = Fd(
          ::openat(dir.get(), part.c_str(), kOpenPathOnly | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    }
    if (!next.ok()) return open_error(errno, shown, so_far);
    dir = std::move(next);
  }
  Fd out(::openat(dir.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!out.ok()) return open_error(errno, shown, parent);
  return out;
}

Status write_all(int fd, std::string_view data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t w = ::write(fd, data.data() + off, data.size() - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      return make_error(ErrorKind::kIo, error_text(errno), "", errno);
    }
    off += static_cast<size_t>(w);
  }
  return ok_status();
}

struct Replaced {
  bool created = false;
  std::vector<std::string> created_dirs;
};

// Replaces `target` (a real path) with `content` atomically: a temporary file in the same
// folder, written, given the old file's owner and permission bits, synced, then renamed over
// it. With `expect`, the file must still be the one that was read. `create_dirs` allows making
// the missing parent folders.
Result<Replaced> replace_atomically(const std::string& target, std::string_view content,
                                    const std::optional<Identity>& expect, bool create_dirs,
                                    const std::string& shown) {
  Replaced out;
  const std::string parent = path_parent(target);
  const std::string name = path_base(target);
  Fd dir = open_dir_no_links(parent, O_RDONLY);
  if (!dir.ok()) {
    int e = errno;
    if (e == ENOTDIR) {
      // A file where a folder should be is the caller's mistake, not a race: say which.
      for (std::string a = parent; a != "/"; a = path_parent(a)) {
        struct stat st;
        if (::lstat(a.c_str(), &st) == 0 && S_ISREG(st.st_mode))
          return make_error(
              ErrorKind::kInvalid,
              fmt::format("{} cannot be written: {} is a file, not a folder", shown, a), a, e);
      }
    }
    if (e != ENOENT) return open_error(e, shown, parent);
    if (!create_dirs)
      return make_error(ErrorKind::kInvalid,
                        fmt::format("the folder {} does not exist, and the file tools create "
                                    "folders only inside the project and the writable folders",
                                    parent),
                        parent, e);
    auto made = make_parents(parent, shown, out.created_dirs);
    if (!made) return made.error();
    dir = std::move(made.value());
  }
  // Judges what is at the target now: nothing, or a regular file (the one read, with expect).
  struct stat cur;
  bool exists = false;
  auto look = [&]() -> Status {
    if (::fstatat(dir.get(), name.c_str(), &cur, AT_SYMLINK_NOFOLLOW) == 0) {
      exists = true;
      if (S_ISLNK(cur.st_mode))
        return make_error(ErrorKind::kRefused, changed_message(shown), target);
      if (!S_ISREG(cur.st_mode)) return refuse_not_regular(shown, target);
    } else if (errno == ENOENT) {
      exists = false;
    } else {
      return open_error(errno, shown, target);
    }
    if (expect && (!exists || !same_identity(cur, *expect)))
      return make_error(ErrorKind::kRefused,
                        fmt::format("refused: {} changed between the read and the write; nothing "
                                    "was written: read it again and redo the edit",
                                    shown),
                        target);
    return ok_status();
  };
  if (auto s = look(); !s) return s.error();
  out.created = !exists;
  const bool existed = exists;
  const struct stat before = cur;

  const std::string tmp = ".cordon-write-" + random_hex16() + ".tmp";
  // A new file gets 0666 less the umask from the kernel; an old one its own bits (below).
  Fd t(::openat(dir.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                existed ? 0600 : 0666));
  if (!t.ok())
    return make_error(
        ErrorKind::kIo,
        fmt::format("a temporary file cannot be made beside {} ({})", shown, error_text(errno)),
        path_join(parent, tmp), errno);
  auto fail = [&](Error e) -> Result<Replaced> {
    // Only the temporary file this call made is removed; the target is untouched.
    ::unlinkat(dir.get(), tmp.c_str(), 0);
    return e;
  };
  if (auto s = write_all(t.get(), content); !s)
    return fail(make_error(ErrorKind::kIo,
                           fmt::format("{} cannot be written ({})", shown, s.error().message),
                           target, s.error().sys_errno));
  if (existed) {
    // Owner first: chown clears set-id bits, which fchmod then puts back. Only root may give a
    // file away; for anyone else the owner is already theirs or cannot be kept.
    if (before.st_uid != ::geteuid() || before.st_gid != ::getegid())
      (void)!::fchown(t.get(), before.st_uid, before.st_gid);
    if (::fchmod(t.get(), before.st_mode & 07777) < 0)
      return fail(make_error(
          ErrorKind::kIo,
          fmt::format("the permissions of {} cannot be kept ({})", shown, error_text(errno)),
          target, errno));
  }
  if (::fsync(t.get()) < 0)
    return fail(make_error(ErrorKind::kIo,
                           fmt::format("{} cannot be synced ({})", shown, error_text(errno)),
                           target, errno));
  // A last look: nothing may have taken the target's place meanwhile.
  if (auto s = look(); !s) return fail(s.error());
  if (!expect && existed != exists)
    return fail(make_error(ErrorKind::kRefused, changed_message(shown), target));
  if (::renameat(dir.get(), tmp.c_str(), dir.get(), name.c_str()) < 0)
    return fail(make_error(ErrorKind::kIo,
                           fmt::format("{} cannot be replaced ({})", shown, error_text(errno)),
                           target, errno));
  ::fsync(dir.get());
  return out;
}

template <class T>
Result<Reply<T>> asked(Ask ask) {
  Reply<T> r;
  r.ask = std::move(ask);
  return r;
}

// Resolves, reads the facts and asks the rules: the preamble of every tool.
FileDecision judge(const FileContext& ctx, FileTool tool, const std::string& path,
                   const std::optional<Ask>& approved, FileFacts& facts) {
  std::string abs = resolve_file_path(ctx, path);
  facts = read_file_facts(abs);
  FileRequest req{tool, path, approved};
  return decide_file_access(ctx, req, abs, facts);
}

}  // namespace

FileFacts read_file_facts(const std::string& abs_in) {
  FileFacts f;
  const std::string abs = normalize_path(abs_in);
  struct stat st;
  if (::lstat(abs.c_str(), &st) == 0) {
    f.kind = kind_of(st.st_mode);
    if (f.kind == Kind::kSymlink) {
      char buf[PATH_MAX];
      ssize_t n = ::readlink(abs.c_str(), buf, sizeof buf - 1);
      if (n >= 0) f.link_target.assign(buf, static_cast<size_t>(n));
    }
  } else if (errno != ENOENT && errno != ENOTDIR) {
    f.err = errno;
    return f;
  }
  // Follow the links component by component, so that a dangling one is told apart from a path
  // that simply does not exist yet, and where it points is known (FILE-3 names it).
  std::vector<std::string> parts = components(abs);
  std::string cur = "/";
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string next = path_join(cur, parts[i]);
    struct stat ls;
    if (::lstat(next.c_str(), &ls) < 0) {
      if (errno != ENOENT && errno != ENOTDIR) {
        f.err = errno;
        return f;
      }
      for (size_t j = i; j < parts.size(); ++j) cur = path_join(cur, parts[j]);
      break;
    }
    if (!S_ISLNK(ls.st_mode)) {
      cur = next;
      continue;
    }
    if (char* r = ::realpath(next.c_str(), nullptr)) {
      cur = r;
      std::free(r);
      continue;
    }
    // A link to nothing (or a loop): where it points, as far as that can be told.
    f.dangling = true;
    char buf[PATH_MAX];
    ssize_t n = ::readlink(next.c_str(), buf, sizeof buf - 1);
    std::string target = n >= 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
    cur = real_or_lexical(path_join(cur, target));
    for (size_t j = i + 1; j < parts.size(); ++j) cur = path_join(cur, parts[j]);
    break;
  }
  f.real = cur;
  struct stat rs;
  if (::stat(f.real.c_str(), &rs) == 0) {
    f.real_kind = kind_of(rs.st_mode);
    f.size = static_cast<uint64_t>(rs.st_size);
    f.dev = rs.st_dev;
    f.ino = rs.st_ino;
  } else if (errno != ENOENT && errno != ENOTDIR) {
    f.err = errno;
    return f;
  }
  // FILE-6: what each folder the write could make a git folder already holds.
  for (const auto& folder : git_shape_folders(f.real)) {
    GitShape g;
    g.folder = folder;
    struct stat gs;
    g.head = ::lstat(path_join(folder, "HEAD").c_str(), &gs) == 0;
    g.objects = ::stat(path_join(folder, "objects").c_str(), &gs) == 0 && S_ISDIR(gs.st_mode);
    g.refs = ::stat(path_join(folder, "refs").c_str(), &gs) == 0 && S_ISDIR(gs.st_mode);
    f.git_shapes.push_back(std::move(g));
  }
  // The filesystem of the path, or of its nearest existing folder for a path to be created.
  for (std::string p = f.real;; p = path_parent(p)) {
    if (std::optional<bool> kernel = path_on_kernel_fs(p)) {
      f.kernel_fs = *kernel;
      break;
    }
    if (p == "/") break;
  }
  return f;
}

Result<Reply<ReadFileResult>> read_file(const FileContext& ctx, const ReadFileRequest& req) {
  FileFacts facts;
  FileDecision d = judge(ctx, FileTool::kRead, req.path, req.approved, facts);
  if (d.verdict == Verdict::kRefuse) return d.error;
  if (d.verdict == Verdict::kAsk) return asked<ReadFileResult>(d.ask);
  struct stat st;
  auto fd = open_target(d.target, req.path, facts, st);
  if (!fd) return fd.error();
  auto data = read_capped(fd->get(), req.path, d.target, static_cast<uint64_t>(st.st_size));
  if (!data) return data.error();
  if (looks_binary(*data))
    return make_error(ErrorKind::kInvalid,
                      fmt::format("{} looks like a binary file (it holds NUL bytes); read_file "
                                  "returns text only",
                                  req.path),
                      d.target);
  Reply<ReadFileResult> r;
  ReadFileResult& out = r.value;
  out.path = d.target;
  out.size = data->size();
  LineSlice s = slice_lines(*data, req.offset, req.limit);
  out.content = std::string(s.text);
  out.first_line = s.first_line;
  out.line_count = s.line_count;
  out.total_lines = s.total_lines;
  out.more = s.more;
  out.invalid_utf8 = make_valid_utf8(out.content);
  return r;
}

Result<Reply<WriteFileResult>> write_file(const FileContext& ctx, const WriteFileRequest& req) {
  FileFacts facts;
  FileDecision d = judge(ctx, FileTool::kWrite, req.path, req.approved, facts);
  if (d.verdict == Verdict::kRefuse) return d.error;
  if (d.verdict == Verdict::kAsk) return asked<WriteFileResult>(d.ask);
  // Folders are made only where a sandboxed command could make them too.
  bool create_dirs = in_writable_place(ctx, d.target);
  auto done = replace_atomically(d.target, req.content, std::nullopt, create_dirs, req.path);
  if (!done) return done.error();
  Reply<WriteFileResult> r;
  r.value.path = d.target;
  r.value.bytes = req.content.size();
  r.value.created = done->created;
  r.value.created_dirs = std::move(done->created_dirs);
  return r;
}

Result<Reply<EditFileResult>> edit_file(const FileContext& ctx, const EditFileRequest& req) {
  FileFacts facts;
  FileDecision d = judge(ctx, FileTool::kEdit, req.path, req.approved, facts);
  if (d.verdict == Verdict::kRefuse) return d.error;
  if (d.verdict == Verdict::kAsk) return asked<EditFileResult>(d.ask);
  struct stat st;
  auto fd = open_target(d.target, req.path, facts, st);
  if (!fd) return fd.error();
  auto data = read_capped(fd->get(), req.path, d.target, static_cast<uint64_t>(st.st_size));
  if (!data) return data.error();
  // The identity is taken after the read: a write that raced the read changes mtime or size.
  if (::fstat(fd->get(), &st) < 0) return open_error(errno, req.path, d.target);
  auto rep = replace_exact(*data, req.old_text, req.new_text, req.replace_all, req.path);
  if (!rep) return rep.error();
  Identity id{st.st_dev, st.st_ino, st.st_size, stat_mtime(st)};
  auto done = replace_atomically(d.target, rep->text, id, false, req.path);
  if (!done) return done.error();
  Reply<EditFileResult> r;
  r.value.path = d.target;
  r.value.replacements = rep->count;
  return r;
}

namespace {

// The walk of one search: never follows a link (every folder and file is opened relative to
// its parent with O_NOFOLLOW), never opens anything but folders and regular files.
class SearchWalk {
 public:
  SearchWalk(const FileContext& ctx, const SearchRequest& req, const LineMatcher& m,
             SearchResult& out)
      : ctx_(ctx), req_(req), m_(m), out_(out) {
    cap_ = req.max_results == 0 ? SearchRequest{}.max_results
                                : std::min(req.max_results, kSearchMaxResults);
  }

  void file(int dirfd, const std::string& name, const std::string& abs, bool secret) {
    if (stop_) return;
    if (!req_.glob.empty() && !glob_match(req_.glob, name)) return;
    // FILE-4: credential files are never opened by search.
    if (secret || is_credential_name(name)) {
      ++out_.credential_files_skipped;
      return;
    }
    struct stat st = {};
    auto fd = open_regular_at(dirfd, name, abs, abs, nullptr, st);
    if (!fd) {
      if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > kFileToolMaxBytes)
        ++out_.large_files_skipped;  // FILE-2, refused before it was opened
      else
        ++out_.unreadable_skipped;
      return;
    }
    auto data = read_capped(fd->get(), abs, abs, static_cast<uint64_t>(st.st_size));
    if (!data) {
      if (data.error().code == ErrorKind::kRefused)
        ++out_.large_files_skipped;  // it grew past the limit while being read
      else
        ++out_.unreadable_skipped;
      return;
    }
    if (looks_binary(std::string_view(*data).substr(0, 8192))) {
      ++out_.binary_files_skipped;
      return;
    }
    ++out_.files_searched;
    std::string shown = path_within(abs, ctx_.project) && abs != ctx_.project
                            ? path_relative(abs, ctx_.project)
                            : abs;
    match_lines(m_, *data, shown, cap_ + 1, out_.matches);
    if (out_.matches.size() > cap_) {
      out_.matches.resize(cap_);
      halt(fmt::format("stopped at max_results ({})", cap_));
    }
  }

  void folder(int dirfd, const std::string& abs, bool secret, size_t depth) {
    if (stop_) return;
    if (depth > 256) {
      ++out_.unreadable_skipped;
      return;
    }
    struct Entry {
      std::string name;
      unsigned char type;
    };
    std::vector<Entry> entries;
    {
      int dup_fd = ::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      DIR* d = dup_fd >= 0 ? ::fdopendir(dup_fd) : nullptr;
      if (!d) {
        if (dup_fd >= 0) ::close(dup_fd);
        ++out_.unreadable_skipped;
        return;
      }
      while (dirent* e = ::readdir(d)) {
        std::string n = e->d_name;
        if (n == "." || n == "..") continue;
        entries.push_back({std::move(n), e->d_type});
      }
      ::closedir(d);
    }
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.name < b.name; });
    for (auto& e : entries) {
      if (stop_) return;
      if (++seen_ > kSearchMaxEntries) {
        halt(fmt::format("stopped after {} entries; search a smaller folder", kSearchMaxEntries));
        return;
      }
      std::string child = path_join(abs, e.name);
      unsigned char type = e.type;
      if (type == DT_UNKNOWN) {
        struct stat st;
        if (::fstatat(dirfd, e.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) < 0) continue;
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
      }
      if (type == DT_LNK) continue;  // never followed
      if (hidden_match(ctx_, child)) {
        ++out_.hidden_paths_skipped;  // FS-4: hidden inside the project too (FS-7)
        continue;
      }
      if (type == DT_REG) {
        file(dirfd, e.name, child, secret);
        continue;
      }
      if (type != DT_DIR) continue;  // FIFOs, sockets, devices: never opened (FILE-1)
      if (in_proc_or_sys(child) || (!secret && is_heavy_folder(e.name))) continue;
      Fd sub(::openat(dirfd, e.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!sub.ok()) {
        ++out_.unreadable_skipped;
        continue;
      }
      if (on_kernel_fs(sub.get())) continue;  // FILE-1
      struct stat tag;
      if (!secret &&
          ::fstatat(sub.get(), std::string(kCacheTagFile).c_str(), &tag, AT_SYMLINK_NOFOLLOW) == 0)
        continue;
      folder(sub.get(), child, secret || e.name == ".secrets", depth + 1);
    }
  }

 private:
  void halt(std::string why) {
    stop_ = true;
    out_.truncated = true;
    out_.truncated_reason = std::move(why);
  }

  const FileContext& ctx_;
  const SearchRequest& req_;
  const LineMatcher& m_;
  SearchResult& out_;
  size_t cap_ = 0;
  size_t seen_ = 0;
  bool stop_ = false;
};

}  // namespace

Result<SearchResult> search(const FileContext& ctx, const SearchRequest& req) {
  const std::string path = req.path.empty() ? ctx.project : req.path;
  FileFacts facts;
  FileDecision d = judge(ctx, FileTool::kSearch, path, std::nullopt, facts);
  if (d.verdict == Verdict::kRefuse) return d.error;
  if (d.verdict == Verdict::kAsk)  // the rules never ask for search; stay strict if they do
    return make_error(ErrorKind::kRefused,
                      fmt::format("refused: search would need approval: {}", d.ask.reason),
                      d.target);
  auto m = LineMatcher::compile(req.pattern, req.fixed_string, req.ignore_case);
  if (!m) return m.error();
  SearchResult out;
  SearchWalk walk(ctx, req, **m, out);
  const bool secret = has_secrets_component(d.target);
  if (facts.real_kind == Kind::kFile) {
    Fd dir = open_dir_no_links(path_parent(d.target), kOpenPathOnly);
    if (!dir.ok()) return open_error(errno, path, d.target);
    walk.file(dir.get(), path_base(d.target), d.target, secret);
    return out;
  }
  Fd dir = open_dir_no_links(d.target, O_RDONLY);
  if (!dir.ok()) return open_error(errno, path, d.target);
  walk.folder(dir.get(), d.target, secret, 0);
  return out;
}

}  // namespace cordon::files
