// NET-3 and FILE-4: finding the project's credential files afresh.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "files/credential_rules.h"  // is_credential_name, pem_is_public_only (pure)
#include "plan/facts.h"

namespace cordon {

struct CredentialScan {
  std::vector<PathInfo> files;  // files and `.secrets` folders to hide (real paths)
  std::string refusal;          // non-empty: the command must be refused (the message)
  size_t entries_seen = 0;
};

struct CredentialScanLimits {
  size_t max_files = 1000;
  size_t max_entries = 100000;
  uint64_t max_public_pem = 2 * 1024 * 1024;
};

// Walks the project, skipping node_modules, site-packages, __pycache__, .git and target.
CredentialScan scan_credentials(const std::string& project, const CredentialScanLimits& = {});

}  // namespace cordon
