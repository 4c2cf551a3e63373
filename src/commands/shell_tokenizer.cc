#include "commands/shell_tokenizer.h"

#include <cctype>
#include <cstdint>
#include <string>
#include <utility>

namespace cordon {

bool is_shell_name(std::string_view s) {
  if (s.empty()) return false;
  auto start = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!start(s[0])) return false;
  for (char c : s)
    if (!start(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }
bool is_meta(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' ||
         c == ')' || c == '<' || c == '>';
}
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The one-letter escapes of $'...' and what they stand for; -1 for the others.
int simple_escape(char e) {
  switch (e) {
    case 'a':
      return 7;
    case 'b':
      return 8;
    case 'e':
    case 'E':
      return 27;
    case 'f':
      return 12;
    case 'n':
      return 10;
    case 'r':
      return 13;
    case 't':
      return 9;
    case 'v':
      return 11;
    case '\\':
    case '\'':
    case '"':
    case '?':
      return e;
    default:
      return -1;
  }
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The first problem met anywhere in one parse, shared by the parsers of nested buffers
// (backquotes, here-documents).
struct Failure {
  bool failed = false;
  std::string problem;
  size_t offset = 0;
};

struct PendingHereDoc {
  int level;           // the parse_list nesting that saw the `<<`
  ShellScript* into;   // the script holding the command
  size_t cmd_index;    // index of the command in into->commands
  size_t redir_index;  // index of the redirection in that command
  std::string delimiter;
  bool quoted;
  bool strip_tabs;
  size_t offset;
};

enum class Construct { kSubshell, kGroup, kIfCond, kIfBody, kIfElse, kLoopCond, kLoopBody };

class Parser {
 public:
  Parser(std::string_view src, size_t base, const ShellLimits& limits, Failure& failure,
         size_t& command_count)
      : s_(src), base_(base), lim_(limits), fail_(failure), count_(command_count) {}

  // Parses commands until the end of the buffer or, with until_paren, the `)` that closes a
  // `$(` or `<(`.
  void parse_list(ShellScript& into, bool until_paren, int depth);
  // Reads the whole buffer as the body of an unquoted here-document: only expansions and
  // substitutions matter there.
  void scan_here_doc_body(SimpleCommand& cmd, ShellWord& flags, int depth);

 private:
  bool failed() const { return fail_.failed; }
  void fail(const std::string& msg, size_t at) {
    if (fail_.failed) return;
    fail_.failed = true;
    fail_.problem = msg;
    fail_.offset = base_ + at;
  }
  bool eof() const { return pos_ >= s_.size(); }
  char peek(size_t k = 0) const { return pos_ + k < s_.size() ? s_[pos_ + k] : '\0'; }
  // A newline inside quotes while a here-document waits for its body: sh would read the body
  // only after the line ends, which we do not try to follow.
  void quoted_newline() {
    if (!pending_.empty()) fail("a quoted string spans lines while a here-document waits", pos_);
  }
  bool too_deep(int depth) {
    if (depth <= lim_.max_depth) return false;
    fail("the command nests substitutions and quotes too deeply", pos_);
    return true;
  }

  void skip_blanks();
  void skip_comment();
  ShellWord read_word(SimpleCommand& cmd, int depth);
  void single_quote(ShellWord& w);
  void double_quote(ShellWord& w, SimpleCommand& cmd, int depth);
  void dollar(ShellWord& w, SimpleCommand& cmd, int depth, bool in_dq);
  void ansi_c_quote(ShellWord& w);
  void arithmetic(ShellWord& w);
  void brace_parameter(ShellWord& w, SimpleCommand& cmd, int depth, bool in_dq);
  void command_substitution(ShellWord& w, SimpleCommand& cmd, int depth, bool in_dq);
  void process_substitution(ShellWord& w, SimpleCommand& cmd, int depth);
  void backquote(ShellWord& w, SimpleCommand& cmd, int depth, bool in_dq);
  void redirection(ShellScript& into, SimpleCommand& cur, int depth);
  bool read_pending_here_docs(int depth);
  bool for_header(ShellScript& into, int depth);

  static void mark(ShellWord& w, bool in_dq) {
    w.has_expansion = true;
    if (!in_dq) w.unquoted_expansion = true;
  }

  std::string_view s_;
  size_t pos_ = 0;
  size_t base_;
  const ShellLimits& lim_;
  Failure& fail_;
  size_t& count_;
  std::vector<PendingHereDoc> pending_;
};

void Parser::skip_blanks() {
  while (!eof()) {
    char c = s_[pos_];
    if (c == ' ' || c == '\t') {
      ++pos_;
    } else if (c == '\\' && peek(1) == '\n') {
      pos_ += 2;  // line continuation
    } else {
      return;
    }
  }
}

void Parser::skip_comment() {
  while (!eof() && s_[pos_] != '\n') ++pos_;
}

ShellWord Parser::read_word(SimpleCommand& cmd, int depth) {
  ShellWord w;
  w.offset = base_ + pos_;
  const size_t start = pos_;
  bool plain = true;
  int brace_depth = 0;
  bool brace_separator = false;
  bool open_bracket = false;
  while (!eof() && !failed()) {
    char c = s_[pos_];
    if (c == '<' || c == '>') {
      if (pos_ == start && peek(1) == '(') {
        process_substitution(w, cmd, depth);
        plain = false;
        continue;
      }
      break;
    }
    if (is_meta(c)) break;
    switch (c) {
      case '\\':
        if (peek(1) == '\n') {
          pos_ += 2;  // a line continuation vanishes before words are read: still plain
          continue;
        }
        plain = false;
        if (pos_ + 1 >= s_.size()) {
          w.text += '\\';  // a trailing backslash stays itself
          ++pos_;
        } else {
          w.text += s_[pos_ + 1];
          w.quoted = true;
          pos_ += 2;
        }
        continue;
      case '\'':
        plain = false;
        single_quote(w);
        continue;
      case '"':
        plain = false;
        double_quote(w, cmd, depth);
        continue;
      case '$':
        plain = false;
        dollar(w, cmd, depth, false);
        continue;
      case '`':
        plain = false;
        backquote(w, cmd, depth, false);
        continue;
      case '*':
      case '?':
        w.has_glob = true;
        break;
      case '[':
        open_bracket = true;  // a glob only with a closing `]`: `[` alone is the test command
        break;
      case ']':
        if (open_bracket) w.has_glob = true;
        break;
      case '~':
        if (pos_ == start) w.tilde = true;
        break;
      case '{':
        ++brace_depth;
        break;
      case ',':
        if (brace_depth > 0) brace_separator = true;
        break;
      case '.':
        if (brace_depth > 0 && peek(1) == '.') brace_separator = true;
        break;
      case '}':
        if (brace_depth > 0) {
          --brace_depth;
          if (brace_separator) w.has_brace = true;
        }
        break;
      default:
        break;
    }
    w.text += c;
    ++pos_;
    if (plain) w.plain_prefix = w.text.size();
  }
  return w;
}

void Parser::single_quote(ShellWord& w) {
  size_t open = pos_;
  size_t end = s_.find('\'', pos_ + 1);
  if (end == std::string_view::npos) {
    fail("unterminated single quote", open);
    pos_ = s_.size();
    return;
  }
  std::string_view content = s_.substr(pos_ + 1, end - pos_ - 1);
  if (content.find('\n') != std::string_view::npos) quoted_newline();
  w.text.append(content);
  w.quoted = true;
  pos_ = end + 1;
}

void Parser::double_quote(ShellWord& w, SimpleCommand& cmd, int depth) {
  size_t open = pos_;
  ++pos_;
  w.quoted = true;
  while (!failed()) {
    if (eof()) {
      fail("unterminated double quote", open);
      return;
    }
    char c = s_[pos_];
    if (c == '"') {
      ++pos_;
      return;
    }
    if (c == '\\') {
      char n = peek(1);
      if (n == '\n') {
        pos_ += 2;
      } else if (n == '$' || n == '`' || n == '"' || n == '\\') {
        w.text += n;
        pos_ += 2;
      } else {
        w.text += '\\';
        ++pos_;
      }
      continue;
    }
    if (c == '$') {
      dollar(w, cmd, depth, true);
      continue;
    }
    if (c == '`') {
      backquote(w, cmd, depth, true);
      continue;
    }
    if (c == '\n') quoted_newline();
    w.text += c;
    ++pos_;
  }
}

void Parser::dollar(ShellWord& w, SimpleCommand& cmd, int depth, bool in_dq) {
  const size_t start = pos_;
  const char n = peek(1);
  if (!in_dq && n == '\'') {
    ansi_c_quote(w);
    return;
  }
  if (!in_dq && n == '"') {
    ++pos_;  // $"..." (locale translation) reads like "..."
    double_quote(w, cmd, depth);
    return;
  }
  if (n == '(') {
    if (peek(2) == '(') {
      arithmetic(w);
      mark(w, in_dq);
      return;
    }
    command_substitution(w, cmd, depth, in_dq);
    return;
  }
  if (n == '[') {
    fail("the old $[ ] arithmetic form is not supported", start);
    return;
  }
  if (n == '{') {
    brace_parameter(w, cmd, depth, in_dq);
    return;
  }
  if (is_name_start(n)) {
    pos_ += 2;
    while (!eof() && is_name_char(s_[pos_])) ++pos_;
    w.text.append(s_.substr(start, pos_ - start));
    mark(w, in_dq);
    return;
  }
  if (n != '\0' && (is_digit(n) || n == '@' || n == '*' || n == '#' || n == '?' || n == '-' ||
                    n == '$' || n == '!')) {
    pos_ += 2;
    w.text.append(s_.substr(start, 2));
    mark(w, in_dq);
    return;
  }
  w.text += '$';  // a lone `$` is itself
  ++pos_;
}

void Parser::ansi_c_quote(ShellWord& w) {
  const size_t open = pos_;
  pos_ += 2;
  w.quoted = true;
  auto put = [&](uint32_t v) {
    if (v == 0) {
      fail("a NUL byte written as an escape in $'...'", open);
      return;
    }
    if (v > 0x10FFFF) {
      fail("an escape in $'...' names no character", open);
      return;
    }
    append_utf8(w.text, v);  // \u and \U name characters; \x and octal bytes are added as is
  };
  while (!failed()) {
    if (eof()) {
      fail("unterminated $'...' string", open);
      return;
    }
    char c = s_[pos_];
    if (c == '\'') {
      ++pos_;
      return;
    }
    if (c != '\\') {
      if (c == '\n') quoted_newline();
      w.text += c;
      ++pos_;
      continue;
    }
    if (pos_ + 1 >= s_.size()) {
      fail("unterminated $'...' string", open);
      return;
    }
    char e = s_[pos_ + 1];
    pos_ += 2;
    if (int v = simple_escape(e); v >= 0) {
      put(static_cast<uint32_t>(v));
      continue;
    }
    switch (e) {
      case 'x':
      case 'u':
      case 'U': {
        size_t max = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        uint32_t v = 0;
        size_t k = 0;
        while (k < max && !eof() && hex_value(s_[pos_]) >= 0) {
          v = v * 16 + static_cast<uint32_t>(hex_value(s_[pos_]));
          ++pos_;
          ++k;
        }
        if (k == 0) {
          w.text += '\\';
          w.text += e;
        } else if (e == 'x') {
          if (v == 0) {
            put(0);
          } else {
            w.text += static_cast<char>(v);
          }
        } else {
          put(v);
        }
        break;
      }
      case 'c': {
        if (eof()) {
          fail("unterminated $'...' string", open);
          return;
        }
        uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(s_[pos_])) & 0x1F;
        ++pos_;
        if (v == 0) {
          put(0);
        } else {
          w.text += static_cast<char>(v);
        }
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          uint32_t v = static_cast<uint32_t>(e - '0');
          for (int k = 0; k < 2 && !eof() && s_[pos_] >= '0' && s_[pos_] <= '7'; ++k, ++pos_)
            v = v * 8 + static_cast<uint32_t>(s_[pos_] - '0');
          v &= 0xFF;
          if (v == 0) {
            put(0);
          } else {
            w.text += static_cast<char>(v);
          }
        } else {
          w.text += '\\';
          w.text += e;
        }
        break;
    }
  }
}

void Parser::arithmetic(ShellWord& w) {
  // $(( ... )): arithmetic evaluates array subscripts, and a subscript can hold a command
  // substitution taken from a variable's value; the word is marked risky.
  const size_t start = pos_;
  size_t i = pos_ + 3;
  int level = 0;
  while (i < s_.size()) {
    char c = s_[i];
    if (c == '`' || (c == '$' && i + 1 < s_.size() && s_[i + 1] == '(' &&
                     (i + 2 >= s_.size() || s_[i + 2] != '('))) {
      fail("a command substitution inside $(( )) is not supported", i);
      return;
    }
    if (c == '\'' || c == '"') {
      fail("quotes inside $(( )) are not supported", i);
      return;
    }
    if (c == '\n' && !pending_.empty()) {
      fail("an arithmetic expansion spans lines while a here-document waits", i);
      return;
    }
    if (c == '(') {
      ++level;
    } else if (c == ')') {
      if (level == 0) {
        if (i + 1 < s_.size() && s_[i + 1] == ')') {
          pos_ = i + 2;
          w.text.append(s_.substr(start, pos_ - start));
          // Only numbers and operators (`$(( 3 + 4 ))`) name no variable, so no subscript.
          for (char b : s_.substr(start + 3, i - start - 3))
            if (std::isalpha(static_cast<unsigned char>(b)) || b == '_' || b == '$' || b == '[' ||
                b == '#' || b == '\\' || b == '@')
              w.risky_expansion = true;
          return;
        }
        fail("unbalanced parentheses in $(( ))", i);
        return;
      }
      --level;
    }
    ++i;
  }
  fail("unterminated $(( ))", start);
  pos_ = s_.size();
}

void Parser::brace_parameter(ShellWord& w, SimpleCommand& cmd, int depth, bool in_dq) {
  if (too_deep(depth + 1)) return;
  const size_t start = pos_;
  const size_t text_before = w.text.size();
  pos_ += 2;
  // ${!x} (indirection, which evaluates subscripts of the name it finds) and zsh's ${(flags)x}.
  if (peek() == '!' || peek() == '(') w.risky_expansion = true;
  bool first = true;
  while (!failed()) {
    if (eof()) {
      fail("unterminated ${...}", start);
      return;
    }
    char c = s_[pos_];
    if (c == '}') {
      ++pos_;
      break;
    }
    if (c == '\\') {
      if (pos_ + 1 >= s_.size()) {
        fail("unterminated ${...}", start);
        return;
      }
      if (s_[pos_ + 1] == '\n') quoted_newline();
      pos_ += 2;
      first = false;
      continue;
    }
    if (c == '\'' || c == '"') {
      // Quotes inside ${...} follow different rules inside and outside double quotes, and
      // across shells; rather than guess where the expansion ends, give up.
      fail("quotes inside ${...} are not supported", pos_);
      return;
    }
    if (c == '$') {
      dollar(w, cmd, depth + 1, in_dq);
      first = false;
      continue;
    }
    if (c == '`') {
      backquote(w, cmd, depth + 1, in_dq);
      first = false;
      continue;
    }
    if (c == '[') {
      size_t close = s_.find(']', pos_ + 1);
      if (close == std::string_view::npos) {
        fail("unterminated subscript in ${...}", pos_);
        return;
      }
      std::string_view sub = s_.substr(pos_ + 1, close - pos_ - 1);
      if (sub.find_first_of("$`") != std::string_view::npos) {
        fail("an expansion inside a subscript is not supported", pos_);
        return;
      }
      bool simple = sub == "@" || sub == "*";
      if (!simple && !sub.empty()) {
        simple = true;
        for (char d : sub)
          if (!is_digit(d)) simple = false;
      }
      if (!simple) w.risky_expansion = true;
      pos_ = close + 1;
      first = false;
      continue;
    }
    if (c == '@' && !first) w.risky_expansion = true;  // ${x@P} and other transformations
    if (c == ':') {
      char n = peek(1);
      if (n != '-' && n != '=' && n != '?' && n != '+') w.risky_expansion = true;  // offsets
    }
    if (c == '\n') quoted_newline();
    ++pos_;
    first = false;
  }
  if (failed()) return;
  w.text.resize(text_before);
  w.text.append(s_.substr(start, pos_ - start));
  mark(w, in_dq);
}

void Parser::command_substitution(ShellWord& w, SimpleCommand& cmd, int depth, bool in_dq) {
  if (too_deep(depth + 1)) return;
  const size_t start = pos_;
  pos_ += 2;
  ShellScript sub;
  parse_list(sub, true, depth + 1);
  if (failed()) return;
  cmd.substitutions.push_back(std::move(sub));
  w.text.append(s_.substr(start, pos_ - start));
  mark(w, in_dq);
}

void Parser::process_substitution(ShellWord& w, SimpleCommand& cmd, int depth) {
  if (too_deep(depth + 1)) return;
  const size_t start = pos_;
  pos_ += 2;
  ShellScript sub;
  parse_list(sub, true, depth + 1);
  if (failed()) return;
  cmd.substitutions.push_back(std::move(sub));
  w.text.append(s_.substr(start, pos_ - start));
  w.process_substitution = true;
}

void Parser::backquote(ShellWord& w, SimpleCommand& cmd, int depth, bool in_dq) {
  if (too_deep(depth + 1)) return;
  const size_t start = pos_;
  ++pos_;
  std::string content;
  while (!failed()) {
    if (eof()) {
      fail("unterminated backquote", start);
      return;
    }
    char c = s_[pos_];
    if (c == '`') {
      ++pos_;
      break;
    }
    if (c == '\\' && pos_ + 1 < s_.size()) {
      char n = s_[pos_ + 1];
      if (n == '$' || n == '`' || n == '\\' || (in_dq && n == '"')) {
        content += n;
        pos_ += 2;
        continue;
      }
    }
    if (c == '\n') quoted_newline();
    content += c;
    ++pos_;
  }
  if (failed()) return;
  ShellScript sub;
  Parser inner(content, base_ + start + 1, lim_, fail_, count_);
  inner.parse_list(sub, false, depth + 1);
  if (failed()) return;
  cmd.substitutions.push_back(std::move(sub));
  w.text.append(s_.substr(start, pos_ - start));
  mark(w, in_dq);
}

void Parser::redirection(ShellScript& into, SimpleCommand& cur, int depth) {
  const size_t start = pos_;
  int fd = -1;
  if (is_digit(peek())) {
    size_t i = pos_;
    long v = 0;
    while (i < s_.size() && is_digit(s_[i])) {
      if (i - pos_ >= 9) {
        fail("a file descriptor number is too large", pos_);
        return;
      }
      v = v * 10 + (s_[i] - '0');
      ++i;
    }
    fd = static_cast<int>(v);
    pos_ = i;
  }
  RedirectOp op = RedirectOp::kIn;
  bool here_doc = false, strip = false;
  char c = peek();
  if (c == '&') {
    if (peek(2) == '>') {
      op = RedirectOp::kAppendOutErr;
      pos_ += 3;
    } else {
      op = RedirectOp::kOutErr;
      pos_ += 2;
    }
  } else if (c == '<') {
    char n = peek(1);
    if (n == '<') {
      if (peek(2) == '<') {
        op = RedirectOp::kHereString;
        pos_ += 3;
      } else if (peek(2) == '-') {
        op = RedirectOp::kHereDoc;
        here_doc = strip = true;
        pos_ += 3;
      } else {
        op = RedirectOp::kHereDoc;
        here_doc = true;
        pos_ += 2;
      }
    } else if (n == '>') {
      op = RedirectOp::kReadWrite;
      pos_ += 2;
    } else if (n == '&') {
      op = RedirectOp::kDupIn;
      pos_ += 2;
    } else {
      op = RedirectOp::kIn;
      ++pos_;
    }
  } else {
    char n = peek(1);
    if (n == '>') {
      op = RedirectOp::kAppend;
      pos_ += 2;
    } else if (n == '|') {
      op = RedirectOp::kClobber;
      pos_ += 2;
    } else if (n == '&') {
      op = RedirectOp::kDupOut;
      pos_ += 2;
    } else {
      op = RedirectOp::kOut;
      ++pos_;
    }
  }
  skip_blanks();
  char t = peek();
  bool proc = (t == '<' || t == '>') && peek(1) == '(';
  if (eof() || (is_meta(t) && !proc)) {
    fail("a redirection has no target", start);
    return;
  }
  Redirection r;
  r.fd = fd;
  r.op = op;
  r.target = read_word(cur, depth);
  if (failed()) return;
  if (here_doc) {
    if (r.target.has_expansion || r.target.process_substitution || r.target.text.empty()) {
      fail("a here-document delimiter with an expansion is not supported", start);
      return;
    }
    r.here_doc_quoted = r.target.quoted;
    pending_.push_back(PendingHereDoc{depth, &into, into.commands.size(), cur.redirections.size(),
                                      r.target.text, r.target.quoted, strip, start});
  }
  cur.redirections.push_back(std::move(r));
}

bool Parser::read_pending_here_docs(int depth) {
  for (auto& p : pending_) {
    if (p.level != depth) {
      fail("a here-document that starts inside a nested command is not supported", p.offset);
      return false;
    }
    std::string body;
    bool found = false;
    while (pos_ < s_.size()) {
      size_t eol = s_.find('\n', pos_);
      size_t end = eol == std::string_view::npos ? s_.size() : eol;
      std::string_view line = s_.substr(pos_, end - pos_);
      if (p.strip_tabs)
        while (!line.empty() && line[0] == '\t') line.remove_prefix(1);
      pos_ = eol == std::string_view::npos ? s_.size() : eol + 1;
      if (line == p.delimiter) {
        found = true;
        break;
      }
      if (!p.quoted) {
        // A backslash at the end of a line joins it with the next one in an unquoted body.
        // bash then compares the joined line with the delimiter, dash does not: the same text
        // ends the body at different places, so do not guess.
        size_t backslashes = 0;
        while (backslashes < line.size() && line[line.size() - 1 - backslashes] == '\\')
          ++backslashes;
        if (backslashes % 2 == 1) {
          fail(
              "a line of an unquoted here-document ends with a backslash (shells differ on "
              "where such a body ends)",
              p.offset);
          return false;
        }
      }
      body.append(line);
      body += '\n';
    }
    if (!found) {
      fail("a here-document is not closed by its delimiter \"" + p.delimiter + "\"", p.offset);
      return false;
    }
    if (p.cmd_index >= p.into->commands.size()) continue;
    SimpleCommand& cmd = p.into->commands[p.cmd_index];
    if (p.redir_index >= cmd.redirections.size()) continue;
    if (!p.quoted) {
      ShellWord flags;
      Parser inner(body, base_ + p.offset, lim_, fail_, count_);
      inner.scan_here_doc_body(cmd, flags, depth + 1);
      if (failed()) return false;
      // The body's expansions count as the redirection's own.
      ShellWord& target = cmd.redirections[p.redir_index].target;
      target.risky_expansion = target.risky_expansion || flags.risky_expansion;
      target.has_expansion = target.has_expansion || flags.has_expansion;
    }
    cmd.redirections[p.redir_index].here_doc = std::move(body);
  }
  pending_.clear();
  return true;
}

void Parser::scan_here_doc_body(SimpleCommand& cmd, ShellWord& flags, int depth) {
  if (too_deep(depth)) return;
  while (!eof() && !failed()) {
    char c = s_[pos_];
    if (c == '\\') {
      char n = peek(1);
      pos_ += (n == '$' || n == '`' || n == '\\' || n == '\n') ? 2 : 1;
      continue;
    }
    if (c == '$') {
      dollar(flags, cmd, depth, true);
      continue;
    }
    if (c == '`') {
      backquote(flags, cmd, depth, true);
      continue;
    }
    ++pos_;
  }
}

bool Parser::for_header(ShellScript& into, int depth) {
  // for NAME [in WORD...] ; do   (or newlines instead of `;`)
  const size_t start = pos_;
  SimpleCommand fc;
  fc.kind = CommandKind::kForList;
  fc.offset = base_ + start;
  skip_blanks();
  if (peek() == '(') {
    fail("arithmetic for loops are not supported", pos_);
    return false;
  }
  if (eof() || is_meta(peek())) {
    fail("a for loop without a variable name", start);
    return false;
  }
  ShellWord name = read_word(fc, depth);
  if (failed()) return false;
  if (name.quoted || !is_shell_name(name.text)) {
    fail("a for loop variable that is not a plain name", name.offset - base_);
    return false;
  }
  fc.assignments.push_back(std::move(name));
  auto skip_newlines = [&]() -> bool {
    while (true) {
      skip_blanks();
      if (peek() == '#') skip_comment();
      if (peek() != '\n') return true;
      if (!pending_.empty()) {
        fail("a here-document inside a for header is not supported", pos_);
        return false;
      }
      ++pos_;
    }
  };
  if (!skip_newlines()) return false;
  bool need_do = true;
  if (peek() == ';') {
    ++pos_;
  } else if (!eof() && !is_meta(peek())) {
    size_t at = pos_;
    ShellWord kw = read_word(fc, depth);
    if (failed()) return false;
    if (!kw.quoted && kw.text == "do") {
      need_do = false;
    } else if (!kw.quoted && kw.text == "in") {
      while (true) {
        skip_blanks();
        if (eof()) {
          fail("a for loop without `do`", start);
          return false;
        }
        char c = peek();
        if (c == '#') {
          skip_comment();
          continue;
        }
        if (c == ';' || c == '\n') {
          if (c == '\n' && !pending_.empty()) {
            fail("a here-document inside a for header is not supported", pos_);
            return false;
          }
          ++pos_;
          break;
        }
        if (is_meta(c)) {
          fail("an unexpected operator in a for loop's word list", pos_);
          return false;
        }
        fc.words.push_back(read_word(fc, depth));
        if (failed()) return false;
      }
    } else {
      fail("a for loop with neither `in` nor `do`", at);
      return false;
    }
  }
  if (need_do) {
    if (!skip_newlines()) return false;
    size_t at = pos_;
    if (eof() || is_meta(peek())) {
      fail("a for loop without `do`", start);
      return false;
    }
    ShellWord kw = read_word(fc, depth);
    if (failed()) return false;
    if (kw.quoted || kw.text != "do") {
      fail("a for loop without `do`", at);
      return false;
    }
  }
  if (++count_ > lim_.max_commands) {
    fail("the line holds too many commands", start);
    return false;
  }
  into.commands.push_back(std::move(fc));
  return true;
}

void Parser::parse_list(ShellScript& into, bool until_paren, int depth) {
  if (too_deep(depth)) return;
  const size_t list_start = pos_;
  std::vector<Construct> stack;
  SimpleCommand cur;
  cur.offset = base_ + pos_;
  bool cmd_pos = true;          // a reserved word may start here
  bool after_compound = false;  // just closed ( ), { }, fi or done
  bool need_command = false;    // after && || | a command must follow
  auto cur_empty = [&]() {
    return cur.words.empty() && cur.assignments.empty() && cur.redirections.empty();
  };
  auto finish = [&]() {
    if (!cur_empty()) {
      if (++count_ > lim_.max_commands) {
        fail("the line holds too many commands", pos_);
        return;
      }
      into.commands.push_back(std::move(cur));
    }
    cur = SimpleCommand{};
    cur.offset = base_ + pos_;
  };
  auto separator_ok = [&](const char* what) {
    if ((cur_empty() && !after_compound) || need_command) {
      fail(std::string("`") + what + "` without a command before it", pos_);
      return false;
    }
    return true;
  };
  auto push = [&](Construct c) {
    if (stack.size() >= lim_.max_constructs) {
      fail("the line nests too many compound commands", pos_);
      return;
    }
    stack.push_back(c);
  };
  // Returns false (after failing) when `word` is a reserved word we do not follow.
  auto keyword = [&](const std::string& word, size_t at) -> bool {
    auto top = [&]() { return stack.empty() ? Construct::kSubshell : stack.back(); };
    bool has = !stack.empty();
    auto bad = [&](const char* msg) {
      fail(msg, at);
      return false;
    };
    if (word == "if") {
      push(Construct::kIfCond);
    } else if (word == "while" || word == "until") {
      push(Construct::kLoopCond);
    } else if (word == "{") {
      push(Construct::kGroup);
    } else if (word == "!") {
      // negation: the pipeline follows
    } else if (word == "then") {
      if (!has || top() != Construct::kIfCond) return bad("`then` without `if`");
      stack.back() = Construct::kIfBody;
    } else if (word == "elif") {
      if (!has || top() != Construct::kIfBody) return bad("`elif` out of place");
      stack.back() = Construct::kIfCond;
    } else if (word == "else") {
      if (!has || top() != Construct::kIfBody) return bad("`else` out of place");
      stack.back() = Construct::kIfElse;
    } else if (word == "fi") {
      if (!has || (top() != Construct::kIfBody && top() != Construct::kIfElse))
        return bad("`fi` without `if`");
      stack.pop_back();
      after_compound = true;
      cmd_pos = false;
    } else if (word == "do") {
      if (!has || top() != Construct::kLoopCond) return bad("`do` out of place");
      stack.back() = Construct::kLoopBody;
    } else if (word == "done") {
      if (!has || top() != Construct::kLoopBody) return bad("`done` without a loop");
      stack.pop_back();
      after_compound = true;
      cmd_pos = false;
    } else if (word == "}") {
      if (!has || top() != Construct::kGroup) return bad("`}` without `{`");
      stack.pop_back();
      after_compound = true;
      cmd_pos = false;
    } else if (word == "for") {
      if (!for_header(into, depth)) return false;
      push(Construct::kLoopBody);
    } else {
      fail("`" + word + "` is not supported", at);
      return false;
    }
    return !failed();
  };

  while (!failed()) {
    skip_blanks();
    if (eof()) break;
    const char c = s_[pos_];
    const char n = peek(1);
    if (c == '#') {
      skip_comment();
      continue;
    }
    if (c == '\n') {
      finish();
      ++pos_;
      if (!pending_.empty() && !read_pending_here_docs(depth)) return;
      cmd_pos = true;
      after_compound = false;
      continue;
    }
    if (c == ';') {
      if (n == ';' || n == '&') {
        fail("`case` clauses are not supported", pos_);
        return;
      }
      if (!separator_ok(";")) return;
      finish();
      ++pos_;
      cmd_pos = true;
      after_compound = false;
      continue;
    }
    if (c == '&' && n != '>') {
      if (n == '&') {
        if (!separator_ok("&&")) return;
        finish();
        pos_ += 2;
        need_command = true;
      } else {
        if (!separator_ok("&")) return;
        finish();
        ++pos_;
      }
      cmd_pos = true;
      after_compound = false;
      continue;
    }
    if (c == '|') {
      const char* what = n == '|' ? "||" : n == '&' ? "|&" : "|";
      if (!separator_ok(what)) return;
      finish();
      pos_ += (n == '|' || n == '&') ? 2 : 1;
      need_command = true;
      cmd_pos = true;
      after_compound = false;
      continue;
    }
    if (c == '(') {
      if (!cur_empty() || after_compound || !cmd_pos) {
        fail(
            "`(` in the middle of a command (function definitions, arrays and extended "
            "globs are not supported)",
            pos_);
        return;
      }
      if (n == '(') {
        fail("arithmetic commands (( )) are not supported", pos_);
        return;
      }
      push(Construct::kSubshell);
      ++pos_;
      need_command = false;
      continue;
    }
    if (c == ')') {
      if (need_command) {
        fail("`)` right after an operator", pos_);
        return;
      }
      finish();
      if (!stack.empty() && stack.back() == Construct::kSubshell) {
        stack.pop_back();
        ++pos_;
        after_compound = true;
        cmd_pos = false;
        continue;
      }
      if (stack.empty() && until_paren) {
        ++pos_;
        for (const auto& p : pending_) {
          if (p.level == depth) {
            fail("a here-document inside $( ) must end before the `)`", p.offset);
            return;
          }
        }
        return;
      }
      fail("unmatched `)`", pos_);
      return;
    }
    // A redirection, maybe after a descriptor number.
    size_t digits = 0;
    while (is_digit(peek(digits))) ++digits;
    const char r = peek(digits);
    bool redirect = false;
    if (r == '<' || r == '>')
      redirect = digits > 0 || peek(1) != '(';  // `<(` and `>(` start a process substitution
    else if (digits == 0 && c == '&' && n == '>')
      redirect = true;
    if (redirect) {
      if (after_compound && cur_empty()) cur.kind = CommandKind::kCompoundRedirect;
      redirection(into, cur, depth);
      need_command = false;
      continue;
    }
    // A word.
    const size_t at = pos_;
    ShellWord w = read_word(cur, depth);
    if (failed()) return;
    const bool reserved_spot = ((cmd_pos && cur_empty()) || after_compound) && !w.quoted &&
                               !w.has_expansion && !w.process_substitution;
    if (reserved_spot) {
      static const char* const kReserved[] = {
          "if", "then", "elif", "else", "fi",   "do",     "done",     "while",  "until", "for",
          "{",  "}",    "!",    "case", "esac", "select", "function", "coproc", "[["};
      bool is_reserved = false;
      for (const char* k : kReserved)
        if (w.text == k) is_reserved = true;
      if (after_compound && is_reserved) {
        // After `}`, `)`, `fi` or `done` only a closing or continuing word may follow.
        static const char* const kAfter[] = {"then", "elif", "else", "fi", "do", "done", "}"};
        bool ok = false;
        for (const char* k : kAfter)
          if (w.text == k) ok = true;
        if (!ok) {
          fail("`" + w.text + "` right after a compound command", at);
          return;
        }
      }
      if (is_reserved) {
        finish();
        after_compound = false;
        need_command = false;
        if (!keyword(w.text, at)) return;
        if (w.text != "fi" && w.text != "done" && w.text != "}") cmd_pos = true;
        continue;
      }
    }
    if (after_compound) {
      fail("a word right after a compound command", at);
      return;
    }
    need_command = false;
    if (cur.words.empty() && w.plain_prefix > 0) {
      // NAME=value before the command name (the `NAME=` part unquoted and unexpanded).
      size_t eq = w.text.find('=');
      if (eq != std::string::npos && eq > 0 && eq < w.plain_prefix) {
        std::string_view name(w.text.data(), eq);
        if (name.back() == '+') name.remove_suffix(1);
        if (is_shell_name(name)) {
          cur.assignments.push_back(std::move(w));
          cmd_pos = false;
          continue;
        }
      }
    }
    cur.words.push_back(std::move(w));
    cmd_pos = false;
  }
  if (failed()) return;
  finish();
  if (failed()) return;
  if (need_command) {
    fail("the line ends right after an operator", s_.size());
    return;
  }
  if (!stack.empty()) {
    fail("an unclosed `(`, `{`, `if` or loop", list_start);
    return;
  }
  if (until_paren) {
    fail("a `$(` or `<(` without its `)`", list_start);
    return;
  }
  if (!pending_.empty()) {
    fail("a here-document without a body", pending_.front().offset);
    return;
  }
}

}  // namespace

ShellScript parse_shell(std::string_view text, int depth, const ShellLimits& limits) {
  ShellScript script;
  Failure failure;
  std::string_view view = text;
  size_t nul = view.find('\0');
  if (nul != std::string_view::npos) {
    // A shell given this line as `sh -c` would stop at the NUL; a script file would not.
    view = view.substr(0, nul);
    failure.failed = true;
    failure.problem = "the line holds a NUL byte";
    failure.offset = nul;
  }
  if (view.size() > limits.max_bytes) {
    view = view.substr(0, limits.max_bytes);
    if (!failure.failed) {
      failure.failed = true;
      failure.problem = "the line is longer than " + std::to_string(limits.max_bytes) + " bytes";
      failure.offset = limits.max_bytes;
    }
  }
  // Parse what there is even after a NUL or an overlong line: a denied command in the part
  // we did read must still be found. A separate Failure keeps the parse going.
  Failure parse_failure;
  size_t count = 0;
  Parser parser(view, 0, limits, parse_failure, count);
  parser.parse_list(script, false, depth);
  const Failure& f = failure.failed ? failure : parse_failure;
  if (f.failed) {
    script.complete = false;
    script.problem = f.problem;
    script.problem_offset = f.offset;
  }
  return script;
}

}  // namespace cordon
