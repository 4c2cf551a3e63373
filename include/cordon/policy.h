// The sandbox's policy made in code, for a program that embeds libcordon and would rather not
// write a config.toml (issue 29). The builder takes the settings a config file holds, checks
// them when built exactly as the file's are checked, and gives a SandboxPolicy for
// Options::policy; the user's config file is then not read.
//
//   auto policy = cordon::api::PolicyBuilder()
//                     .writable("~/.cache/pip")          // beside the project and /tmp
//                     .hide("~/work/other-client")       // reads as empty, like ~/.ssh
//                     .protect("scripts/deploy.sh")      // kept unchanged in the project
//                     .allow_network("registry.npmjs.org")
//                     .max_processes(512)
//                     .memory_limit(2ull << 30)
//                     .build();
//   if (!policy) { std::cerr << policy.error().message << "\n"; return 1; }
//   cordon::api::Options opts;
//   opts.project = "/home/me/src/app";
//   opts.policy = *policy;
//   auto session = cordon::api::Session::open(opts);
//
// build() fails with ErrorCode::kInvalid, a message naming the call, the value and the fix,
// and the value in Error::path. Paths are written as in config.toml: "~/..." for the home,
// project-relative for protect().
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cordon/error.h"

namespace cordon::api {

// A checked policy; only a PolicyBuilder makes one.
class SandboxPolicy {
 public:
  // The same policy as config.toml text (for a log, or to give a user as a file).
  const std::string& toml() const { return toml_; }

 private:
  friend class PolicyBuilder;
  explicit SandboxPolicy(std::string toml) : toml_(std::move(toml)) {}
  std::string toml_;
};

class PolicyBuilder {
 public:
  // How commands run: "on" (the sandbox, the default), "off" (no sandbox, every command is
  // asked about) or "external" (the caller sandboxes; cordon keeps only its own checks).
  PolicyBuilder& mode(std::string mode);
  // A folder of the home commands may also write, written "~/...".
  PolicyBuilder& writable(std::string home_path);
  // A file or folder commands see as empty, besides the defaults ("~/...", or absolute).
  PolicyBuilder& hide(std::string path);
  // Environment variables removed before a command starts, by name or with * patterns.
  PolicyBuilder& hide_env(std::string pattern);
  // A project path kept unchanged (a trailing "/" for a folder), besides the defaults.
  PolicyBuilder& protect(std::string project_path);
  // Hosts commands may reach through the allowlist proxy ("api.github.com", "*.npmjs.org").
  PolicyBuilder& allow_network(std::string host);
  // Hosts refused even when an allow entry matches them.
  PolicyBuilder& deny_network(std::string host);
  // Hosts in neither list: asked about (true) or refused (false, the default).
  PolicyBuilder& ask_unknown_hosts(bool ask);
  // Limits of each command's process tree; unset: none (processes: the default cap).
  PolicyBuilder& memory_limit(std::uint64_t bytes);
  PolicyBuilder& cpu_seconds(std::uint64_t seconds);
  PolicyBuilder& max_processes(std::uint64_t count);
  PolicyBuilder& file_size_limit(std::uint64_t bytes);
  PolicyBuilder& open_files_limit(std::uint64_t count);
  // How long without an answer before questions are refused (nullopt: never).
  PolicyBuilder& away_timeout(std::optional<std::chrono::seconds> after);

  // Checks everything set, as config.toml is checked.
  Result<SandboxPolicy> build() const;

 private:
  struct Limit {
    const char* key;
    std::uint64_t value;
  };
  std::optional<std::string> mode_;
  std::vector<std::string> writable_, hide_, hide_env_, protect_, allow_, deny_;
  std::optional<bool> ask_unknown_;
  std::vector<Limit> limits_;
  std::optional<std::optional<std::chrono::seconds>> away_;
};

}  // namespace cordon::api
