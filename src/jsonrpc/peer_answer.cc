#include "jsonrpc/peer_answer.h"

namespace cordon::rpc {

std::optional<PersonAnswer> unanswered(
    const Peer::CallResult& r, const std::string& gone,
    const std::function<std::string(const std::string&)>& error) {
  switch (r.status) {
    case Peer::CallResult::kTimeout:
      return PersonAnswer{Reply::kTimeout, ""};
    case Peer::CallResult::kCanceled:
      return PersonAnswer{Reply::kCanceled, ""};
    case Peer::CallResult::kClosed:
      return PersonAnswer{Reply::kUnavailable, gone};
    case Peer::CallResult::kError: {
      const json& v = r.value;
      std::string msg = v.is_object() && v.contains("message") && v["message"].is_string()
                            ? v["message"].get<std::string>()
                            : std::string("no message");
      return PersonAnswer{Reply::kUnavailable, error(msg)};
    }
    case Peer::CallResult::kResult:
      break;
  }
  return std::nullopt;
}

}  // namespace cordon::rpc
