// SHA-256 (FIPS 180-4): grants that cover one exact standard input (APR), the audit log's
// hash chain (AUD-1). Pure.
//   sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#pragma once

#include <string>
#include <string_view>

namespace cordon {

std::string sha256_hex(std::string_view data);

}  // namespace cordon
