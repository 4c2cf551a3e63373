// A tiny program that embeds libcordon, built against the installed files only
// (scripts/check_embed.sh: pkg-config and find_package). It classifies a command, runs one in
// the sandbox of the project given, and prints what it saw.
#include <cordon/cordon.h>

#include <iostream>

int main(int argc, char** argv) {
  // The sandbox's start-up probe runs this program inside a sandbox as its checker.
  if (int rc = cordon::api::helper_main(argc, argv); rc >= 0) return rc;
  if (argc != 2) {
    std::cerr << "usage: embedder PROJECT\n";
    return 2;
  }
  cordon::api::Options opts;
  opts.project = argv[1];
  opts.cwd = argv[1];
  auto session = cordon::api::Session::open(opts);
  if (!session) {
    std::cerr << to_string(session.error().code) << ": " << session.error().message << "\n";
    return 1;
  }
  cordon::api::ClassifyRequest ls;
  ls.argv = {"ls"};
  auto cls = (*session)->classify(ls);
  if (!cls) return 1;
  std::cout << "classify ls: " << cls->cls << "\n";

  cordon::api::ExecRequest bad;  // neither argv nor command
  auto refused = (*session)->exec(bad);
  if (refused || refused.error().code != cordon::api::ErrorCode::kInvalid) return 1;
  std::cout << "empty request: " << to_string(refused.error().code) << "\n";

  cordon::api::ExecRequest req;
  req.command = "echo made > made.txt && echo hello from the sandbox";
  auto res = (*session)->exec(req);
  if (!res) {
    std::cerr << to_string(res.error().code) << ": " << res.error().message << "\n";
    return res.error().code == cordon::api::ErrorCode::kUnavailable ? 3 : 1;
  }
  std::cout << res->stdout_text << "exit " << res->exit_code << "\n";
  return res->exit_code;
}
