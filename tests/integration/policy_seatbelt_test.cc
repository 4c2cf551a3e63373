// `cordon policy --seatbelt` (MAC-4): the profile macOS would use, printed on this Linux machine
// from the real project and policy. It needs no sandbox to run.
#include <gtest/gtest.h>

#include "harness.h"

namespace cordon::it {
namespace {

TEST(PolicySeatbelt, PrintsTheProfileForThisProjectAndPolicy) {  // MAC-4, MAC-1
  World w;
  w.write(".envrc", "export X=1\n");
  w.write(w.home() + "/.ssh/id_ed25519", "secret\n");
  w.config("[sandbox]\nhide = [\"~/private-notes\"]\n");
  Proc r = w.cordon({"policy", "--seatbelt"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("; cordon's Seatbelt profile"), 0u) << r.out;
  for (const std::string& s :
       {std::string("(version 1)\n(deny default)\n"), std::string("(allow file-read*)"),
        "(subpath \"" + w.project() + "\")", "(subpath \"" + w.project() + "/.envrc\")",
        "(subpath \"" + w.home() + "/.ssh\")", "(subpath \"" + w.home() + "/private-notes\")",
        std::string("path filters of at most 1000")})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  EXPECT_EQ(r.out.find("network-outbound (remote"), std::string::npos);  // no network (MAC-1)
  // The same as JSON, with the path filters counted per list (MAC-2).
  r = w.cordon({"policy", "--seatbelt", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* s : {"\"profile\": \"", "\"path_filters\"", "\"max_path_filters\": 1000"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

TEST(PolicySeatbelt, SaysSoWhenTheSandboxIsOff) {  // MAC-4, MODE-2
  World w;
  w.config("[sandbox]\nmode = \"off\"\nenabled = false\n");
  Proc r = w.cordon({"policy", "--seatbelt"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("no Seatbelt profile"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace cordon::it
