// NET-3 and FILE-4: finding the project's credential files afresh.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "file_rules/credential_rules.h"  // is_credential_name, pem_is_public_only (pure)
#include "plan/facts.h"

namespace cordon {

struct CredentialScan {
  std::vector<PathInfo> files;  // files and `.secrets` folders to hide (real paths)
  // Files seen as copies without their secrets (.npmrc, .yarnrc.yml, .yarnrc; NET-3).
  std::vector<GitConfigCopyFact> copies;
  std::string refusal;  // non-empty: the command must be refused (the message)
  size_t entries_seen = 0;
  size_t files_read = 0;  // files whose first bytes were read for a private key
};

struct CredentialScanLimits {
  size_t max_files = 1000;
  size_t max_entries = 100000;
  uint64_t max_public_pem = 2 * 1024 * 1024;
  // NET-3: a private key under any name is found in the first bytes of each file (a PEM file
  // starts with it; a service account's JSON holds it near its top). Past this many bytes of
  // a file it is not looked for.
  size_t key_bytes = 16 * 1024;
  std::string cache_dir;  // where copies are written ("": hidden whole instead)
};

// Walks the project, skipping node_modules, site-packages, __pycache__, .git and target: files
// with a credential's name (credential_name_rows()), `.secrets` folders, and files whose first
// `key_bytes` hold a private key block.
CredentialScan scan_credentials(const std::string& project, const CredentialScanLimits& = {});

}  // namespace cordon
