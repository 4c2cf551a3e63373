#include "harness.h"

namespace cordon::it {
namespace {

TEST(Smoke, Version) {
  World w;
  Proc r = w.cordon({"version"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("cordon "), std::string::npos);
}

}  // namespace
}  // namespace cordon::it
