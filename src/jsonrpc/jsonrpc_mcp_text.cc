#include "jsonrpc/jsonrpc_mcp_text.h"

#include <fmt/format.h>

namespace cordon::rpc {

namespace {

// A command's two streams as the model reads them: stdout, then stderr under a heading.
std::string streams_text(const json& r) {
  std::string out;
  const std::string so = r.value("stdout", ""), se = r.value("stderr", "");
  out += so;
  if (!so.empty() && so.back() != '\n') out += '\n';
  if (r.value("stdout_truncated", false)) out += "[stdout cut at 1 MiB]\n";
  if (!se.empty()) {
    out += "[stderr]\n" + se;
    if (se.back() != '\n') out += '\n';
  }
  if (r.value("stderr_truncated", false)) out += "[stderr cut at 1 MiB]\n";
  return out;
}

std::string kill_line(const std::string& id, bool killed, bool running) {
  if (!killed) return fmt::format("[job {} had ended already]\n", id);
  if (running) return fmt::format("[job {} was sent KILL and is ending]\n", id);
  return fmt::format("[job {} ended by kill_bash]\n", id);
}

}  // namespace

// AUD-2: one line each, at the end: what was refused, the rule, the fix.
std::string violations_text(const json& r) {
  std::string out;
  if (!r.contains("violations")) return out;
  for (const auto& v : r["violations"]) {
    std::string what = v.value("path", "");
    if (what.empty()) what = v.value("host", "");
    out += fmt::format("\n[violation] {}{}{}: {}. Fix: {}.{}", v.value("kind", ""),
                       what.empty() ? "" : " ", what, v.value("rule", ""), v.value("fix", ""),
                       v.value("source", "") == "output" ? " (read from the output)" : "");
  }
  return out;
}

std::string exec_text(const json& r) {
  std::string out = streams_text(r);
  if (r.value("timed_out", false)) out += "[timed out]\n";
  if (r.value("withheld", false)) out += "[result withheld]\n";
  out += fmt::format("[exit code {}]", r.value("exit_code", -1));
  for (const auto& n : r["notes"]) out += "\n[note] " + n.get<std::string>();
  for (const auto& q : r["quarantined"])
    out += fmt::format("\n[moved aside] {} -> {}", q.value("from", ""), q.value("to", ""));
  out += violations_text(r);
  return out;
}

std::string read_text(const json& r) {
  std::string out = r.value("content", "");
  if (r.value("more", false))
    out += fmt::format(
        "\n[lines {}-{} of {}; more follow: call again with offset {}]", r.value("first_line", 1),
        r.value("first_line", 1) + r.value("line_count", 0) - 1, r.value("total_lines", 0),
        r.value("first_line", 1) + r.value("line_count", 0));
  return out;
}

std::string search_text(const json& r) {
  std::string out;
  for (const auto& m : r["matches"])
    out += fmt::format("{}:{}:{}\n", m.value("path", ""), m.value("line", 0), m.value("text", ""));
  if (r["matches"].empty()) out += "no matches\n";
  out += fmt::format("[{} files searched", r.value("files_searched", 0));
  for (const char* k : {"credential_files_skipped", "large_files_skipped", "binary_files_skipped",
                        "hidden_paths_skipped", "unreadable_skipped"})
    if (r.value(k, 0) > 0) out += fmt::format("; {} {}", r.value(k, 0), k);
  out += "]";
  if (r.value("truncated", false)) out += "\n[truncated: " + r.value("truncated_reason", "") + "]";
  return out;
}

std::string started_text(const json& r) {
  return fmt::format(
      "Started in the background as job {0}; read its output with bash_output (job \"{0}\"), "
      "end it with kill_bash.",
      r.value("job", ""));
}

std::string job_text(const json& r) {
  const std::string id = r.value("job", "");
  const bool running = r.value("running", false);
  std::string out;
  if (r.contains("killed")) out += kill_line(id, r.value("killed", false), running);
  if (r.contains("written"))
    out += fmt::format("[wrote {} bytes to job {}'s input{}]\n", r.value("written", uint64_t{0}),
                       id, r.value("eof", false) ? " and closed it" : "");
  if (uint64_t dropped = r.value("dropped", uint64_t{0}); dropped > 0)
    out += fmt::format("[{} bytes of output were no longer held: skipped]\n", dropped);
  if (!running && r.contains("killed")) return out + exec_text(r);  // kill_line said it ended
  if (!running) return out + fmt::format("[job {} has ended]\n", id) + exec_text(r);
  std::string streams = streams_text(r);
  out += streams.empty() ? "[no new output]\n" : streams;
  return out + fmt::format("[job {} is still running; bash_output reads what comes next]", id);
}

}  // namespace cordon::rpc
