// The file tools of the server and MCP faces (FILE-1..6): read_file, write_file, edit_file and
// search, run on the host under the rules of file_rules/file_rules.h.
//
// Every tool asks the rules first and acts only on "allow". "Ask" comes back as a question and
// nothing is done: the caller (server, MCP, CLI) runs the approval (APR) and, when the person
// allows it, calls the tool again with `approved` set to the Ask it got back. The grant covers
// that kind on that path only; if the path now leads elsewhere, the tool asks again.
//
//   FileContext ctx = make_file_context(policy, facts);
//   files::ReadFileRequest req{.path = ".env"};
//   auto r = files::read_file(ctx, req);
//   if (!r) ... r.error() (code "refused", "invalid" or "io") ...
//   if (r->asked() && person_allows(*r->ask)) {
//     req.approved = *r->ask;
//     r = files::read_file(ctx, req);
//   }
//   ... r->value.content ...
//
// The tools never follow a link that appears after the check (every open walks the checked
// real path with O_NOFOLLOW), never open a FIFO or a device at all (O_PATH, fstat, then a
// reopen of that inode through /proc/self/fd; O_NONBLOCK besides), and re-check what they
// opened with fstat and fstatfs, so a path swapped for a FIFO, a device or a /proc file
// between the check and the open is refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "file_rules/file_rules.h"
#include "file_rules/search_rules.h"

namespace cordon::files {

// A tool's answer when it did not fail: its result, or a question for the user (then nothing
// was done and `value` is empty).
template <class T>
struct Reply {
  T value;
  std::optional<Ask> ask;
  bool asked() const { return ask.has_value(); }
};

// read_file. Text only: a file holding a NUL byte is refused as binary ("invalid"); other bytes
// that are not UTF-8 come back as U+FFFD, counted in `invalid_utf8`, so the text fits in JSON.
struct ReadFileRequest {
  std::string path{};
  size_t offset = 1;              // first line, 1-based (0 counts as 1)
  std::optional<size_t> limit{};  // lines; none: to the end
  std::optional<Ask> approved{};
};
// The public API's result (cordon/cordon.h): the absolute path read (links inside the project
// followed), the lines asked for (each with its '\n'), whether more follow, the file's bytes,
// the sequences replaced by U+FFFD.
using ReadFileResult = api::ReadFileResult;
Result<Reply<ReadFileResult>> read_file(const FileContext& ctx, const ReadFileRequest& req);

// write_file: replaces the file whole (any size, FILE-2), atomically: a temporary file beside
// it, renamed over it, with the old file's permission bits (and owner, when allowed). A new
// file gets 0666 less the umask. Missing parent folders are created only inside the project,
// the session's temp folder or a writable root.
struct WriteFileRequest {
  std::string path{};
  std::string content{};
  std::optional<Ask> approved{};
};
// The absolute path written, its bytes, whether it was created, the folders made for it
// (outermost first).
using WriteFileResult = api::WriteFileResult;
Result<Reply<WriteFileResult>> write_file(const FileContext& ctx, const WriteFileRequest& req);

// edit_file: exact replacement of `old_text` by `new_text`; `old_text` must occur once, or at
// least once with `replace_all`. Written back like write_file; refused if the file changed
// between the read and the write.
struct EditFileRequest {
  std::string path{};
  std::string old_text{};
  std::string new_text{};
  bool replace_all = false;
  std::optional<Ask> approved{};
};
using EditFileResult = api::EditFileResult;  // the absolute path changed, the replacements
Result<Reply<EditFileResult>> edit_file(const FileContext& ctx, const EditFileRequest& req);

// search: the lines matching a pattern in the regular files under `path` (default: the project
// root), in name order. It never asks: it skips credential files (FILE-4), files over 16 MiB
// (FILE-2), binary files (a NUL in the first 8 KiB), hidden paths (FS-4), links (never
// followed), heavy folders (is_heavy_folder(), or tagged with CACHEDIR.TAG) below `path`, and
// anything under /proc or /sys, and counts what it skipped.
// The public API's request: pattern (RE2, or text with fixed_string), path (folder or file;
// empty: the project root), glob (`*.cc`; empty: every file), max_results (capped at
// kSearchMaxResults; 0 means the default).
using SearchRequest = api::SearchRequest;
inline constexpr size_t kSearchMaxResults = 1000;
inline constexpr size_t kSearchMaxEntries = 200000;  // entries walked before it stops
// truncated: stopped at max_results or kSearchMaxEntries (truncated_reason says which);
// credential files (FILE-4) are always reported, large files (FILE-2) by the faces only when
// above 0; unreadable: files or folders that could not be opened.
using SearchResult = api::SearchResult;
Result<SearchResult> search(const FileContext& ctx, const SearchRequest& req);

// The facts the rules need about an absolute path: lstat, every link followed (a dangling one
// noted), stat and statfs of where it leads. Never opens the path.
FileFacts read_file_facts(const std::string& abs);

}  // namespace cordon::files
