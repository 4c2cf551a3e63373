// Issue 15 item 7, issue 29 item 4: the public API's ErrorCode, libcordon's own ErrorKind, and
// the one mapping from the kinds to the codes (core/error_code.h). The compiler holds the set
// of kinds (make_error and Refusal take an ErrorKind, every switch over it names them all); these
// tests hold their words and their public codes.
#include "core/error_code.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cordon/cordon.h"
#include "plan/plan.h"

namespace cordon {
namespace {

TEST(ErrorCode, EveryCodeHasItsSrv1Word) {  // SRV-1: the wire's `reason` words
  EXPECT_EQ(to_string(ErrorCode::kRefused), "refused");
  EXPECT_EQ(to_string(ErrorCode::kHeld), "held");
  EXPECT_EQ(to_string(ErrorCode::kUnavailable), "unavailable");
  EXPECT_EQ(to_string(ErrorCode::kInvalid), "invalid");
  EXPECT_EQ(to_string(ErrorCode::kIo), "io");
}

// The five public codes are kinds of their own, with the same word, and come back as themselves.
TEST(ErrorCode, ThePublicCodesAreKindsOfTheirOwn) {
  for (ErrorCode c : {ErrorCode::kRefused, ErrorCode::kHeld, ErrorCode::kUnavailable,
                      ErrorCode::kInvalid, ErrorCode::kIo}) {
    EXPECT_EQ(public_error_code(error_kind(c)), c) << to_string(c);
    EXPECT_EQ(to_string(error_kind(c)), to_string(c));
  }
}

TEST(ErrorCode, LibraryKindsMapAsDocumented) {  // CFG-2, REV-1
  EXPECT_EQ(public_error_code(ErrorKind::kConfig), ErrorCode::kUnavailable);
  EXPECT_EQ(public_error_code(ErrorKind::kState), ErrorCode::kUnavailable);
  EXPECT_EQ(public_error_code(ErrorKind::kNet), ErrorCode::kUnavailable);
  EXPECT_EQ(public_error_code(ErrorKind::kGit), ErrorCode::kInvalid);
  EXPECT_EQ(public_error_code(ErrorKind::kReview), ErrorCode::kInvalid);
  for (ErrorKind k : {ErrorKind::kSpawn, ErrorKind::kExec, ErrorKind::kSeccomp, ErrorKind::kCgroup,
                      ErrorKind::kDamaged, ErrorKind::kAborted, ErrorKind::kInternal})
    EXPECT_EQ(public_error_code(k), ErrorCode::kRefused) << to_string(k);
}

// An Error made without a kind is a refusal: it fails closed.
TEST(ErrorCode, AnErrorWithoutAKindFailsClosed) {
  EXPECT_EQ(Error{}.code, ErrorKind::kRefused);
  EXPECT_EQ(public_error_code(Error{}.code), ErrorCode::kRefused);
  EXPECT_EQ(Refusal{}.reason, ErrorKind::kRefused);
}

// Every kind has a word of its own, and the words are the ones the output formats print
// (`cordon policy --json`'s refusal reason: "config", ...), unchanged from when they were strings.
TEST(ErrorCode, EveryKindHasItsOwnWord) {
  std::set<std::string> words;
  for (ErrorKind k : kErrorKinds) {
    const std::string w(to_string(k));
    EXPECT_FALSE(w.empty());
    EXPECT_TRUE(words.insert(w).second) << "two kinds have the word " << w;
  }
  EXPECT_EQ(words,
            (std::set<std::string>{"refused", "held", "unavailable", "invalid", "io", "config",
                                   "state", "net", "review", "git", "spawn", "exec", "seccomp",
                                   "cgroup", "damaged", "aborted", "internal"}));
  EXPECT_EQ(static_cast<int>(kErrorKinds[std::size(kErrorKinds) - 1]),
            static_cast<int>(ErrorKind::kInternal));  // kErrorKinds lists them all, in order
  for (size_t i = 0; i < std::size(kErrorKinds); ++i)
    EXPECT_EQ(static_cast<size_t>(kErrorKinds[i]), i);
}

TEST(ErrorCode, ThePublicErrorConvertsToTheLibrarysForm) {
  api::Error e{ErrorCode::kHeld, "held until pid 7 is gone", "/p", 0};
  cordon::Error inner = e;
  EXPECT_EQ(inner.code, ErrorKind::kHeld);
  EXPECT_EQ(inner.message, "held until pid 7 is gone");
  EXPECT_EQ(inner.path, "/p");
  cordon::Result<int> r = e;  // a face returns the API's error as its own
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorKind::kHeld);
}

}  // namespace
}  // namespace cordon
