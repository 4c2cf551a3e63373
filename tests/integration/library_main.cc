// library_tests is an embedder of libcordon: as its documentation asks (cordon/cordon.h), main
// runs cordon's helpers first, which a session starts from this program when Options names no
// cordon binary (the probe's checker, a session's loopback maker).
#include <gtest/gtest.h>

#include "cordon/cordon.h"

int main(int argc, char** argv) {
  if (int helper = cordon::api::helper_main(argc, argv); helper >= 0) return helper;
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
