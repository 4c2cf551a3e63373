#include "approval/refusal_violation.h"

#include <fmt/format.h>

#include <cctype>

namespace cordon {

namespace {

struct KindWords {
  const char* kind;  // the violation's kind
  const char* need;  // what needed the approval
};

KindWords words(AskKind k) {
  switch (k) {
    case AskKind::kNetwork:
      return {"network", "a command's use of the machine's network"};
    case AskKind::kOutsideSandbox:
      return {"outside_sandbox", "running a command outside the sandbox"};
    case AskKind::kCredentialRead:
      return {"read", "a file-tool read of a credential file"};
    case AskKind::kWriteOutside:
      return {"write", "a file-tool write outside the project and the writable folders"};
    case AskKind::kProtectedWrite:
      return {"write", "a file-tool write to a protected file"};
    case AskKind::kCommand:
      return {"policy", "a command that is not read-only, with no sandbox around it"};
    case AskKind::kNetworkHost:
      return {"network", "a host not in [network] allow"};
  }
  return {"policy", "it"};
}

}  // namespace

std::string as_fix(const std::string& sentence) {
  std::string s = sentence;
  while (!s.empty() && (s.back() == '.' || s.back() == ' ')) s.pop_back();
  if (s.size() > 1 && std::isupper(static_cast<unsigned char>(s[0])) &&
      std::islower(static_cast<unsigned char>(s[1])))
    s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

std::string as_sentence(const std::string& fix) {
  std::string s = fix;
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s.empty() || s.back() == '.' ? s : s + ".";
}

api::Violation policy_violation(const std::string& reason) {
  std::string why = reason;  // the classifier's sentence, inside the rule's parentheses
  while (!why.empty() && why.back() == '.') why.pop_back();
  return {"policy", "", "", fmt::format("the command policy denies it ({})", why),
          "do not retry it in another form; carry on without it, and name the skipped step in "
          "your final report",
          "cordon"};
}

api::Violation answer_violation(const ApprovalRequest& r, const Decision& d) {
  const KindWords w = words(r.kind);
  return {w.kind, r.path.value_or(""), r.host.value_or(""),
          fmt::format("{} needs approval: {}", w.need, d.rule), as_fix(d.fix), "cordon"};
}

}  // namespace cordon
