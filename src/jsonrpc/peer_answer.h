// A question put to the client (`approval/ask`, MCP's `elicitation/create`) that brought no
// answer to read, as a person's answer (APR-1: no answer is a no).
//
//   if (auto a = unanswered(r, "the client went away before answering", describe_error))
//     return *a;                 // timeout, canceled, client gone, or an error reply
//   ... read r.value ...
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "cordon/approval.h"
#include "jsonrpc/jsonrpc_peer.h"

namespace cordon::rpc {

// nullopt when the call brought a result. `gone`: what to say when the client went away;
// `error`: the words for an error reply, given the reply's own message.
std::optional<PersonAnswer> unanswered(const Peer::CallResult& r, const std::string& gone,
                                       const std::function<std::string(const std::string&)>& error);

}  // namespace cordon::rpc
