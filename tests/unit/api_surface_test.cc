// Issue 15 item 7: the public API shows only what an embedder needs. The CLI's own switches
// (a person typed the ways out, inherit the terminal, the no-asker words) and the approval
// machine's bookkeeping are not in the public structs; they live in src/api/face_options.h.
#include <gtest/gtest.h>

#include <type_traits>

#include "cordon/cordon.h"

namespace cordon {
namespace {

template <class T>
concept HasWaysOutApproved = requires(T t) {
  t.ways_out_approved;
};
template <class T>
concept HasInheritStdio = requires(T t) {
  t.inherit_stdio;
};
template <class T>
concept HasNoAskerNote = requires(T t) {
  t.no_asker_note;
};
template <class T>
concept HasTask = requires(T t) {
  t.task;
};

TEST(ApiSurface, NoSecurityBypassOnTheRequest) {
  // A request from an agent must not be able to say "the person approved the ways out".
  static_assert(!HasWaysOutApproved<api::ExecRequest>);
  static_assert(!HasInheritStdio<api::ExecRequest>);
  static_assert(!HasNoAskerNote<api::Options>);
  static_assert(!HasTask<api::Question>);
  SUCCEED();
}

TEST(ApiSurface, ErrorsCarryAnEnum) {
  static_assert(std::is_same_v<decltype(api::Error{}.code), api::ErrorCode>);
  static_assert(std::is_same_v<api::Result<int>, cordon::Result<int, api::Error>>);
  api::Result<int> r = api::Error{api::ErrorCode::kInvalid, "no command was given", "", 0};
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, api::ErrorCode::kInvalid);
  EXPECT_EQ(to_string(r.error().code), "invalid");
}

}  // namespace
}  // namespace cordon
