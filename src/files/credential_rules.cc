#include "files/credential_rules.h"

#include <cstring>

#include "core/strings.h"

namespace cordon {

bool is_credential_name(std::string_view name) {
  if (name == ".env") return true;
  if (starts_with(name, ".env.")) {
    return !(name == ".env.example" || name == ".env.sample" || name == ".env.template");
  }
  for (const char* ext : {".pem", ".key", ".p12", ".pfx"})
    if (ends_with(name, ext) && name.size() > std::strlen(ext)) return true;
  return false;
}

bool is_credential_path(std::string_view path) {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    std::string_view part = path.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (slash == std::string_view::npos) return part == ".secrets" || is_credential_name(part);
    // A `.secrets` folder anywhere above: everything inside it is a credential.
    if (part == ".secrets") return true;
    start = slash + 1;
  }
  return false;
}

bool has_secrets_component(std::string_view path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    size_t len = slash == std::string_view::npos ? std::string_view::npos : slash - start;
    if (path.substr(start, len) == ".secrets") return true;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return false;
}

bool pem_is_public_only(std::string_view text) {
  size_t pos = 0;
  int blocks = 0;
  while ((pos = text.find("-----BEGIN ", pos)) != std::string_view::npos) {
    size_t end = text.find("-----", pos + 11);
    if (end == std::string_view::npos) return false;
    std::string_view label = text.substr(pos + 11, end - pos - 11);
    if (label != "CERTIFICATE" && label != "TRUSTED CERTIFICATE" && label != "X509 CRL")
      return false;
    ++blocks;
    pos = end + 5;
  }
  return blocks > 0;
}

}  // namespace cordon
