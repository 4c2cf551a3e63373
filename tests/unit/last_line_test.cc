// `cordon mcp`'s progress notifications carry a running bash call's last line of output
// (issue 30 item 4, SRV-2): the last line that holds anything, trimmed, cut to 200 bytes.
#include "jsonrpc/last_line.h"

#include <gtest/gtest.h>

#include <string>

#include "jsonrpc/jsonrpc_mcp_progress.h"

namespace cordon::rpc {
namespace {

TEST(LastLine, IsTheLastLineThatHoldsAnything) {  // issue 30 item 4
  LastLine l;
  EXPECT_EQ(l.line(), "");
  l.add("compiling a.c\ncomp");
  EXPECT_EQ(l.line(), "comp");
  l.add("iling b.c\n\n  \n");
  EXPECT_EQ(l.line(), "compiling b.c");
  l.add("  50%\r  75%  \r");  // a progress bar redraws its line
  EXPECT_EQ(l.line(), "75%");
}

TEST(LastLine, IsCutToAShortLineAtACharacter) {  // issue 30 item 4
  LastLine l;
  l.add(std::string(500, 'x') + "\n");
  EXPECT_EQ(l.line(), std::string(197, 'x') + "...");
  LastLine u;
  std::string euros;
  for (int i = 0; i < 100; ++i) euros += "\xe2\x82\xac";  // 3 bytes each
  u.add(euros);
  std::string cut = u.line();
  EXPECT_LE(cut.size(), LastLine::kMaxLength);
  EXPECT_EQ(cut, euros.substr(0, 195) + "...");
  LastLine big;  // only the tail is kept
  big.add(std::string(100000, 'y') + "\nthe end\n");
  EXPECT_EQ(big.line(), "the end");
}

TEST(LastLine, IsTheProgressMessage) {  // issue 30 item 4, SRV-2
  json m = progress_message("t", 2, std::chrono::milliseconds(3000), "tick 5");
  EXPECT_EQ(m["params"]["message"], "tick 5");
  EXPECT_EQ(m["params"]["progress"], 2);
  json none = progress_message("t", 2, std::chrono::milliseconds(3000), "");
  EXPECT_NE(none["params"]["message"].get<std::string>().find("3 s"), std::string::npos);
}

}  // namespace
}  // namespace cordon::rpc
