// Base64 (RFC 4648, standard alphabet, with padding). The hook adapters pass a command and its
// folder to `cordon run --base64` in this form: its alphabet holds no character a shell treats
// specially, so no quoting can break them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cordon {

// base64_encode("hi") == "aGk="
std::string base64_encode(std::string_view bytes);
// nullopt for anything that is not canonical padded base64 (stray characters, bad length).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace cordon
