#include "audit/audit_text.h"

#include <fmt/format.h>

#include "core/strings.h"

namespace cordon {

using nlohmann::json;

namespace {

std::string text_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("start"))
    return v["start"].get<std::string>() + fmt::format("… ({} bytes, sha256 {})",
                                                       v.value("bytes", 0),
                                                       v.value("sha256", std::string()));
  return v.dump();
}

std::string command_words(const json& e) {
  if (e.contains("script")) return "-c " + text_of(e["script"]);
  if (e.contains("argv") && e["argv"].is_array())
    return shell_join(e["argv"].get<std::vector<std::string>>());
  if (e.contains("argv")) return text_of(e["argv"]);
  return "";
}

std::string decision_words(const json& d) {
  std::string s = d.value("allowed", false) ? "allowed" : "refused";
  s += " by " + d.value("by", std::string("?"));
  if (d.contains("answers"))
    for (const auto& a : d["answers"])
      if (a.contains("risk")) s += fmt::format(" (risk {})", a["risk"].get<double>());
  if (d.contains("reason")) s += ": " + text_of(d["reason"]);
  return s;
}

// A background job's command is marked as such: "#123-4 (job 2)".
std::string command_id(const json& e) {
  std::string id = e.value("command", std::string());
  if (e.contains("job")) id += fmt::format(" (job {})", e.value("job", std::string()));
  return id;
}

std::string details(const json& e, const std::string& kind) {
  if (kind == "command_start")
    return fmt::format("#{} {} [{}, {}, {}] in {}: {}", command_id(e), command_words(e),
                       e.value("runner", ""), e.value("backend", ""),
                       e.value("mode", ""), e.value("cwd", ""),
                       decision_words(e.value("decision", json::object())));
  if (kind == "command_end") {
    std::string s =
        fmt::format("#{} exit {} ({} ms){}", command_id(e), e.value("exit", 0),
                    e.value("duration_ms", 0.0), e.value("ran", false) ? "" : ", not run");
    if (e.contains("refusal")) s += ": " + text_of(e["refusal"]);
    if (e.contains("connections"))
      for (const auto& c : e["connections"])
        s += fmt::format("; {} {}", c.value("allowed", false) ? "reached" : "refused",
                         c.value("host", std::string()));
    return s;
  }
  if (kind == "network_host")
    return fmt::format(
        "#{} {} {} by {}", e.value("command", std::string()), e.value("host", std::string()),
        e.value("allowed", false) ? "allowed" : "refused", e.value("by", std::string()));
  if (kind == "way_out")
    return fmt::format("#{} {} allowed by {}", e.value("command", std::string()),
                       e.value("way", ""), e.value("by", ""));
  if (kind == "quarantine")
    return fmt::format("#{} {} moved to {}", e.value("command", std::string()),
                       text_of(e.value("from", json(""))), text_of(e.value("to", json(""))));
  if (kind == "job_input")
    return fmt::format("job {}: {} bytes written to its input{}", e.value("job", std::string()),
                       e.value("bytes", 0), e.value("eof", false) ? ", then closed" : "");
  if (kind == "job_signal")
    return fmt::format("job {}: signal {} sent", e.value("job", std::string()),
                       e.value("signal", 0));
  if (kind == "resume") return text_of(e.value("finding", json("")));
  if (e.contains("path"))
    return fmt::format("{} {} by {}", text_of(e["path"]),
                       e.value("allowed", false) ? "allowed" : "refused",
                       e.value("by", std::string()));
  json rest = e;
  for (const char* k : {"event", "time", "session", "seq", "prev"}) rest.erase(k);
  return rest.dump();
}

}  // namespace

std::string readable_event(const json& event) {
  const std::string kind = event.value("event", std::string("?"));
  return fmt::format("{}  {:<14} {}", event.value("time", std::string()), kind,
                     details(event, kind));
}

}  // namespace cordon
