#include "audit/audit_chain.h"

#include <fmt/format.h>

#include "core/sha256.h"

namespace cordon {

using nlohmann::json;

std::string chain_line(json event, const ChainHead& head) {
  event["seq"] = head.seq + 1;
  event["prev"] = head.hash;
  return event.dump(-1, ' ', false, json::error_handler_t::replace);
}

ChainHead chain_next(const ChainHead& head, std::string_view line) {
  return ChainHead{head.seq + 1, sha256_hex(line)};
}

std::string head_text(const ChainHead& head) {
  return json{{"seq", head.seq}, {"hash", head.hash}}.dump();
}

std::optional<ChainHead> parse_head(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("seq") || !j.contains("hash")) return std::nullopt;
  if (!j["seq"].is_number_unsigned() || !j["hash"].is_string()) return std::nullopt;
  return ChainHead{j["seq"].get<uint64_t>(), j["hash"].get<std::string>()};
}

std::optional<ChainHead> head_of_tail(std::string_view tail) {
  if (tail.empty() || tail.back() != '\n') return std::nullopt;
  std::string_view body = tail.substr(0, tail.size() - 1);
  size_t start = body.rfind('\n');
  std::string_view line = start == std::string_view::npos ? body : body.substr(start + 1);
  json j = json::parse(line, nullptr, false);
  if (!j.is_object() || !j.contains("seq") || !j["seq"].is_number_unsigned()) return std::nullopt;
  return ChainHead{j["seq"].get<uint64_t>(), sha256_hex(line)};
}

namespace {

// Where a line is, for a person: "audit/S.jsonl line 4".
std::string where(const AuditFile& f, uint64_t n) { return fmt::format("{} line {}", f.name, n); }

// The break `line` makes after `head`, if any.
std::string check_line(const AuditFile& f, uint64_t n, std::string_view line, const ChainHead& head,
                       const std::string& before) {
  json j = json::parse(line, nullptr, false);
  if (!j.is_object() || !j.contains("seq") || !j["seq"].is_number_unsigned() ||
      !j.contains("prev") || !j["prev"].is_string())
    return fmt::format("{} is not an audit event any more: it was edited", where(f, n));
  const uint64_t seq = j["seq"].get<uint64_t>();
  if (seq > head.seq + 1)
    return fmt::format("{} events are missing before {} (events {} to {} were deleted)",
                       seq - head.seq - 1, where(f, n), head.seq + 1, seq - 1);
  if (seq < head.seq + 1)
    return fmt::format("{} is event {} again, or out of order: lines were copied or moved",
                       where(f, n), seq);
  if (j["prev"].get<std::string>() != head.hash)
    return fmt::format("{} was edited: the next event records another hash for it", before);
  return "";
}

// The end of the chain read, checked against the recorded head.
std::string check_end(const VerifyReport& r, const ChainHead& recorded, const std::string& last) {
  if (r.head.seq < recorded.seq)
    return fmt::format(
        "the log ends at event {} but the session recorded {} events: the last "
        "{} were removed (the log was truncated)",
        r.head.seq, recorded.seq, recorded.seq - r.head.seq);
  if (r.head.seq > recorded.seq)
    return fmt::format(
        "the log holds {} events but the session recorded {}: events were added "
        "after the last one cordon wrote",
        r.head.seq, recorded.seq);
  if (r.head.hash != recorded.hash)
    return fmt::format("{} was edited: it is not the last event the session recorded", last);
  return "";
}

}  // namespace

VerifyReport verify_chain(const std::vector<AuditFile>& files,
                          const std::optional<ChainHead>& recorded) {
  VerifyReport r;
  std::string before = "the start of the log";
  for (const auto& f : files) {
    size_t at = 0;
    uint64_t n = 0;
    while (at < f.text.size()) {
      ++n;
      size_t nl = f.text.find('\n', at);
      if (nl == std::string::npos) {
        r.problem = fmt::format(
            "{} is cut off (it has no end of line): the log was truncated or "
            "edited",
            where(f, n));
        return r;
      }
      std::string_view line(f.text.data() + at, nl - at);
      r.problem = check_line(f, n, line, r.head, before);
      if (!r.ok()) return r;
      r.head = chain_next(r.head, line);
      r.lines = r.head.seq;
      before = where(f, n);
      at = nl + 1;
    }
  }
  if (recorded) r.problem = check_end(r, *recorded, before);
  return r;
}

}  // namespace cordon
