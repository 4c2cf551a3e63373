// A 64-bit FNV-1a hash, fed piece by piece: for keys of caches and stamps of files, which only
// the user's own files and the machine decide. Not for anything someone could choose to make
// collide.
// Example: Fnv1a h; h.bytes("read"); h.u64(13); uint64_t key = h.value;
#pragma once

#include <cstdint>
#include <string_view>

namespace cordon {

struct Fnv1a {
  uint64_t value = 1469598103934665603ull;
  void byte(unsigned char b) {
    value ^= b;
    value *= 1099511628211ull;
  }
  void bytes(std::string_view s) {
    for (unsigned char c : s) byte(c);
  }
  // Its eight bytes, lowest first.
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) byte(static_cast<unsigned char>(v >> (8 * i)));
  }
};

}  // namespace cordon
