#include "jsonrpc/jsonrpc.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/strings.h"

namespace cordon::rpc {

namespace {

// The deepest nesting of arrays and objects in `text`, outside strings; stops counting past
// kMaxDepth.
int nesting(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > kMaxDepth) return deepest;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

// Parses `line`, noting the first key that appears twice in one object (at any depth). nlohmann
// keeps the last of duplicate keys, so a client's view of a message (often the first) and what
// runs could differ: such a message is refused (issue 13).
struct DuplicateCheck {
  std::vector<std::vector<std::string>> open;  // keys seen in each open object (empty for arrays)
  std::optional<std::string> duplicate;
  bool top_level_id_duplicated = false;
};

json parse_checking_keys(std::string_view line, DuplicateCheck& dc) {
  json::parser_callback_t cb = [&dc](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        dc.open.emplace_back();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!dc.open.empty()) dc.open.pop_back();
        break;
      case json::parse_event_t::key: {
        if (dc.open.empty() || !parsed.is_string()) break;
        const std::string& k = parsed.get_ref<const std::string&>();
        auto& keys = dc.open.back();
        if (std::find(keys.begin(), keys.end(), k) != keys.end()) {
          if (!dc.duplicate) dc.duplicate = k;
          if (depth == 1 && k == "id") dc.top_level_id_duplicated = true;
        } else {
          keys.push_back(k);
        }
        break;
      }
      case json::parse_event_t::value:
        break;
    }
    return true;
  };
  return json::parse(line.begin(), line.end(), cb, /*allow_exceptions=*/false);
}

Message invalid(json reply) {
  Message m;
  m.kind = Message::Kind::kInvalid;
  m.reply = std::move(reply);
  return m;
}

bool valid_id(const json& id) { return id.is_string() || id.is_number() || id.is_null(); }

const char* type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::string:
      return "a string";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    case json::value_t::number_float:
      return "a fractional number";
    default:
      return "a number";
  }
}

}  // namespace

int jsonrpc_code(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalid:
      return kInvalidParams;
    case ErrorCode::kHeld:
      return kHeldCode;
    case ErrorCode::kUnavailable:
    case ErrorCode::kIo:
      return kUnavailableCode;
    case ErrorCode::kRefused:
      break;
  }
  return kRefusedCode;
}

void LineFramer::feed(std::string_view data, std::vector<Line>& out) {
  while (!data.empty()) {
    size_t nl = data.find('\n');
    std::string_view part = data.substr(0, nl);
    if (skipping_) {
      if (nl == std::string_view::npos) return;
      skipping_ = false;
      data.remove_prefix(nl + 1);
      continue;
    }
    if (buf_.size() + part.size() > max_) {
      // SRV-3: the line is too long; say so once, when it starts being too long, and drop it
      // to its end without keeping it.
      buf_.clear();
      buf_.shrink_to_fit();
      out.push_back(Line{"", true});
      if (nl == std::string_view::npos) {
        skipping_ = true;
        return;
      }
      data.remove_prefix(nl + 1);
      continue;
    }
    buf_.append(part);
    if (nl == std::string_view::npos) return;
    if (!buf_.empty() && buf_.back() == '\r') buf_.pop_back();
    out.push_back(Line{std::move(buf_), false});
    buf_.clear();
    data.remove_prefix(nl + 1);
  }
}

std::optional<LineFramer::Line> LineFramer::finish() {
  if (skipping_ || buf_.empty()) {
    skipping_ = false;
    buf_.clear();
    return std::nullopt;
  }
  Line l{std::move(buf_), false};
  buf_.clear();
  return l;
}

Message too_long_message() {
  return invalid(
      make_error_reply(nullptr, kInvalidRequest,
                       fmt::format("the message is longer than {} bytes; it was "  // SRV-3
                                   "dropped. Pass large data through a file.",
                                   kMaxLineBytes),
                       "invalid"));
}

Message parse_message(std::string_view line) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
    Message m;
    m.kind = Message::Kind::kEmpty;
    return m;
  }
  if (line.size() > kMaxLineBytes) return too_long_message();
  if (nesting(line) > kMaxDepth)
    return invalid(
        make_error_reply(nullptr, kParseError,
                         fmt::format("the message nests arrays and objects deeper than {} "
                                     "levels; it was not read.",
                                     kMaxDepth),
                         "invalid"));
  DuplicateCheck dc;
  json j = parse_checking_keys(line, dc);
  if (j.is_discarded())
    return invalid(
        make_error_reply(nullptr, kParseError,
                         "the line is not valid JSON (or not UTF-8); send one JSON-RPC 2.0 "
                         "object per line.",
                         "invalid"));
  if (j.is_array())
    return invalid(make_error_reply(nullptr, kInvalidRequest,
                                    "batches are not supported: send one JSON-RPC object per line.",
                                    "invalid"));
  if (!j.is_object())
    return invalid(make_error_reply(
        nullptr, kInvalidRequest,
        fmt::format("a message must be a JSON object, not {}.", type_name(j)), "invalid"));
  if (dc.duplicate) {
    json dup_id = nullptr;
    if (!dc.top_level_id_duplicated && j.contains("id") && valid_id(j["id"])) dup_id = j["id"];
    return invalid(make_error_reply(
        dup_id, kInvalidRequest,
        fmt::format("the key \"{}\" appears twice in one object; a message with duplicate keys "
                    "is not run, because readers disagree on which one counts. Send each key "
                    "once.",
                    printable(dc.duplicate->substr(0, 64))),
        "invalid"));
  }
  json id = nullptr;
  const bool has_id = j.contains("id");
  if (has_id) {
    if (!valid_id(j["id"]))
      return invalid(make_error_reply(
          nullptr, kInvalidRequest,
          fmt::format("`id` must be a string or a number, not {}.", type_name(j["id"])),
          "invalid"));
    id = j["id"];
  }
  auto version = j.find("jsonrpc");
  if (version == j.end() || !version->is_string() || *version != "2.0")
    return invalid(make_error_reply(id, kInvalidRequest, "`jsonrpc` must be \"2.0\".", "invalid"));
  Message m;
  m.id = id;
  auto method = j.find("method");
  if (method != j.end()) {
    if (!method->is_string())
      return invalid(make_error_reply(
          id, kInvalidRequest,
          fmt::format("`method` must be a string, not {}.", type_name(*method)), "invalid"));
    m.method = method->get<std::string>();
    auto params = j.find("params");
    if (params != j.end()) {
      if (!params->is_object() && !params->is_array())
        return invalid(make_error_reply(
            id, kInvalidRequest,
            fmt::format("`params` must be an object, not {}.", type_name(*params)), "invalid"));
      m.params = std::move(*params);
    }
    m.kind = has_id ? Message::Kind::kRequest : Message::Kind::kNotification;
    return m;
  }
  auto result = j.find("result");
  auto error = j.find("error");
  if (has_id && (result != j.end()) != (error != j.end())) {
    m.kind = Message::Kind::kResponse;
    if (result != j.end()) {
      m.result = std::move(*result);
    } else {
      if (!error->is_object())
        return invalid(make_error_reply(nullptr, kInvalidRequest,
                                        "a response's `error` must be an object.", "invalid"));
      m.error = std::move(*error);
    }
    return m;
  }
  return invalid(
      make_error_reply(id, kInvalidRequest,
                       "a message needs a `method` (a request or notification) or exactly "
                       "one of `result` and `error` with an `id` (a response).",
                       "invalid"));
}

json make_response(const json& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json make_error_reply(const json& id, int code, std::string_view message, std::string_view reason) {
  json err{{"code", code}, {"message", std::string(message)}};
  if (!reason.empty()) err["data"] = {{"reason", std::string(reason)}};
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(err)}};
}

json make_request(const json& id, std::string_view method, json params) {
  return json{{"jsonrpc", "2.0"},
              {"id", id},
              {"method", std::string(method)},
              {"params", std::move(params)}};
}

json make_notification(std::string_view method, json params) {
  return json{{"jsonrpc", "2.0"}, {"method", std::string(method)}, {"params", std::move(params)}};
}

std::string to_line(const json& message) {
  std::string s = message.dump(-1, ' ', false, json::error_handler_t::replace);
  s += '\n';
  return s;
}

Params::Params(const json& params) : params_(params) {
  if (!params_.is_null() && !params_.is_object())
    fail(fmt::format("`params` must be an object, not {}.", type_name(params_)));
}

void Params::fail(std::string problem) {
  if (problem_.empty()) problem_ = std::move(problem);
}

const json* Params::get(const char* key) {
  seen_.emplace_back(key);
  if (!params_.is_object()) return nullptr;
  auto it = params_.find(key);
  if (it == params_.end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<std::string> Params::str(const char* key, bool required, bool data) {
  const json* v = get(key);
  if (!v) {
    if (required) fail(fmt::format("`{}` is required (a string).", key));
    return std::nullopt;
  }
  if (!v->is_string()) {
    fail(fmt::format("`{}` must be a string, not {}.", key, type_name(*v)));
    return std::nullopt;
  }
  std::string s = v->get<std::string>();
  if (!data && s.find('\0') != std::string::npos) {
    fail(fmt::format("`{}` holds a NUL character.", key));
    return std::nullopt;
  }
  return s;
}

std::optional<bool> Params::boolean(const char* key) {
  const json* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) {
    fail(fmt::format("`{}` must be true or false, not {}.", key, type_name(*v)));
    return std::nullopt;
  }
  return v->get<bool>();
}

std::optional<uint64_t> Params::count(const char* key, uint64_t max, bool required) {
  const json* v = get(key);
  if (!v) {
    if (required) fail(fmt::format("`{}` is required (an integer).", key));
    return std::nullopt;
  }
  if (v->is_number_unsigned() || (v->is_number_integer() && v->get<int64_t>() >= 0)) {
    uint64_t n = v->get<uint64_t>();
    if (n <= max) return n;
  } else if (v->is_number_float()) {
    double d = v->get<double>();
    if (d >= 0 && d <= static_cast<double>(max) &&
        d == static_cast<double>(static_cast<uint64_t>(d)))
      return static_cast<uint64_t>(d);
  }
  fail(fmt::format("`{}` must be an integer from 0 to {}.", key, max));
  return std::nullopt;
}

std::optional<std::vector<std::string>> Params::strings(const char* key) {
  const json* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_array()) {
    fail(fmt::format("`{}` must be an array of strings, not {}.", key, type_name(*v)));
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (const auto& e : *v) {
    if (!e.is_string()) {
      fail(fmt::format("`{}` must hold only strings; it holds {}.", key, type_name(e)));
      return std::nullopt;
    }
    out.push_back(e.get<std::string>());
    if (out.back().find('\0') != std::string::npos) {
      fail(fmt::format("`{}` holds a NUL character.", key));
      return std::nullopt;
    }
  }
  return out;
}

void Params::no_others() {
  if (!params_.is_object()) return;
  for (auto it = params_.begin(); it != params_.end(); ++it)
    if (std::find(seen_.begin(), seen_.end(), it.key()) == seen_.end()) {
      fail(fmt::format("unknown parameter `{}`.", it.key()));
      return;
    }
}

}  // namespace cordon::rpc
