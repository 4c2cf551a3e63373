// Issue 15 item 7: the public API's ErrorCode, and the one total mapping from libcordon's own
// error words to it (core/error_code.h).
#include "core/error_code.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "cordon/cordon.h"
#include "test_paths.h"

namespace cordon {
namespace {

TEST(ErrorCode, EveryCodeHasItsSrv1Word) {  // SRV-1: the wire's `reason` words
  EXPECT_EQ(to_string(ErrorCode::kRefused), "refused");
  EXPECT_EQ(to_string(ErrorCode::kHeld), "held");
  EXPECT_EQ(to_string(ErrorCode::kUnavailable), "unavailable");
  EXPECT_EQ(to_string(ErrorCode::kInvalid), "invalid");
  EXPECT_EQ(to_string(ErrorCode::kIo), "io");
}

TEST(ErrorCode, TheWireWordsMapToThemselves) {
  for (ErrorCode c : {ErrorCode::kRefused, ErrorCode::kHeld, ErrorCode::kUnavailable,
                      ErrorCode::kInvalid, ErrorCode::kIo})
    EXPECT_EQ(public_error_code(to_string(c)), c) << to_string(c);
}

TEST(ErrorCode, LibraryWordsMapAsDocumented) {  // CFG-2, REV-1
  EXPECT_EQ(public_error_code("config"), ErrorCode::kUnavailable);
  EXPECT_EQ(public_error_code("state"), ErrorCode::kUnavailable);
  EXPECT_EQ(public_error_code("git"), ErrorCode::kInvalid);
  EXPECT_EQ(public_error_code("review"), ErrorCode::kInvalid);
  EXPECT_EQ(public_error_code("spawn"), ErrorCode::kRefused);
}

TEST(ErrorCode, AnUnknownWordFailsClosed) {
  EXPECT_EQ(public_error_code("no-such-word"), ErrorCode::kRefused);
  EXPECT_EQ(public_error_code(""), ErrorCode::kRefused);
}

TEST(ErrorCode, ThePublicErrorConvertsToTheLibrarysForm) {
  api::Error e{ErrorCode::kHeld, "held until pid 7 is gone", "/p", 0};
  cordon::Error inner = e;
  EXPECT_EQ(inner.code, "held");
  EXPECT_EQ(inner.message, "held until pid 7 is gone");
  EXPECT_EQ(inner.path, "/p");
  cordon::Result<int> r = e;  // a face returns the API's error as its own
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "held");
}

// The mapping is total: every error word written in libcordon's sources (make_error("word",
// Refusal{"word", `.reason = "word"`, `code = "word"`) is listed in error_words(), so none
// reaches an embedder through the fail-closed default by accident.
TEST(ErrorCode, EveryWordInTheSourcesIsMapped) {
  std::set<std::string> known;
  for (const auto& [w, code] : error_words()) known.insert(std::string(w));
  const std::regex word(
      R"re((?:make_error\(\s*|Refusal\{\s*|\.reason = |\bcode = )"([a-z_-]+)")re");
  std::set<std::string> found;
  size_t files = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(test_source_dir() + "/src")) {
    const auto ext = entry.path().extension();
    if (ext != ".cc" && ext != ".h") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    ++files;
    for (std::sregex_iterator it(s.begin(), s.end(), word), end; it != end; ++it)
      found.insert((*it)[1]);
  }
  ASSERT_GT(files, 100u);
  ASSERT_TRUE(found.count("config")) << "the scan found nothing: check its pattern";
  for (const auto& w : found)
    EXPECT_TRUE(known.count(w)) << "the error word \"" << w
                                << "\" is not mapped: add it to error_words() in "
                                   "src/core/error_code.cc with the public code it means";
}

}  // namespace
}  // namespace cordon
