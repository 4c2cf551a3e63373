#include "session/host_question.h"

#include <fmt/format.h>

#include "approval/request.h"

namespace cordon {

HostAsk host_question(Approver* approver, std::string command, int cancel_fd,
                      HostAnswered answered) {
  if (!approver) return {};
  return [approver, command = std::move(command), cancel_fd, answered = std::move(answered)](
             const std::string& host_port, const std::string& warning) {
    // `warning`: an address that is this machine itself says so in the question.
    ApprovalRequest ask = make_request(
        AskKind::kNetworkHost, command, std::nullopt,
        fmt::format("the command connects to {}, which [network] allow does not list{}", host_port,
                    warning.empty() ? std::string() : ". " + warning));
    ask.host = host_port;
    Decision d = approver->ask(ask, cancel_fd);
    if (answered) answered(host_port, d);
    return HostAnswer{d.allowed, fmt::format("asked: {} ({})", d.allowed ? "approved" : "refused",
                                             to_string(d.basis))};
  };
}

}  // namespace cordon
