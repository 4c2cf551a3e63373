// JOB-3: cordon's side of the terminal stage (tty_stage.h): a Unix socket pair and cordon's own
// program, handed to the sandbox, and the stage's words put before the command (after NET-7's
// stage, when the command has one). The process loop receives the terminal's master over
// LaunchIo::tty_socket and reads, writes and resizes it. Made before bwrap starts; kept until
// the command has ended.
//
//   auto tty = TtyLink::add(io, {80, 24}, "");   // io.argv_prefix and io.extra_fds extended
//   ... launch with io ...; tty dropped once the command ended
#pragma once

#include <memory>
#include <string>

#include "core/result.h"
#include "launch/linux/launcher.h"
#include "render/tty_stage_args.h"

namespace cordon {

class TtyLink {
 public:
  // `exe`: the cordon program the stage runs from (Options::cordon_binary of a program that
  // embeds libcordon); "" for this program.
  static Result<std::unique_ptr<TtyLink>> add(LaunchIo& io, TtySize size, const std::string& exe);
  ~TtyLink();
  TtyLink(const TtyLink&) = delete;
  TtyLink& operator=(const TtyLink&) = delete;

 private:
  TtyLink() = default;
  // [[maybe_unused]]: a macOS build links a stand-in that never makes one.
  [[maybe_unused]] int sock_ = -1;        // ours: the master arrives here
  [[maybe_unused]] int child_sock_ = -1;  // the stage's end
  [[maybe_unused]] int exe_ = -1;         // cordon's program, which the stage runs from
};

}  // namespace cordon
