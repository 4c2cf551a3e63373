// cordon/policy.h: the policy made in code. The builder writes what it was given as
// config.toml text and checks it with the config file's own parser, so that a policy made in
// code and one written in a file are checked alike, keep the same defaults, and can be
// written out (SandboxPolicy::toml).
#include <fmt/format.h>

#include <sstream>
#include <string_view>

#include "config/config_file.h"
#include "config/toml.h"
#include "cordon/policy.h"

namespace cordon::api {

namespace {

// The name the parser's messages give as the file: a builder error is recognised by it.
constexpr std::string_view kSource = "PolicyBuilder";

// The builder call behind each key of the text it writes.
struct KeyCall {
  std::string_view key;
  std::string_view call;
};
constexpr KeyCall kCalls[] = {
    {"[sandbox] mode", "mode"},           {"[sandbox] writable", "writable"},
    {"[sandbox] hide", "hide"},           {"[sandbox] env_hide", "hide_env"},
    {"[sandbox] protect", "protect"},     {"[network] allow", "allow_network"},
    {"[network] deny", "deny_network"},   {"[network] unknown", "ask_unknown_hosts"},
    {"[limits] memory", "memory_limit"},  {"[limits] cpu_seconds", "cpu_seconds"},
    {"[limits] pids", "max_processes"},   {"[limits] file_size", "file_size_limit"},
    {"[limits] open_files", "open_files_limit"}, {"[away] timeout", "away_timeout"},
};

toml::array array_of(const std::vector<std::string>& values) {
  toml::array a;
  for (const auto& v : values) a.push_back(v);
  return a;
}

// The parser's "PolicyBuilder:LINE: KEY: WHAT. Fix this line ..." as the builder call that
// gave the value: "PolicyBuilder: writable("x"): WHAT. Fix: ...".
Error builder_error(const cordon::Error& e) {
  std::string_view m = e.message;
  std::string_view rest = m.substr(std::min(m.size(), kSource.size()));
  if (size_t colon = rest.find(": "); colon != std::string_view::npos) rest = rest.substr(colon + 2);
  std::string key, call = "build";
  if (size_t colon = rest.find(": "); colon != std::string_view::npos) {
    key = std::string(rest.substr(0, colon));
    rest = rest.substr(colon + 2);
  }
  std::string_view what = rest.substr(0, rest.find(". Fix this line"));
  std::string index;
  if (size_t open = key.rfind('['); open != std::string::npos && open > 0 && key.back() == ']') {
    index = key.substr(open + 1, key.size() - open - 2);
    key.erase(open);
  }
  for (const auto& kc : kCalls)
    if (kc.key == key) call = std::string(kc.call);
  std::string which = index.empty() ? "" : fmt::format(" (call number {} of it)", std::stoul(index) + 1);
  return Error{ErrorCode::kInvalid,
               fmt::format("PolicyBuilder: {}(){}: {}. Fix: change or remove that call.", call,
                           which, what),
               std::string{}, 0};
}

}  // namespace

PolicyBuilder& PolicyBuilder::mode(std::string mode) {
  mode_ = std::move(mode);
  return *this;
}
PolicyBuilder& PolicyBuilder::writable(std::string home_path) {
  writable_.push_back(std::move(home_path));
  return *this;
}
PolicyBuilder& PolicyBuilder::hide(std::string path) {
  hide_.push_back(std::move(path));
  return *this;
}
PolicyBuilder& PolicyBuilder::hide_env(std::string pattern) {
  hide_env_.push_back(std::move(pattern));
  return *this;
}
PolicyBuilder& PolicyBuilder::protect(std::string project_path) {
  protect_.push_back(std::move(project_path));
  return *this;
}
PolicyBuilder& PolicyBuilder::allow_network(std::string host) {
  allow_.push_back(std::move(host));
  return *this;
}
PolicyBuilder& PolicyBuilder::deny_network(std::string host) {
  deny_.push_back(std::move(host));
  return *this;
}
PolicyBuilder& PolicyBuilder::ask_unknown_hosts(bool ask) {
  ask_unknown_ = ask;
  return *this;
}
PolicyBuilder& PolicyBuilder::memory_limit(std::uint64_t bytes) {
  limits_.push_back({"memory", bytes});
  return *this;
}
PolicyBuilder& PolicyBuilder::cpu_seconds(std::uint64_t seconds) {
  limits_.push_back({"cpu_seconds", seconds});
  return *this;
}
PolicyBuilder& PolicyBuilder::max_processes(std::uint64_t count) {
  limits_.push_back({"pids", count});
  return *this;
}
PolicyBuilder& PolicyBuilder::file_size_limit(std::uint64_t bytes) {
  limits_.push_back({"file_size", bytes});
  return *this;
}
PolicyBuilder& PolicyBuilder::open_files_limit(std::uint64_t count) {
  limits_.push_back({"open_files", count});
  return *this;
}
PolicyBuilder& PolicyBuilder::away_timeout(std::optional<std::chrono::seconds> after) {
  away_ = after;
  return *this;
}

Result<SandboxPolicy> PolicyBuilder::build() const {
  toml::table sandbox, network, limits, away;
  if (mode_) sandbox.insert("mode", *mode_);
  if (!writable_.empty()) sandbox.insert("writable", array_of(writable_));
  if (!hide_.empty()) sandbox.insert("hide", array_of(hide_));
  if (!hide_env_.empty()) sandbox.insert("env_hide", array_of(hide_env_));
  if (!protect_.empty()) sandbox.insert("protect", array_of(protect_));
  if (!allow_.empty()) network.insert("allow", array_of(allow_));
  if (!deny_.empty()) network.insert("deny", array_of(deny_));
  if (ask_unknown_) network.insert("unknown", *ask_unknown_ ? "ask" : "refuse");
  for (const auto& l : limits_) {
    // TOML integers are signed 64-bit: a larger value is refused by the parser as not positive.
    auto v = l.value > static_cast<std::uint64_t>(INT64_MAX) ? int64_t{-1}
                                                              : static_cast<int64_t>(l.value);
    limits.insert_or_assign(l.key, v);
  }
  if (away_) away.insert("timeout", *away_ ? fmt::format("{}s", (*away_)->count()) : "off");
  toml::table root;
  for (auto [name, t] : {std::pair{"sandbox", &sandbox}, {"network", &network},
                         {"limits", &limits}, {"away", &away}})
    if (!t->empty()) root.insert(name, std::move(*t));
  std::ostringstream text;
  text << root << "\n";
  auto parsed = parse_config(text.str(), std::string(kSource));
  if (!parsed.ok()) return builder_error(parsed.error());
  return SandboxPolicy(text.str());
}

}  // namespace cordon::api
