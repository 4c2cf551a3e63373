// libFuzzer target: config.toml parsing (CFG-2) never crashes, whatever the bytes; every
// failure is an Error naming the file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "config/config_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto r = cordon::parse_config(text, "/fuzz/config.toml");
  if (!r.ok() && r.error().message.find("/fuzz/config.toml") == std::string::npos) __builtin_trap();
  return 0;
}
