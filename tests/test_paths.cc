#include "test_paths.h"

namespace cordon {

std::string test_source_dir() { return CORDON_SOURCE_DIR; }
std::string test_golden_dir() { return CORDON_SOURCE_DIR "/tests/golden"; }
std::string test_cordon_binary() { return CORDON_BINARY; }

}  // namespace cordon
