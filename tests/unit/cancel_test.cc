// api::Cancel (sys/cancel.cc): a pipe whose read end stays readable once canceled, so a poll
// loop ends its command (SRV-4, PROC-4); POSIX, for the macOS build (MAC-5).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>

#include "cordon/cordon.h"

namespace cordon::api {
namespace {

bool readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

TEST(Cancel, ReadableForGoodOnceCanceled) {  // SRV-4
  Cancel c;
  ASSERT_GE(c.fd(), 10) << "clear of the descriptors handed to a child";
  EXPECT_TRUE(fcntl(c.fd(), F_GETFD) & FD_CLOEXEC);
  EXPECT_FALSE(c.canceled());
  EXPECT_FALSE(readable(c.fd()));
  c.cancel();
  EXPECT_TRUE(c.canceled());
  EXPECT_TRUE(readable(c.fd()));
  EXPECT_TRUE(c.canceled()) << "looking does not drain it";
}

TEST(Cancel, CanceledManyTimesOverNeverBlocks) {  // SRV-4 (a signal handler calls cancel())
  Cancel c;
  for (int i = 0; i < 200000; ++i) c.cancel();  // more than a pipe holds
  EXPECT_TRUE(c.canceled());
}

}  // namespace
}  // namespace cordon::api
