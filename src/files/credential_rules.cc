#include "files/credential_rules.h"

#include <cstring>

#include "core/strings.h"

namespace cordon {

// NET-3, FILE-4: names are compared without regard to case (`server.PEM`, `b.Key`, `.ENV`): a
// file's type does not change with the case of its name, and some file systems fold case.
bool is_secrets_folder(std::string_view part) { return to_lower(part) == ".secrets"; }

bool is_pem_name(std::string_view name) { return ends_with(to_lower(name), ".pem"); }

bool is_credential_name(std::string_view original) {
  const std::string lower = to_lower(original);
  const std::string_view name = lower;
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
    if (slash == std::string_view::npos) return is_secrets_folder(part) || is_credential_name(part);
    // A `.secrets` folder anywhere above: everything inside it is a credential.
    if (is_secrets_folder(part)) return true;
    start = slash + 1;
  }
  return false;
}

bool has_secrets_component(std::string_view path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    size_t len = slash == std::string_view::npos ? std::string_view::npos : slash - start;
    if (is_secrets_folder(path.substr(start, len))) return true;
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
