// A macOS build has no NET-7 stage: the allowlist proxy's stage runs first inside a bwrap
// sandbox, in its own network namespace. This file stands in for
// src/net/linux/{command_proxy,net_stage}.cc there, so the session links unchanged.
#include <cstdio>

#include "net/linux/command_proxy.h"
#include "net/linux/net_stage.h"

namespace cordon {

namespace {

constexpr const char* kNoNetStage =
    "the allowlist proxy's network stage needs a Linux network namespace; this cordon "  // NET-7
    "was built for macOS";

}  // namespace

// The session starts the proxy for bwrap's commands only (Session::start_sandbox_early), so a
// macOS build never reaches these; if one is reached, it says why it cannot run.
Result<std::unique_ptr<CommandProxy>> CommandProxy::start(const ProcessPart&, LaunchIo&,
                                                          const NetRules&, HostAsk,
                                                          std::shared_ptr<ConnectionBudget>,
                                                          std::shared_ptr<const CredentialProxying>) {
  return make_error(ErrorKind::kUnavailable, kNoNetStage);
}

Result<std::unique_ptr<CommandProxy>> CommandProxy::start(const ProcessPart&, LaunchIo&,
                                                          const Policy&, const std::string&,
                                                          HostAsk,
                                                          std::shared_ptr<ConnectionBudget>,
                                                          std::shared_ptr<const CredentialProxying>) {
  return make_error(ErrorKind::kUnavailable, kNoNetStage);
}

// The Landlock backend's proxy (LL-1): Landlock is Linux's, so a macOS session never starts it.
Result<std::unique_ptr<CommandProxy>> CommandProxy::start_on_loopback(
    const Policy&, const std::string&, const std::string&, HostAsk,
    std::shared_ptr<ConnectionBudget>) {
  return make_error(ErrorKind::kUnavailable,
                    "the Landlock backend's allowlist proxy needs Linux; this cordon was built "
                    "for macOS");
}

CommandProxy::~CommandProxy() = default;
std::vector<NetConnection> CommandProxy::finish() { return {}; }

int net_stage_main(int, char**) {
  std::fprintf(stderr, "cordon: %s\n", kNoNetStage);
  return 1;
}

}  // namespace cordon
