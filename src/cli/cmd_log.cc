// AUD-1: `cordon log` and `cordon log verify`, on the audit log a session writes
// (session/audit_log.h).
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "audit/audit_chain.h"
#include "audit/audit_text.h"
#include "audit/audit_time.h"
#include "cli/commands.h"
#include "core/duration.h"
#include "session/audit_log.h"

namespace cordon {

namespace {

constexpr int kExitLogProblem = 1;

// The session whose log is meant: --session, CORDON_SESSION, else the one written last.
std::string log_session(const CliContext& ctx, const LogArgs& args, const std::string& dir) {
  if (!args.session.empty()) return args.session;
  if (auto s = ctx.env.get("CORDON_SESSION"); s && !s->empty()) return *s;
  std::vector<std::string> all = audit_sessions(dir);
  return all.empty() ? "" : all.back();
}

// --since as milliseconds since the epoch: a time or a date (UTC), or a duration ago.
std::optional<int64_t> since_ms(const std::string& text) {
  if (auto t = parse_iso_time(text)) return t;
  if (auto d = parse_duration(text)) {
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::system_clock::now().time_since_epoch());
    return (now - *d).count();
  }
  return std::nullopt;
}

int verify(const std::string& session, const std::vector<AuditFile>& files,
           const std::optional<ChainHead>& head) {
  VerifyReport r = verify_chain(files, head);
  if (!r.ok()) {
    print_error(
        fmt::format("the audit log of session {} was changed: {}. Keep a copy of it as it "
                    "is; nothing in it can be trusted past that point.",
                    session, r.problem));
    return kExitLogProblem;
  }
  std::printf("the audit log of session %s is intact: %llu events in %zu file%s%s\n",
              session.c_str(), static_cast<unsigned long long>(r.lines), files.size(),
              files.size() == 1 ? "" : "s",
              head ? "" : " (no recorded end to compare its last event with)");
  return 0;
}

int show(const std::vector<AuditFile>& files, bool json, std::optional<int64_t> since) {
  for (const auto& f : files) {
    std::istringstream in(f.text);
    std::string line;
    while (std::getline(in, line)) {
      nlohmann::json e = nlohmann::json::parse(line, nullptr, false);
      if (since) {
        auto t = e.is_object() ? parse_iso_time(e.value("time", std::string())) : std::nullopt;
        if (t && *t < *since) continue;
      }
      if (json || !e.is_object())
        std::printf("%s\n", line.c_str());
      else
        std::printf("%s\n", readable_event(e).c_str());
    }
  }
  return 0;
}

}  // namespace

int cmd_log(const CliContext& ctx, const LogArgs& args) {
  const std::string dir = audit_dir(ctx.folders);
  const std::string session = log_session(ctx, args, dir);
  if (session.empty()) {
    print_error(
        fmt::format("there is no audit log yet in {}: a session writes one as soon as it "
                    "runs a command.",
                    dir));
    return kExitLogProblem;
  }
  if (session.find('/') != std::string::npos || session.rfind('.', 0) == 0) {
    print_error(
        fmt::format("\"{}\" is not a session id: give the id `cordon session list` "
                    "shows.",
                    session));
    return kExitRefused;
  }
  auto files = read_audit_files(dir, session);
  if (!files.ok()) {
    print_error(fmt::format("cannot read the audit log: {}", files.error().message));
    return kExitLogProblem;
  }
  const std::optional<ChainHead> head = read_audit_head(dir, session);
  if (files->empty() && !head) {
    print_error(
        fmt::format("session {} has no audit log in {}. `cordon log` without --session "
                    "shows the one written last.",
                    session, dir));
    return kExitLogProblem;
  }
  if (args.verify) return verify(session, *files, head);
  std::optional<int64_t> since;
  if (!args.since.empty()) {
    since = since_ms(args.since);
    if (!since) {
      print_error(
          fmt::format("--since {}: give a UTC time (2026-12-06T04:00:00Z, 2026-12-06) or "
                      "a duration ago (30m, 2h).",
                      args.since));
      return kExitRefused;
    }
  }
  return show(*files, args.json, since);
}

}  // namespace cordon
