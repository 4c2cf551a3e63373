// libFuzzer target for the shell tokenizer and the command classifier (CMD-1): whatever the
// bytes, no crash, no hang, nesting stays within the limit, and a line the tokenizer could not
// parse is never called read-only.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "commands/classify.h"
#include "commands/shell_tokenizer.h"

namespace {

int nesting(const cordon::ShellScript& s) {
  int deepest = 0;
  for (const auto& c : s.commands)
    for (const auto& sub : c.substitutions) {
      int d = 1 + nesting(sub);
      if (d > deepest) deepest = d;
    }
  return deepest;
}

const cordon::CommandClassifier& classifier() {
  static const cordon::CommandClassifier c = [] {
    cordon::CommandsConfig config;
    config.denied = {"docker", "git push"};
    config.denied_paths = {"/srv/secret", "~/private"};
    config.sensitive.dirs = {"config/secrets"};
    auto made = cordon::CommandClassifier::create(config);
    if (!made.ok()) __builtin_trap();
    return std::move(made).value();
  }();
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view line(reinterpret_cast<const char*>(data), size);
  cordon::ShellLimits limits;
  cordon::ShellScript script = cordon::parse_shell(line, 0, limits);
  if (nesting(script) > limits.max_depth + 1) __builtin_trap();

  cordon::ClassifyContext ctx;
  ctx.cwd = "/home/u/proj";
  ctx.home = "/home/u";
  ctx.resolve = [](const std::string& p) {
    // A symlink in the fake world, so the resolver path is exercised.
    const std::string link = "/home/u/proj/keys";
    if (p.compare(0, link.size(), link) == 0) return "/home/u/.ssh" + p.substr(link.size());
    return p;
  };
  cordon::Classification c = classifier().classify_line(line, ctx);
  if (c.reason.empty()) __builtin_trap();
  if (!script.complete && c.cls == cordon::CommandClass::kReadOnly) __builtin_trap();

  // The same bytes as an argv, split at newlines.
  std::vector<std::string> argv;
  size_t start = 0;
  for (size_t i = 0; i <= line.size() && argv.size() < 64; ++i) {
    if (i == line.size() || line[i] == '\n') {
      argv.emplace_back(line.substr(start, i - start));
      start = i + 1;
    }
  }
  cordon::Classification a = classifier().classify_argv(argv, ctx);
  if (a.reason.empty()) __builtin_trap();
  return 0;
}
