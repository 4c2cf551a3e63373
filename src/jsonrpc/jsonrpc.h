// JSON-RPC 2.0 over lines (SRV-1, SRV-3): framing, reading one message, writing one. Pure: no
// descriptors, no threads; the faces feed bytes in and write the lines out.
//
//   LineFramer framer;
//   std::vector<LineFramer::Line> lines;
//   framer.feed(bytes, lines);                    // whatever read() returned
//   for (auto& l : lines) {
//     Message m = parse_message(l);               // a line over 16 MiB is an error reply
//     if (m.kind == Message::Kind::kInvalid) write(to_line(m.reply));
//   }
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cordon/result.h"

namespace cordon::rpc {

using json = nlohmann::json;

// SRV-3: a line past this is refused (its bytes are dropped up to its end).
inline constexpr size_t kMaxLineBytes = size_t{16} << 20;
// Deeper nesting is refused before parsing: the library's own copies and comparisons of a
// value recurse once per level, and a line of 16 MiB of `[` would exhaust the stack.
inline constexpr int kMaxDepth = 64;

// JSON-RPC 2.0's own codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
// cordon's (SRV-1): the class of refusal; data.reason carries the stable word.
inline constexpr int kRefusedCode = -32001;
inline constexpr int kHeldCode = -32002;
inline constexpr int kUnavailableCode = -32003;

// The one mapping from a public error code to its JSON-RPC error code: kInvalid is JSON-RPC's
// invalid params, kIo goes out as unavailable (SRV-1 has no word for it).
int jsonrpc_code(ErrorCode code);

// Splits a byte stream into lines ('\n'; a '\r' before it is dropped).
class LineFramer {
 public:
  struct Line {
    std::string text;
    bool too_long = false;  // over kMaxLineBytes: `text` is empty, the bytes were dropped
  };
  explicit LineFramer(size_t max_line = kMaxLineBytes) : max_(max_line) {}
  // Appends the lines that `data` completes to `out`.
  void feed(std::string_view data, std::vector<Line>& out);
  // End of input: an unterminated last line, if any.
  std::optional<Line> finish();

 private:
  size_t max_;
  std::string buf_;
  bool skipping_ = false;  // inside a line that is too long, until its '\n'
};

struct Message {
  enum class Kind {
    kRequest,       // method and id: answer it
    kNotification,  // method, no id: never answered
    kResponse,      // result or error, and the id of one of our own requests
    kInvalid,       // send `reply`
    kEmpty,         // a blank line: ignored
  };
  Kind kind = Kind::kInvalid;
  json id;  // request or response id: a string, a number, or null
  std::string method;
  json params;                // an object or array; null when absent
  json result;                // a response's result
  std::optional<json> error;  // a response's error object
  json reply;                 // kInvalid: the error response to send
};

// Reads one line. Never throws: anything malformed is kInvalid with its error reply (parse
// error, invalid request, or a line too long). A JSON array (a batch) is refused: one object
// per line (SRV-1).
Message parse_message(std::string_view line);
Message too_long_message();

json make_response(const json& id, json result);
// {"jsonrpc":"2.0","id":id,"error":{"code","message","data":{"reason"}}}; `reason` empty: no
// data.
json make_error_reply(const json& id, int code, std::string_view message,
                      std::string_view reason = "");
json make_request(const json& id, std::string_view method, json params);
json make_notification(std::string_view method, json params);

// One line: compact JSON, bytes that are not UTF-8 replaced by U+FFFD, and '\n'.
std::string to_line(const json& message);

// Reads typed members of a params object, collecting the first problem as a message for the
// caller (an agent): "`timeout_ms` must be a positive integer".
class Params {
 public:
  explicit Params(const json& params);
  bool ok() const { return problem_.empty(); }
  const std::string& problem() const { return problem_; }

  // A string. Paths, words and commands may not hold a NUL byte (the system would cut them
  // there); data (a file's content, a command's input) may, with `data`.
  std::optional<std::string> str(const char* key, bool required = false, bool data = false);
  std::optional<bool> boolean(const char* key);
  // A non-negative integer up to `max`.
  std::optional<uint64_t> count(const char* key, uint64_t max, bool required = false);
  // An array of strings.
  std::optional<std::vector<std::string>> strings(const char* key);
  // Keys not read by now are refused, so a misspelled option never passes silently.
  void no_others();

 private:
  void fail(std::string problem);
  const json* get(const char* key);
  const json& params_;
  std::vector<std::string> seen_;
  std::string problem_;
};

}  // namespace cordon::rpc
