// The CLI's side of a session keeper (issue 30, session_keeper.h): connects to the keeper of a
// lasting session (starting it when asked and none answers), initializes, and makes JSON-RPC
// calls one at a time.
//
//   KeeperTarget t{folders, "0123456789abcdef", "", exe};
//   auto k = KeeperClient::connect(t, /*start=*/true);
//   auto r = (*k)->call("exec", {{"argv", {"make"}}, {"background", true}});  // the result
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/folders.h"
#include "core/result.h"

namespace cordon {

struct KeeperTarget {
  Folders folders;
  std::string session;
  std::string project;  // --project: the session's project must be this one; "" for any
  std::string exe;      // this program, started as the keeper
};

class KeeperClient {
 public:
  // Errors name the session and the fix: no such session, no keeper (when `start` is false: no
  // background job was started, or the keeper ended when idle), the keeper's own refusal.
  static Result<std::unique_ptr<KeeperClient>> connect(const KeeperTarget& t, bool start);
  ~KeeperClient();
  KeeperClient(const KeeperClient&) = delete;
  KeeperClient& operator=(const KeeperClient&) = delete;

  // The result of one call; an error reply as an Error with its message.
  Result<nlohmann::json> call(const std::string& method, nlohmann::json params);
  // The start notices `initialize` gave (the session's first command only).
  const std::vector<std::string>& notices() const { return notices_; }

 private:
  explicit KeeperClient(int fd) : fd_(fd) {}
  Result<nlohmann::json> read_answer(int64_t id);

  int fd_;
  int64_t next_id_ = 1;
  std::string buf_;
  std::vector<std::string> notices_;
};

// `cordon session end`: ends the session's keeper, if one runs, and waits until it has ended
// its jobs and exited.
Status stop_keeper(const Folders& folders, const std::string& session);

}  // namespace cordon
