// The approval vocabulary of the public API (APR-1..7): what asks, the question a person is
// put, and the interface an embedder implements to answer it. The machine that decides when to
// ask (modes, grants, away, timeout, breaker) lives inside libcordon.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace cordon {

// The things that ask (APR-1). The strings (to_string in approval/request.h) are SRV-1's
// `kind` values.
enum class AskKind {
  kNetwork,         // "network": way out 1, `network: true` (NET-3)
  kOutsideSandbox,  // "outside_sandbox": way out 2 (NET-4); never granted for the session
  kCredentialRead,  // "credential_read": reading a credential file (FILE-4)
  kWriteOutside,    // "write_outside": a file-tool write outside the writable roots (FILE-5)
  kProtectedWrite,  // "protected_write": a file-tool write to a protected path (FILE-6)
  kCommand,         // "command": the command policy says it needs approval (CMD)
  kNetworkHost,     // "network_host": a host not in [network] allow, while the proxy holds the
                    // connection (NET-10); a session grant covers the host for every command
};

// One request for approval.
//   ApprovalRequest r; r.kind = AskKind::kNetwork; r.command = "npm install";
struct ApprovalRequest {
  AskKind kind = AskKind::kCommand;
  std::optional<std::string> command;  // the command line, for network/outside_sandbox/command
  std::optional<std::string> path;  // the file, for credential_read/write_outside/protected_write
  std::optional<std::string> host;  // "host:port", for network_host (NET-10)
  std::string reason;               // the caller's words, shown to the person (never the judge)
  // What else an exec request is (APR): a session grant covers only the same command form,
  // working folder, standard input and ways out, and the question shows them.
  std::optional<std::string> cwd;  // the working folder; absent: not an exec request
  bool argv_form = false;          // `command` renders an argv run without a shell
  bool network = false;            // network: true was asked for
  bool outside_sandbox = false;    // outside_sandbox: true was asked for
  struct Stdin {
    uint64_t size = 0;
    std::string sha256;  // of all of it
    std::string start;   // its first bytes (kStdinShown), for the person and the judge
  };
  std::optional<Stdin> stdin_data;  // absent: no standard input
};

// How much of an exec's standard input a question and the judge's input show.
inline constexpr size_t kStdinShown = 512;

// How the person answered one question.
enum class Reply {
  kAllowOnce,
  kAllowForSession,  // also allow the same request (kind, command, path) for the rest of the
                     // session; taken as kAllowOnce for outside_sandbox (APR-3)
  kDeny,
  kTimeout,      // the question's deadline passed with no answer (APR-5)
  kUnavailable,  // nobody can be asked: no terminal, a client without elicitation (APR-7)
  kCanceled,     // the request that asked was canceled while the question was open: the
                 // question was withdrawn (it is neither a yes nor a no of the person's)
};

struct PersonAnswer {
  Reply reply = Reply::kDeny;
  // For kUnavailable: why, and what would approve it, written by the face; it becomes the
  // refusal message. "there is no terminal to ask on; run again with --approve network".
  std::string note;
};

// A question for the person.
struct Question {
  ApprovalRequest request;
  // False for outside_sandbox: offer only "allow this once" and "deny" (APR-3).
  bool session_grant_offered = true;
  // When the question stops waiting ([away] timeout); nullopt when the timeout is "off". An
  // answer that comes at or after the deadline counts as kTimeout.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // Why the judge passed the request on, in auto mode ("the judge crashed: ..."); else empty.
  std::string judge_note;
  // A descriptor that turns readable when the request that asked is canceled (-1: none; see
  // api::Cancel::fd). An asker that can stops waiting then, withdraws the question from the
  // person and answers kCanceled.
  int cancel_fd = -1;
};

// The person. Implementations: the CLI's terminal prompt (or a refusal naming the flag when
// there is no terminal), the server's `approval/ask` request, MCP elicitation (APR-7), or an
// embedder's own dialog.
//
//   class DialogAsker : public cordon::Asker {
//    public:
//     cordon::PersonAnswer ask(const cordon::Question& q) override {
//       bool yes = show_dialog(q.request.reason, q.deadline);   // the embedder's UI
//       return {yes ? cordon::Reply::kAllowOnce : cordon::Reply::kDeny, ""};
//     }
//   };
class Asker {
 public:
  virtual ~Asker() = default;
  // Puts the question to the person and blocks until they answer, or returns kTimeout when
  // question.deadline passes (wait with steady_clock). Called without any lock of libcordon's
  // held, possibly from several threads at once; must be thread-safe.
  virtual PersonAnswer ask(const Question& question) = 0;
};

}  // namespace cordon
