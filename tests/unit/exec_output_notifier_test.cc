// `exec` with "stream": true (issue 30 item 4, SRV-1): the notifier sends `exec/output`
// {id, stream, data} as output comes, and finish() sends the rest; nothing after it.
#include "jsonrpc/exec_output_notifier.h"

#include <gtest/gtest.h>

#include <string>

#include "fake_wire.h"

namespace cordon::rpc {
namespace {

using testing::Wire;

TEST(ExecOutputNotifier, SendsExecOutputAndTheRestAtFinish) {  // issue 30 item 4, SRV-1
  Wire wire;
  ExecOutputNotifier live(wire.peer, json(7), std::chrono::milliseconds(50));
  auto sink = live.sink();
  sink(1, "one\n");
  json first = wire.take([](const json& m) { return m.value("method", "") == "exec/output"; });
  ASSERT_FALSE(first.is_null());
  EXPECT_EQ(first["params"]["id"], 7);
  EXPECT_EQ(first["params"]["stream"], "stdout");
  EXPECT_EQ(first["params"]["data"], "one\n");
  sink(2, "two\n");
  sink(1, "three\n");
  live.finish();  // whatever the sender had not sent yet goes now
  std::string err, out;
  while (wire.pending() > 0) {
    json m = wire.take([](const json&) { return true; });
    (m["params"]["stream"] == "stderr" ? err : out) += m["params"]["data"].get<std::string>();
  }
  EXPECT_EQ(err, "two\n");
  EXPECT_EQ(out, "three\n");
  sink(1, "late\n");  // after finish: nothing more is sent
  live.finish();
  EXPECT_EQ(wire.pending(), 0u);
}

}  // namespace
}  // namespace cordon::rpc
