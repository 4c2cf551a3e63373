// APR-7 for the CLI: questions are put on the terminal (/dev/tty) when there is one; with none,
// they are refused with the flag that approves them.
#pragma once

#include <mutex>

#include "cordon/approval.h"

namespace cordon {

class TtyAsker : public Asker {
 public:
  PersonAnswer ask(const Question& question) override;

 private:
  std::mutex mu_;  // one question on the terminal at a time
};

// The `cordon run` flag that approves a kind of request (APR-7): "--network",
// "--outside-sandbox", "--allow-command"; empty for the file tools' kinds, which the CLI does
// not raise.
const char* cli_flag_for(AskKind kind);

}  // namespace cordon
