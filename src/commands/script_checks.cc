#include "commands/script_checks.h"

#include <initializer_list>

namespace cordon {

namespace {

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

bool sed_script_is_safe(std::string_view script) { return SedScript(script).safe(); }
bool awk_program_is_safe(std::string_view program) { return AwkScan(program).safe(); }

}  // namespace cordon
