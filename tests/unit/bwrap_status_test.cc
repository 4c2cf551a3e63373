// bwrap's --json-status-fd protocol, parsed from whatever has arrived so far (issue 15 item 5).
#include "render/bwrap_status.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

TEST(BwrapStatus, ChildPidOnceSetUp) {  // PROC-3: the sandbox's pid 1 is known and watched
  BwrapStatus s = parse_bwrap_status("{ \"child-pid\": 4242 }\n");
  ASSERT_TRUE(s.child_pid);
  EXPECT_EQ(*s.child_pid, 4242);
  EXPECT_FALSE(s.exit_code);
}

TEST(BwrapStatus, ExitCodeAfterTheCommandEnded) {  // PROC-5: bwrap's own report of the code
  BwrapStatus s = parse_bwrap_status("{ \"child-pid\": 7 }\n{ \"exit-code\": 137 }\n");
  EXPECT_EQ(s.child_pid.value_or(-1), 7);
  EXPECT_EQ(s.exit_code.value_or(-1), 137);
}

TEST(BwrapStatus, NothingYetOrACutNumberIsUnknown) {  // PROC-3
  EXPECT_FALSE(parse_bwrap_status("").child_pid);
  EXPECT_FALSE(parse_bwrap_status("{ \"child-pid\"").child_pid);
  EXPECT_FALSE(parse_bwrap_status("{ \"child-pid\": ").child_pid);
  // The rest of the number may come with the next read: "12" must not be taken for "1234".
  EXPECT_FALSE(parse_bwrap_status("{ \"child-pid\": 12").child_pid);
  EXPECT_EQ(parse_bwrap_status("{ \"child-pid\": 1234 }").child_pid.value_or(-1), 1234);
}

TEST(BwrapStatus, NoPidFromGarbage) {  // PROC-3: a pid cordon would kill must be a real one
  EXPECT_FALSE(parse_bwrap_status("{ \"child-pid\": \"x\" }").child_pid);
  EXPECT_FALSE(parse_bwrap_status("{ \"child-pid\": 0 }").child_pid);
  EXPECT_FALSE(parse_bwrap_status("{ \"child-pid\": -5 }").child_pid);
  EXPECT_EQ(parse_bwrap_status("{\"exit-code\":-1}").exit_code.value_or(0), -1);
}

}  // namespace
}  // namespace cordon
