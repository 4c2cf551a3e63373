// Small filesystem helpers for cordon's own folders (never used on a user's files to delete).
#pragma once

#include <string>
#include <sys/types.h>

#include "core/result.h"

namespace cordon {

// mkdir -p with `mode` for the folders it creates.
Status make_dirs(const std::string& path, mode_t mode);
// Writes to a temporary file beside `path`, optionally fsyncs it, then renames it over `path`,
// so a crash never leaves a half-written file.
Status write_file_atomic(const std::string& path, const std::string& data, bool sync,
                         mode_t mode = 0600);
// Like write_file_atomic, but fails with EEXIST instead of replacing an existing `path`.
Status write_file_exclusive(const std::string& path, const std::string& data, mode_t mode = 0600);
// Writes all of `data` to `fd` (retrying on EINTR); 0, or the errno of the failed write.
int write_fully(int fd, const char* data, size_t n);
// Moves a descriptor to 10 or above, close-on-exec (the old one is closed), so that the small
// numbers handed to a child stay free; -1 stays -1, and -1 when it cannot be moved.
int high_fd(int fd);
// A regular file's text (following links); a FIFO, device or folder is refused (EINVAL) without
// waiting on it.
Result<std::string> read_file(const std::string& path, size_t max_bytes = 64 << 20);
// The same, refusing a symlink as the last component (ELOOP): for files a command may have made.
Result<std::string> read_file_nofollow(const std::string& path, size_t max_bytes = 64 << 20);
// Removes a folder tree that cordon made (its private /tmp), without following links.
Status remove_tree(const std::string& path);
// 16 lowercase hex characters from the kernel's random source.
std::string random_hex16();

}  // namespace cordon
