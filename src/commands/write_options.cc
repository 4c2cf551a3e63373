#include "commands/write_options.h"

#include <initializer_list>

#include "commands/long_options.h"
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

// `git config`: reading names a key and nothing else (`git config user.name`), or uses --get,
// --list, `get` or `list`; a second operand sets a value.
Found git_config_option(const Args& rest) {
  const OptionTable& table = *option_table("git config");
  bool read = false;
  std::vector<std::string> operands;
  for (size_t i = 0; i < rest.size(); ++i) {
    const std::string& a = rest[i];
    if (a == "--") {
      operands.insert(operands.end(), rest.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                      rest.end());
      break;
    }
    if (starts_with(a, "--")) {
      OptionHit h = find_option(table, a);
      std::string_view n = h.option ? h.option->name : std::string_view();
      if (starts_with(n, "get") || n == "list") read = true;
      if (a.find('=') == std::string::npos &&
          is_one_of(n, {"file", "blob", "type", "default", "comment"}))
        ++i;
      continue;
    }
    if (a.size() > 1 && a[0] == '-') {
      if (a == "-e") return found(a, "changes git's configuration");
      if (a == "-l") read = true;
      if (a == "-f") ++i;
      continue;
    }
    operands.push_back(a);
  }
  if (!operands.empty() &&
      is_one_of(operands[0], {"set", "unset", "rename-section", "remove-section", "edit"}))
    return found(operands[0], "changes git's configuration");
  if (!operands.empty() && (operands[0] == "get" || operands[0] == "list")) return std::nullopt;
  if (read || operands.size() == 1) return std::nullopt;
  return found("config", "may set a value (a key alone, --get, --list, get and list only read)");
}

Found git_option(const Args& args) {
  if (args.empty()) return std::nullopt;
  const std::string& sub = args[0];
  Args rest(args.begin() + 1, args.end());
  // The subcommand's own table (abbreviations included), else the diff options every
  // subcommand that shows changes takes.
  const OptionTable* own = option_table("git " + sub);
  if (auto f = first_unsafe_option(own ? *own : *option_table("git"), rest)) return f;
  if (sub == "grep") {
    for (const auto& a : rest) {
      if (a == "--") break;
      if (starts_with(a, "-O")) return found(a, "opens the matches in a program");
    }
    return std::nullopt;
  }
  if (sub == "branch" || sub == "tag") {
    const bool branch = sub == "branch";
    const std::string_view write_letters = branch ? "dDmMcCfut" : "asufdmFe";
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
      if (a[1] == '-') {
        // Writing options were refused above, abbreviated or not; here the name as git reads it.
        OptionHit h = find_option(*own, a);
        std::string_view name = h.option ? h.option->name : std::string_view();
        if (name == "list" || (!branch && name == "verify")) list = true;
        if (a.find('=') == std::string::npos &&
            is_one_of(name, {"contains", "no-contains", "merged", "no-merged", "points-at",
                             "format", "sort"}))
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
  if (sub == "config") return git_config_option(rest);
  if (sub == "reflog") {
    for (const auto& a : rest) {
      if (a.empty() || a[0] == '-') continue;
      if (a == "show") return std::nullopt;
      return found(a, "changes the reflog");
    }
    return std::nullopt;
  }
  if (sub == "help") {
    for (const auto& a : rest)
      if (is_one_of(a, {"-w", "-i"})) return found(a, "opens a viewer");
    return std::nullopt;
  }
  return std::nullopt;
}

// binutils and 7-Zip read more arguments from `@FILE` (a response file): file names and options
// that cannot be checked (CMD-3).
Found response_file(std::string_view p, const Args& args) {
  if (!is_one_of(p, {"nm", "objdump", "readelf", "size", "c++filt", "addr2line", "strings", "7z",
                     "7za", "7zz", "7zr"}))
    return std::nullopt;
  for (const auto& a : args)
    if (a.size() > 1 && a[0] == '@')
      return found(a,
                   "reads more arguments (file names, options) from a file, which cannot be "
                   "checked (CMD-3)");
  return std::nullopt;
}

// `ip [OPTIONS] OBJECT [show|list|get ...]`: anything else changes the network setup, and
// `-batch FILE` or `netns exec` runs commands.
Found ip_option(const Args& args) {
  size_t i = 0;
  for (; i < args.size() && starts_with(args[i], "-"); ++i) {
    const std::string& a = args[i];
    if (is_one_of(a, {"-b", "-batch", "--batch", "-force", "-n", "-netns"}))
      return found(a, "runs commands from a file or in another namespace");
    if (is_one_of(a, {"-f", "-family", "-l", "-loops", "-rc", "-rcvbuf"})) ++i;
  }
  if (i >= args.size()) return std::nullopt;
  if (i + 1 >= args.size()) return std::nullopt;  // `ip addr`: shows
  const std::string& verb = args[i + 1];
  if (is_one_of(verb, {"show", "list", "ls", "lst", "get", "help"}) || verb.rfind("dev", 0) == 0)
    return std::nullopt;
  return found(verb, "changes the network setup (only show, list and get read)");
}

}  // namespace

bool sed_script_is_safe(std::string_view script) { return SedScript(script).safe(); }

namespace {

// Reads an awk program token by token: strings, regular expressions and comments are skipped,
// so `$3 > 100` is a comparison and `print > "f"` a redirection (the tell: a `>` at the print
// statement's own level of parentheses).
class AwkScan {
 public:
  explicit AwkScan(std::string_view p) : p_(p) {}

  bool safe() {
    while (i_ < p_.size()) {
      char c = p_[i_];
      if (c == '"') {
        if (!skip_quoted('"')) return false;
        operand_ = true;
      } else if (c == '/' && !operand_) {
        if (!skip_quoted('/')) return false;
        operand_ = true;
      } else if (c == '#') {
        while (i_ < p_.size() && p_[i_] != '\n') ++i_;
      } else if (is_word(c)) {
        if (!word()) return false;
      } else if (!punct(c)) {
        return false;
      }
    }
    return true;
  }

 private:
  static bool is_word(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9');
  }
  bool skip_quoted(char q) {
    for (++i_; i_ < p_.size(); ++i_) {
      if (p_[i_] == '\\') {
        ++i_;
      } else if (p_[i_] == q) {
        ++i_;
        return true;
      } else if (p_[i_] == '\n') {
        return false;
      }
    }
    return false;
  }
  bool word() {
    size_t start = i_;
    while (i_ < p_.size() && is_word(p_[i_])) ++i_;
    std::string_view w = p_.substr(start, i_ - start);
    // Runs commands, reads files it was not given, or changes which files it reads.
    for (std::string_view bad : {"system", "getline", "close", "ARGV", "ARGC", "PROCINFO"})
      if (w == bad) return false;
    if (w == "print" || w == "printf") {
      print_depth_ = depth_;
      in_print_ = true;
    }
    operand_ = !is_one_of(
        w, {"print", "printf", "return", "in", "if", "while", "for", "do", "else", "case"});
    return true;
  }
  bool punct(char c) {
    ++i_;
    switch (c) {
      case '(':
      case '[':
        ++depth_;
        operand_ = false;
        return true;
      case ')':
      case ']':
        --depth_;
        operand_ = true;
        return true;
      case ';':
      case '\n':
      case '{':
      case '}':
        in_print_ = false;
        operand_ = false;
        return true;
      case '|':
        if (i_ < p_.size() && p_[i_] == '|') {
          ++i_;
          operand_ = false;
          return true;
        }
        return false;  // a pipe into or out of a command
      case '>':
        if (in_print_ && depth_ <= print_depth_) return false;  // print > file
        operand_ = false;
        return true;
      case '@':
        return false;  // gawk's @load, @include and indirect calls
      case '$':
        operand_ = false;
        return true;
      default:
        if (std::string_view(" \t\r\\,<=!~+-*%^?:&.'").find(c) == std::string_view::npos)
          return false;
        operand_ = c == '.';
        return true;
    }
  }

  std::string_view p_;
  size_t i_ = 0;
  int depth_ = 0;
  int print_depth_ = 0;
  bool in_print_ = false;
  bool operand_ = false;
};

}  // namespace

bool awk_program_is_safe(std::string_view program) { return AwkScan(program).safe(); }

std::optional<WriteOption> write_option(std::string_view program, const Args& args) {
  const std::string_view p = program;
  if (p != "git")
    if (const OptionTable* t = option_table(p))
      if (auto f = first_unsafe_option(*t, args)) return f;
  if (auto f = response_file(p, args)) return f;
  if (p == "find") {
    for (const auto& a : args)
      if (is_one_of(a, {"-exec", "-execdir", "-ok", "-okdir"}))
        return found(a, "runs a command on what it finds");
    for (const auto& a : args)
      if (is_one_of(a, {"-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}))
        return found(a, "deletes or writes files");
    for (const auto& a : args)
      if (a == "-files0-from")
        return found(a,
                     "reads the names of the folders to search from a file or standard "
                     "input, which cannot be checked (CMD-3)");
    return std::nullopt;
  }
  if (p == "fd" || p == "fdfind") {
    if (auto* a = short_option(args, 'x', "decEtSjoC")) return found(*a, "runs a command");
    if (auto* a = short_option(args, 'X', "decEtSjoC")) return found(*a, "runs a command");
    return std::nullopt;
  }
  if (p == "rg") {
    return std::nullopt;
  }
  if (p == "ag") {
    return std::nullopt;
  }
  if (p == "sort") {
    if (auto* a = short_option(args, 'o', "ktST")) return found(*a, "writes its output to a file");
    return std::nullopt;
  }
  if (p == "shuf") {
    if (auto* a = short_option(args, 'o', "in")) return found(*a, "writes its output to a file");
    return std::nullopt;
  }
  if (p == "iconv") {
    if (auto* a = short_option(args, 'o', "ft")) return found(*a, "writes its output to a file");
    return std::nullopt;
  }
  if (p == "sdiff") {
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
    if (auto* a = short_option(args, 'C', "efFmP")) return found(*a, "writes a compiled file");
    if (auto* a = short_option(args, 'f', "eFmP"))
      return found(*a,
                   "reads the names of the files to read from a file, which cannot be "
                   "checked (CMD-3)");
    return std::nullopt;
  }
  if (p == "ss") {
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
      if (a == "-T" || (starts_with(a, "-T") && a.size() > 2 && a[1] != '-'))
        return found(a,
                     "reads the names of the files to read from a file or standard input, "
                     "which cannot be checked (CMD-3)");
      if (a == "-g") return found(a, "writes an incremental snapshot file");
      size_t colon = a.find(':');
      if (!force_local && colon != std::string::npos && a[0] != '-' && a.find('/') > colon)
        return found(a, "names an archive on another host, reached through a remote shell");
    }
    return std::nullopt;
  }
  if (p == "yq") {
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
  if (p == "ip") return ip_option(args);
  if (p == "rustc") {
    // `rustc --print NAME` (or --print=NAME): anything more may compile and write.
    size_t n = !args.empty() && starts_with(args[0], "--print=") ? 1 : 2;
    if (args.size() > n) return found(args[n], "makes rustc do more than print");
    return std::nullopt;
  }
  if (p == "sed") return sed_option(args);
  if (p == "awk" || p == "gawk" || p == "mawk" || p == "nawk") return awk_option(args);
  if (p == "git") return git_option(args);
  return std::nullopt;
}

}  // namespace cordon
