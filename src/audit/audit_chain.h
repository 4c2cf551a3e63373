// AUD-1: the audit log's hash chain. Each line of a session's log is one JSON object that
// carries "seq" (its number, from 1, across the rotated files) and "prev" (the SHA-256, in hex,
// of the previous line's text without its newline; 64 zeros before the first line). The
// session's last line is recorded beside the log (its head), so a cut tail shows too. Pure.
//
//   ChainHead h;                                   // an empty log
//   std::string line = chain_line({{"event", "command_start"}}, h);
//   h = chain_next(h, line);                          // h.seq == 1, h.hash == sha256_hex(line)
//   VerifyReport r = verify_chain({{"s.jsonl", line + "\n"}}, h);   // r.ok()
//
// The chain has no key: it shows a line edited, deleted or cut off, not a log rewritten whole
// with new hashes by someone who can write cordon's data folder.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cordon {

inline constexpr std::string_view kAuditGenesis =
    "0000000000000000000000000000000000000000000000000000000000000000";

// Where a chain ends: its last line's number and hash.
struct ChainHead {
  uint64_t seq = 0;
  std::string hash{kAuditGenesis};
  bool operator==(const ChainHead&) const = default;
};

// The line (no newline) that follows `head`: `event` with "seq" and "prev" set.
std::string chain_line(nlohmann::json event, const ChainHead& head);
// The head after `line`.
ChainHead chain_next(const ChainHead& head, std::string_view line);

// The head recorded beside the log, as JSON ({"seq", "hash"}), and back (nullopt: not a head).
std::string head_text(const ChainHead& head);
std::optional<ChainHead> parse_head(std::string_view text);

// The last complete line of a log's tail (text read from its end), or nullopt when it holds no
// newline-terminated line. The head is that line's: its seq, and its hash.
std::optional<ChainHead> head_of_tail(std::string_view tail);

// One file of a session's log, oldest first: its name (for the messages) and its text.
struct AuditFile {
  std::string name;
  std::string text;
};

struct VerifyReport {
  uint64_t lines = 0;   // lines read and found chained
  ChainHead head;       // where the chain read ends
  std::string problem;  // empty: the chain holds; else where it breaks, for a person
  bool ok() const { return problem.empty(); }
};

// Checks every line against the one before, and the end against the recorded head (nullopt:
// none recorded, the end is not checked).
VerifyReport verify_chain(const std::vector<AuditFile>& files,
                          const std::optional<ChainHead>& recorded);

}  // namespace cordon
