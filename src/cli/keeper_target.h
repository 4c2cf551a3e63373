// The session keeper a CLI command talks to (issue 30): `cordon run --background`, `cordon job`.
#pragma once

#include <string>

#include "cli/context.h"
#include "host/path_info.h"
#include "server/keeper_client.h"

namespace cordon {

// `session`: --session, else CORDON_SESSION; `project`: --project ("" for the session's own).
inline KeeperTarget keeper_target(const CliContext& ctx, const std::string& session,
                                  const std::string& project) {
  KeeperTarget t;
  t.folders = ctx.folders;
  t.session = session.empty() ? ctx.env.value("CORDON_SESSION") : session;
  t.project = project.empty() ? "" : real_or_lexical(project);
  t.exe = ctx.exe;
  return t;
}

}  // namespace cordon
