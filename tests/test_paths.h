// Where the tests find the checkout and the binary they test. Defined in test_paths.cc, the one
// source compiled with the paths (so every other test object is the same in any checkout, and
// ccache finds it again from another clone: its base_dir rewrites paths on the command line,
// not in -D values).
#pragma once

#include <string>

namespace cordon {

// The checkout's root (CMAKE_SOURCE_DIR).
std::string test_source_dir();
// tests/golden in the checkout.
std::string test_golden_dir();
// The cordon binary of this build tree.
std::string test_cordon_binary();

}  // namespace cordon
