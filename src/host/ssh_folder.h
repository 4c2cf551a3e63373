// NET-12: the session's ssh folder, made on the host for a command when the ssh route is on:
// `<session tmp>/.cordon-ssh/` with the ssh config cordon writes, a copy of the user's
// known_hosts, and the placeholders the bwrap backend binds cordon's binary, the named keys and
// the agent socket on (the Landlock backend cannot bind: the named keys are copied there, the
// binary and the socket are used where they are).
#pragma once

#include <string>

#include "config/policy.h"
#include "core/env.h"
#include "plan/facts.h"

namespace cordon {

struct SshFolderInput {
  const Policy* policy = nullptr;
  EnvMap env;               // cordon's own (SSH_AUTH_SOCK)
  std::string home;
  std::string session_tmp;  // real, exists
  std::string cordon_exe;   // cordon's binary
  bool bwrap = true;        // bound at /tmp/.cordon-ssh; false: used where it is
};

// Writes the folder afresh (every file replaced, never followed: the command may have left
// something at those names). `problems` says what could not be given, for a person.
SshFacts prepare_ssh_folder(const SshFolderInput& in);

}  // namespace cordon
