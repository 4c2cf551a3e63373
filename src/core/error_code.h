// The one mapping from libcordon's own error words (Error::code, Refusal::reason: "config",
// "git", "spawn", ...) to the public API's ErrorCode (cordon/result.h). Total: every word
// libcordon uses is listed with the code it means; a word not listed (a bug: the unit test
// error_code_test.cc scans the sources for new ones) is kRefused, so it fails closed.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "cordon/result.h"

namespace cordon {

// Every error word of libcordon and its public code.
const std::vector<std::pair<std::string_view, ErrorCode>>& error_words();

// The public code of one word; kRefused for a word not in error_words().
ErrorCode public_error_code(std::string_view word);

}  // namespace cordon
