#include "commands/write_options.h"

#include <initializer_list>

#include "core/strings.h"

namespace cordon {

namespace {

using Args = std::vector<std::string>;
using Found = std::optional<WriteOption>;

Found found(std::string_view word, std::string_view why) {
  return WriteOption{std::string(word), std::string(why)};
}

bool is_one_of(std::string_view a, std::initializer_list<std::string_view> set) {
  for (auto s : set)
    if (a == s) return true;
  return false;
}

// An argument equal to one of `names`, or `name=value` for one of them.
const std::string* long_option(const Args& args, std::initializer_list<std::string_view> names) {
  for (const auto& a : args) {
    if (a == "--") return nullptr;
    for (auto n : names) {
      if (a == n) return &a;
      if (a.size() > n.size() && starts_with(a, n) && a[n.size()] == '=') return &a;
    }
  }
  return nullptr;
}

// A short option `letter` inside a cluster such as `-uo` (before a letter that takes a value,
// which swallows the rest of the cluster).
const std::string* short_option(const Args& args, char letter, std::string_view with_value) {
  for (const auto& a : args) {
    if (a == "--") return nullptr;
    if (a.size() < 2 || a[0] != '-' || a[1] == '-') continue;
    for (size_t j = 1; j < a.size(); ++j) {
      if (a[j] == letter) return &a;
      if (with_value.find(a[j]) != std::string_view::npos) break;
    }
  }
  return nullptr;
}

// Operands (not options, not option values) given the short options that take a value.
std::vector<std::string> operands(const Args& args, std::string_view short_with_value,
                                  std::initializer_list<std::string_view> long_with_value) {
  std::vector<std::string> out;
  bool only_operands = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (only_operands || a == "-" || a.empty() || a[0] != '-') {
      out.push_back(a);
      continue;
    }
    if (a == "--") {
      only_operands = true;
      continue;
    }
    if (a[1] == '-') {
      if (a.find('=') == std::string::npos && is_one_of(a, long_with_value)) ++i;
      continue;
    }
    for (size_t j = 1; j < a.size(); ++j) {
      if (short_with_value.find(a[j]) != std::string_view::npos) {
        if (j + 1 == a.size()) ++i;  // the value is the next word
        break;
      }
    }
  }
  return out;
}

// --- sed ------------------------------------------------------------------------------------

class SedScript {
 public:
  explicit SedScript(std::string_view s) : s_(s) {}

  bool safe() {
    while (true) {
      skip_separators();
      if (i_ >= s_.size()) return true;
      if (s_[i_] == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
        continue;
      }
      if (s_[i_] == '}') {
        ++i_;
        continue;
      }
      if (!address()) return false;
      skip_blanks();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        skip_blanks();
        if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '~')) {
          ++i_;
          if (!digits()) return false;
        } else if (!address() || !had_address_) {
          return false;
        }
      }
      skip_blanks();
      while (i_ < s_.size() && s_[i_] == '!') {
        ++i_;
        skip_blanks();
      }
      if (i_ >= s_.size()) return false;
      char c = s_[i_++];
      switch (c) {
        case '{':
          continue;
        case '=':
        case 'd':
        case 'D':
        case 'g':
        case 'G':
        case 'h':
        case 'H':
        case 'n':
        case 'N':
        case 'p':
        case 'P':
        case 'x':
        case 'z':
        case 'F':
          if (!command_end()) return false;
          continue;
        case 'l':
        case 'q':
        case 'Q':
        case 'L':
          skip_blanks();
          digits();
          if (!command_end()) return false;
          continue;
        case ':':
        case 'b':
        case 't':
        case 'T':
        case 'v':
          while (i_ < s_.size() && s_[i_] != ';' && s_[i_] != '\n') ++i_;
          continue;
        case 'a':
        case 'i':
        case 'c':
          text_argument();
          continue;
        case 's':
          if (!substitute()) return false;
          continue;
        case 'y':
          if (!transliterate()) return false;
          continue;
        default:
          return false;  // w W r R e, and whatever we do not know
      }
    }
  }

 private:
  void skip_blanks() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  }
  void skip_separators() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == ';'))
      ++i_;
  }
  bool digits() {
    size_t start = i_;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    return i_ > start;
  }
  // After a command: blanks, then `;`, a newline, `}`, `#` or the end.
  bool command_end() {
    skip_blanks();
    return i_ >= s_.size() || s_[i_] == ';' || s_[i_] == '\n' || s_[i_] == '}' || s_[i_] == '#';
  }
  // Reads up to the unescaped delimiter and steps over it.
  bool delimited(char delim) {
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == '\\') {
        i_ += 2;
        continue;
      }
      ++i_;
      if (c == delim) return true;
    }
    return false;
  }
  bool address() {
    had_address_ = false;
    if (i_ >= s_.size()) return true;
    char c = s_[i_];
    if (c >= '0' && c <= '9') {
      digits();
      if (i_ < s_.size() && s_[i_] == '~') {
        ++i_;
        if (!digits()) return false;
      }
      had_address_ = true;
      return true;
    }
    if (c == '$') {
      ++i_;
      had_address_ = true;
      return true;
    }
    if (c == '/' || c == '\\') {
      char delim = '/';
      if (c == '\\') {
        if (i_ + 1 >= s_.size()) return false;
        delim = s_[i_ + 1];
        i_ += 2;
      } else {
        ++i_;
      }
      if (delim == '\n' || delim == '\\') return false;
      if (!delimited(delim)) return false;
      while (i_ < s_.size() && (s_[i_] == 'I' || s_[i_] == 'M')) ++i_;
      had_address_ = true;
      return true;
    }
    return true;  // no address
  }
  void text_argument() {
    // a, i, c: text up to an unescaped newline.
    while (i_ < s_.size()) {
      if (s_[i_] == '\\') {
        i_ += 2;
        continue;
      }
      if (s_[i_] == '\n') return;
      ++i_;
    }
  }
  bool substitute() {
    if (i_ >= s_.size()) return false;
    char delim = s_[i_++];
    if (delim == '\n' || delim == '\\') return false;
    if (!delimited(delim) || !delimited(delim)) return false;
    while (i_ < s_.size()) {
      char f = s_[i_];
      if (f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' ||
          (f >= '0' && f <= '9')) {
        ++i_;
        continue;
      }
      break;  // `w` and `e` (and anything else) end up here
    }
    return command_end();
  }
  bool transliterate() {
    if (i_ >= s_.size()) return false;
    char delim = s_[i_++];
    if (delim == '\n' || delim == '\\') return false;
    if (!delimited(delim) || !delimited(delim)) return false;
    return command_end();
  }

  std::string_view s_;
  size_t i_ = 0;
  bool had_address_ = false;
};

Found sed_option(const Args& args) {
  bool sandbox = false;
  bool script_given = false;
  std::vector<std::string> scripts;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      if (!script_given && i + 1 < args.size()) scripts.push_back(args[i + 1]);
      script_given = true;
      break;
    }
    if (a.size() < 2 || a[0] != '-') {
      if (!script_given) {
        scripts.push_back(a);
        script_given = true;
      }
      continue;
    }
    if (a[1] == '-') {
      if (a == "--sandbox") {
        sandbox = true;
      } else if (starts_with(a, "--in-place")) {
        return found(a, "edits files in place");
      } else if (starts_with(a, "--expression=")) {
        scripts.push_back(a.substr(13));
        script_given = true;
      } else if (a == "--expression") {
        if (i + 1 < args.size()) scripts.push_back(args[++i]);
        script_given = true;
      } else if (starts_with(a, "--file")) {
        return found(a, "reads its script from a file, which cannot be checked");
      } else if (a == "--line-length") {
        ++i;
      } else if (!(starts_with(a, "--line-length=") ||
                   is_one_of(a, {"--quiet", "--silent", "--debug", "--posix", "--regexp-extended",
                                 "--separate", "--unbuffered", "--null-data", "--follow-symlinks",
                                 "--version", "--help"}))) {
        return found(a, "is an option not known to only read");
      }
      continue;
    }
    for (size_t j = 1; j < a.size(); ++j) {
      char c = a[j];
      if (c == 'n' || c == 'E' || c == 'r' || c == 's' || c == 'u' || c == 'z') continue;
      if (c == 'i') return found(a, "edits files in place");
      if (c == 'f') return found(a, "reads its script from a file, which cannot be checked");
      if (c == 'e' || c == 'l') {
        std::string value = a.substr(j + 1);
        if (value.empty() && i + 1 < args.size()) value = args[++i];
        if (c == 'e') {
          scripts.push_back(value);
          script_given = true;
        }
        break;
      }
      return found(a, "is an option not known to only read");
    }
  }
  if (sandbox) return std::nullopt;  // GNU sed --sandbox refuses e, w and r itself
  for (const auto& s : scripts)
    if (!sed_script_is_safe(s))
      return found(s, "is a sed script that can write files, read other files or run commands");
  return std::nullopt;
}

// --- awk ------------------------------------------------------------------------------------

Found awk_option(const Args& args) {
  bool sandbox = false;
  bool program_given = false;
  std::vector<std::string> programs;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      if (!program_given && i + 1 < args.size()) programs.push_back(args[i + 1]);
      program_given = true;
      break;
    }
    if (a.size() < 2 || a[0] != '-') {
      if (!program_given) {
        programs.push_back(a);
        program_given = true;
      }
      continue;  // later operands are files or var=value assignments
    }
    if (a[1] == '-') {
      std::string name = a.substr(0, a.find('='));
      if (name == "--sandbox") {
        sandbox = true;
      } else if (name == "--source") {
        std::string v = a.find('=') != std::string::npos ? a.substr(a.find('=') + 1)
                                                         : (i + 1 < args.size() ? args[++i] : "");
        programs.push_back(v);
        program_given = true;
      } else if (name == "--field-separator" || name == "--assign") {
        if (a.find('=') == std::string::npos) ++i;
      } else if (!is_one_of(name, {"--characters-as-bytes", "--traditional", "--copyright",
                                   "--lint", "--bignum", "--optimize", "--posix", "--re-interval",
                                   "--no-optimize", "--use-lc-numeric", "--version", "--help",
                                   "--gen-pot", "--non-decimal-data"})) {
        return found(a, "is an option that loads, dumps or runs code");
      }
      continue;
    }
    for (size_t j = 1; j < a.size(); ++j) {
      char c = a[j];
      if (c == 'F' || c == 'v') {
        if (j + 1 == a.size()) ++i;
        break;
      }
      if (c == 'e') {
        std::string value = a.substr(j + 1);
        if (value.empty() && i + 1 < args.size()) value = args[++i];
        programs.push_back(value);
        program_given = true;
        break;
      }
      if (c == 'S') {
        sandbox = true;
        continue;
      }
      if (std::string_view("bcChgLMnNOPrstV").find(c) != std::string_view::npos) continue;
      return found(a, "is an option that loads, dumps or runs code (-f, -E, -i, -l, -d, -o, -p)");
    }
  }
  if (sandbox) return std::nullopt;  // gawk --sandbox refuses system(), redirections, getline
  for (const auto& p : programs)
    if (!awk_program_is_safe(p))
      return found(p, "is an awk program that can run commands, write files or read other files");
  return std::nullopt;
}

// --- git ------------------------------------------------------------------------------------

Found git_option(const Args& args) {
  if (args.empty()) return std::nullopt;
  const std::string& sub = args[0];
  Args rest(args.begin() + 1, args.end());
  if (auto* a = long_option(rest, {"--output"})) return found(*a, "writes its output to a file");
  for (const auto& a : rest) {
    if (a == "--") break;
    if (a == "--ext-diff") return found(a, "runs an external diff program");
  }
  if (sub == "grep") {
    for (const auto& a : rest)
      if (starts_with(a, "-O") || starts_with(a, "--open-files-in-pager"))
        return found(a, "opens the matches in a program");
    return std::nullopt;
  }
  if (sub == "branch" || sub == "tag") {
    const bool branch = sub == "branch";
    const std::string_view write_letters = branch ? "dDmMcCfut" : "asufdmFe";
    static const std::vector<std::string_view> kBranchWrites = {"--delete",
                                                                "--move",
                                                                "--copy",
                                                                "--force",
                                                                "--set-upstream-to",
                                                                "--unset-upstream",
                                                                "--edit-description",
                                                                "--track",
                                                                "--no-track",
                                                                "--create-reflog",
                                                                "--recurse-submodules"};
    static const std::vector<std::string_view> kTagWrites = {
        "--annotate", "--sign", "--local-user", "--force",         "--delete",
        "--message",  "--file", "--edit",       "--create-reflog", "--trailer"};
    const auto& writes = branch ? kBranchWrites : kTagWrites;
    bool list = false;
    std::vector<std::string> names;
    for (size_t i = 0; i < rest.size(); ++i) {
      const std::string& a = rest[i];
      if (a == "--") {
        for (size_t k = i + 1; k < rest.size(); ++k) names.push_back(rest[k]);
        break;
      }
      if (a.empty() || a[0] != '-') {
        names.push_back(a);
        continue;
      }
      std::string name = a.substr(0, a.find('='));
      if (a[1] == '-') {
        for (auto w : writes)
          if (name == w) return found(a, branch ? "changes branches" : "changes tags");
        if (name == "--list" || (!branch && name == "--verify")) list = true;
        if (a.find('=') == std::string::npos &&
            is_one_of(name, {"--contains", "--no-contains", "--merged", "--no-merged",
                             "--points-at", "--format", "--sort"}))
          ++i;
        continue;
      }
      for (size_t j = 1; j < a.size(); ++j) {
        if (write_letters.find(a[j]) != std::string_view::npos)
          return found(a, branch ? "changes branches" : "changes tags");
        if (a[j] == 'l' || (!branch && a[j] == 'v')) list = true;
        if (!branch && a[j] == 'n') break;  // -n<lines>
      }
    }
    if (!names.empty() && !list)
      return found(names[0], branch ? "creates a branch" : "creates a tag");
    return std::nullopt;
  }
  if (sub == "remote") {
    for (const auto& a : rest) {
      if (a == "-v" || a == "--verbose") continue;
      if (a == "get-url") return std::nullopt;
      return found(a, "changes or contacts remotes");
    }
    return std::nullopt;
  }
  if (sub == "config") {
    bool read = false;
    bool first_operand = true;
    for (size_t i = 0; i < rest.size(); ++i) {
      const std::string& a = rest[i];
      std::string name = a.substr(0, a.find('='));
      if (is_one_of(name, {"--add", "--unset", "--unset-all", "--replace-all", "--rename-section",
                           "--remove-section", "-e", "--edit"}))
        return found(a, "changes git's configuration");
      if (is_one_of(name, {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l",
                           "--get-color", "--get-colorbool"}))
        read = true;
      if (a == "-f" || a == "--file" || a == "--blob" || a == "--type") {
        ++i;
        continue;
      }
      if (!a.empty() && a[0] != '-' && first_operand) {
        first_operand = false;
        if (is_one_of(a, {"set", "unset", "rename-section", "remove-section", "edit"}))
          return found(a, "changes git's configuration");
        if (a == "get" || a == "list") read = true;
      }
    }
    if (!read) return found(sub, "may set a value (only --get, --list, get and list only read)");
    return std::nullopt;
  }
  if (sub == "reflog") {
    for (const auto& a : rest) {
      if (a.empty() || a[0] == '-') continue;
      if (a == "show") return std::nullopt;
      return found(a, "changes the reflog");
    }
    return std::nullopt;
  }
  if (sub == "apply") {
    if (auto* a = long_option(rest, {"--apply", "--build-fake-ancestor"}))
      return found(*a, "applies the patch");
    return std::nullopt;
  }
  if (sub == "help") {
    for (const auto& a : rest)
      if (is_one_of(a, {"-w", "--web", "-i", "--info"})) return found(a, "opens a viewer");
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

bool sed_script_is_safe(std::string_view script) { return SedScript(script).safe(); }

bool awk_program_is_safe(std::string_view program) {
  // Redirections (`print > f`, `print | "cmd"`), system(), getline (which reads files and
  // commands), gawk's @ indirect calls and @load, and ARGV games that open other files. A `>`
  // comparison is refused too: telling it from a redirection needs a real awk parser.
  for (const char* bad : {"system", "getline", "|", ">", "close", "@", "ARGV", "ARGC"})
    if (program.find(bad) != std::string_view::npos) return false;
  return true;
}

std::optional<WriteOption> write_option(std::string_view program, const Args& args) {
  const std::string_view p = program;
  if (p == "find") {
    for (const auto& a : args)
      if (is_one_of(a, {"-exec", "-execdir", "-ok", "-okdir"}))
        return found(a, "runs a command on what it finds");
    for (const auto& a : args)
      if (is_one_of(a, {"-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}))
        return found(a, "deletes or writes files");
    return std::nullopt;
  }
  if (p == "fd" || p == "fdfind") {
    if (auto* a = long_option(args, {"--exec", "--exec-batch"}))
      return found(*a, "runs a command on what it finds");
    if (auto* a = short_option(args, 'x', "decEtSjoC")) return found(*a, "runs a command");
    if (auto* a = short_option(args, 'X', "decEtSjoC")) return found(*a, "runs a command");
    return std::nullopt;
  }
  if (p == "rg") {
    if (auto* a = long_option(args, {"--pre", "--hostname-bin"}))
      return found(*a, "runs a program on each file");
    return std::nullopt;
  }
  if (p == "ag") {
    if (auto* a = long_option(args, {"--pager"})) return found(*a, "runs a pager program");
    return std::nullopt;
  }
  if (p == "sort") {
    if (auto* a = long_option(args, {"--output", "--compress-program"}))
      return found(*a, "writes a file or runs a program");
    if (auto* a = short_option(args, 'o', "ktST")) return found(*a, "writes its output to a file");
    return std::nullopt;
  }
  if (p == "shuf") {
    if (auto* a = long_option(args, {"--output"})) return found(*a, "writes its output to a file");
    if (auto* a = short_option(args, 'o', "in")) return found(*a, "writes its output to a file");
    return std::nullopt;
  }
  if (p == "iconv") {
    if (auto* a = long_option(args, {"--output"})) return found(*a, "writes its output to a file");
    if (auto* a = short_option(args, 'o', "ft")) return found(*a, "writes its output to a file");
    return std::nullopt;
  }
  if (p == "sdiff") {
    if (auto* a = long_option(args, {"--output"})) return found(*a, "writes its output to a file");
    if (auto* a = short_option(args, 'o', "Iw")) return found(*a, "writes its output to a file");
    return std::nullopt;
  }
  if (p == "tree") {
    if (auto* a = short_option(args, 'o', "LPIHT")) return found(*a, "writes its output to a file");
    if (auto* a = short_option(args, 'R', "LPIHT")) return found(*a, "writes files in each folder");
    return std::nullopt;
  }
  if (p == "uniq") {
    auto ops = operands(args, "fsw", {"--skip-fields", "--skip-chars", "--check-chars"});
    if (ops.size() >= 2) return found(ops[1], "is an output file uniq would write");
    return std::nullopt;
  }
  if (p == "xxd") {
    auto ops = operands(args, "cglnos", {});
    if (ops.size() >= 2) return found(ops[1], "is an output file xxd would write");
    return std::nullopt;
  }
  if (p == "date") {
    if (auto* a = long_option(args, {"--set"})) return found(*a, "sets the clock");
    if (auto* a = short_option(args, 's', "dfrI")) return found(*a, "sets the clock");
    return std::nullopt;
  }
  if (p == "hostname") {
    for (const auto& a : args)
      if (!is_one_of(a, {"-a",       "-A",     "-d",     "-f",           "-i",
                         "-I",       "-s",     "-y",     "--alias",      "--all-fqdns",
                         "--domain", "--fqdn", "--long", "--ip-address", "--all-ip-addresses",
                         "--short",  "--yp",   "--nis",  "-V",           "--version",
                         "-h",       "--help"}))
        return found(a, "may set the host name");
    return std::nullopt;
  }
  if (p == "dmesg") {
    if (auto* a = long_option(
            args, {"--clear", "--read-clear", "--console-off", "--console-on", "--console-level"}))
      return found(*a, "changes the kernel log");
    for (char c : std::string_view("cCDEn"))
      if (auto* a = short_option(args, c, "fFlsS")) return found(*a, "changes the kernel log");
    return std::nullopt;
  }
  if (p == "journalctl") {
    for (const auto& a : args)
      for (auto w : {"--vacuum-", "--rotate", "--flush", "--sync", "--relinquish-var",
                     "--smart-relinquish-var", "--setup-keys", "--update-catalog"})
        if (starts_with(a, w)) return found(a, "changes the journal");
    return std::nullopt;
  }
  if (p == "file") {
    if (auto* a = long_option(args, {"--compile"})) return found(*a, "writes a compiled file");
    if (auto* a = short_option(args, 'C', "efFmP")) return found(*a, "writes a compiled file");
    return std::nullopt;
  }
  if (p == "ss") {
    if (auto* a = long_option(args, {"--kill"})) return found(*a, "closes sockets");
    if (auto* a = short_option(args, 'K', "fAFN")) return found(*a, "closes sockets");
    return std::nullopt;
  }
  if (p == "set") {
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a.size() >= 2 && a[0] == '-' && a[1] != '-' && a.find('k') != std::string::npos)
        return found(a, "lets later words set the environment");
      if ((a == "-o" || a == "+o") && i + 1 < args.size() && args[i + 1] == "keyword")
        return found(args[i + 1], "lets later words set the environment");
    }
    return std::nullopt;
  }
  if (p == "test" || p == "[") {
    for (const auto& a : args)
      if (a == "-v") return found(a, "evaluates array subscripts, which can run commands");
    return std::nullopt;
  }
  if (p == "printf") {
    if (!args.empty() && starts_with(args[0], "-v"))
      return found(args[0], "assigns through a name, which can run commands");
    return std::nullopt;
  }
  if (p == "go") {
    if (!args.empty() && args[0] == "env")
      for (const auto& a : args)
        if (a == "-w" || a == "-u") return found(a, "changes go's settings");
    return std::nullopt;
  }
  if (p == "gofmt") {
    for (const auto& a : args)
      if (a == "-w" || starts_with(a, "-w=") || a == "--w") return found(a, "rewrites files");
    return std::nullopt;
  }
  if (p == "zstd") {
    if (auto* a = long_option(args, {"--rm", "--output-dir-flat", "--output-dir-mirror"}))
      return found(*a, "removes or writes files");
    for (const auto& a : args)
      if (a == "-o") return found(a, "writes its output to a file");
    return std::nullopt;
  }
  if (p == "tar") {
    bool force_local = false;
    for (const auto& a : args)
      if (a == "--force-local") force_local = true;
    for (const auto& a : args) {
      for (auto w : {"--to-command", "--checkpoint-action", "--use-compress-program",
                     "--info-script", "--new-volume-script", "--rsh-command", "--rmt-command"})
        if (starts_with(a, w)) return found(a, "runs a program");
      if (a == "-I" || a == "-F") return found(a, "runs a program");
      size_t colon = a.find(':');
      if (!force_local && colon != std::string::npos && a[0] != '-' && a.find('/') > colon)
        return found(a, "names an archive on another host, reached through a remote shell");
    }
    return std::nullopt;
  }
  if (p == "yq") {
    if (auto* a = long_option(args, {"--inplace", "--split-exp"})) return found(*a, "writes files");
    if (auto* a = short_option(args, 'i', "opIsx")) return found(*a, "edits files in place");
    if (auto* a = short_option(args, 's', "opIx")) return found(*a, "writes one file per match");
    return std::nullopt;
  }
  if (p == "xmllint") {
    for (const auto& a : args)
      if (is_one_of(a, {"-o", "--output", "-output", "--shell", "-shell"}) ||
          starts_with(a, "--output="))
        return found(a, "writes files or opens a shell that can");
    return std::nullopt;
  }
  if (p == "sysctl") {
    for (const auto& a : args) {
      if (is_one_of(a, {"-w", "--write", "-p", "--load", "--system"}) ||
          starts_with(a, "--load=") ||
          (a.size() > 1 && a[0] == '-' && a[1] != '-' &&
           a.find_first_of("wp") != std::string::npos))
        return found(a, "changes kernel settings");
      if (!a.empty() && a[0] != '-' && a.find('=') != std::string::npos)
        return found(a, "changes a kernel setting");
    }
    return std::nullopt;
  }
  if (p == "rpm") {
    for (const auto& a : args) {
      for (auto w : {"--setperms", "--setugids", "--setcaps", "--restore", "--erase", "--install",
                     "--upgrade", "--freshen", "--reinstall", "--import", "--initdb", "--rebuilddb",
                     "--delete"})
        if (starts_with(a, w)) return found(a, "changes installed packages or the database");
      if (a.size() > 1 && a[0] == '-' && a[1] != '-' &&
          a.find_first_of("eiUF") != std::string::npos)
        return found(a, "changes installed packages");
    }
    return std::nullopt;
  }
  if (p == "sed") return sed_option(args);
  if (p == "awk" || p == "gawk" || p == "mawk" || p == "nawk") return awk_option(args);
  if (p == "git") return git_option(args);
  return std::nullopt;
}

}  // namespace cordon
