// The faces' own switches for the public API's session: what the `cordon` CLI needs and an
// embedder must not be offered. Internal (not installed with include/cordon/): only the faces
// in this repository include it.
//
//   api::FaceOptions face;
//   face.ways_out_typed = true;   // the person typed --network / --outside-sandbox
//   face.inherit_stdio = true;
//   auto session = api::open_for_face(opts, face);
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "cordon/cordon.h"

namespace cordon::api {

struct FaceOptions {
  // The ways out an exec asks for (ExecRequest::network, outside_sandbox) were typed by the
  // person on the command line (--network, --outside-sandbox): that is their approval, and no
  // question is asked for them (APR-7). A face that carries an agent's request never sets it.
  bool ways_out_typed = false;
  // Instead of capturing: each command reads cordon's own standard input (or /dev/null when it
  // is a terminal, PROC-2) and writes to cordon's standard output and error. Only the tail of
  // stderr is kept, for the notes (RES-2).
  bool inherit_stdio = false;
  // The refusal's words when Options::asker is null.
  std::string no_asker_note = "nobody can be asked to approve it";
  // JOB-2: the session's loopback, joined through the holder its keeper keeps (pid, start
  // time) rather than made; and, in the keeper, told the holder once it is made.
  std::optional<std::pair<int, long long>> loopback_holder;
  std::function<void(int pid, long long start)> on_loopback_made;
};

// Session::open with the face's own switches.
Result<std::unique_ptr<Session>> open_for_face(const Options& options, const FaceOptions& face);

}  // namespace cordon::api
