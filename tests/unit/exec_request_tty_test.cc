// JOB-3 (issue 30 item 3): `tty`, `cols` and `rows` as exec and MCP's bash read them.
#include <gtest/gtest.h>

#include "jsonrpc/jsonrpc_tools.h"

namespace cordon::rpc {
namespace {

// JOB-3
TEST(ExecRequestTty, TtyWithItsSize) {
  auto r = read_exec_request({{"command", "stty size"}, {"tty", true}, {"cols", 120}, {"rows", 40}},
                             false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->tty);
  EXPECT_EQ(r->cols, 120);
  EXPECT_EQ(r->rows, 40);
  r = read_exec_request({{"command", "stty size"}, {"tty", true}}, /*bash=*/true);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->tty);
  EXPECT_EQ(r->cols, 80);  // the default size
  EXPECT_EQ(r->rows, 24);
  r = read_exec_request({{"command", "true"}}, false);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->tty);
}

// JOB-3
TEST(ExecRequestTty, WrongTtyParamsAreRefused) {
  EXPECT_FALSE(read_exec_request({{"command", "true"}, {"tty", "yes"}}, false).ok());
  EXPECT_FALSE(read_exec_request({{"command", "true"}, {"cols", 100}}, false).ok());  // no tty
  EXPECT_FALSE(read_exec_request({{"command", "true"}, {"tty", true}, {"rows", -1}}, false).ok());
  EXPECT_FALSE(
      read_exec_request({{"command", "true"}, {"tty", true}, {"cols", 70000}}, false).ok());
  EXPECT_FALSE(read_exec_request({{"command", "true"}, {"tty", true}, {"cols", "80"}}, true).ok());
}

}  // namespace
}  // namespace cordon::rpc
