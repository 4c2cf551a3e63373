// NET-10: a host no [network] entry names, asked about through the session's approver while
// the proxy holds the connection.
#pragma once

#include <functional>
#include <string>

#include "approval/approver.h"
#include "net/proxy_server.h"

namespace cordon {

// The question for `command` (its text, as the person reads it). The answer's rule names it
// for the result and the refusal ("asked: approved (user)"). `cancel_fd`: the command's
// cancel, which withdraws the question. Empty (hosts refused) without an approver.
// `answered`, when set, is told each answer (AUD-1: the audit log), on the proxy's thread.
using HostAnswered = std::function<void(const std::string& host_port, const Decision& d)>;
HostAsk host_question(Approver* approver, std::string command, int cancel_fd,
                      HostAnswered answered = {});

}  // namespace cordon
