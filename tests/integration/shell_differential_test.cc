// CMD-1: the tokenizer against the real bash. Random lines are built from harmless marker
// programs (m0..m39, each only appends its name to a log); bash runs each line, and every marker
// it ran must be a command our parse found, whenever our parse claims to be complete. A marker
// bash runs that we took for data (a here-document body, a comment, an argument) would let a
// hidden command pass as read-only.
#include <sys/stat.h>

#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "commands/shell_tokenizer.h"
#include "harness.h"

namespace cordon::it {
namespace {

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}

  std::string line() {
    std::string s = list(0);
    int noise = pick({0, 0, 1, 2});
    for (int i = 0; i < noise; ++i) {
      static const char* const kNoise[] = {"\\\n", "'", "\"", ")", "(",  "`",     "\n",    ";",
                                           "#",    "$", "{",  "}", "\\", "<<X\n", "\nX\n", " ",
                                           "&",    "|", "<",  ">", "m1", "$(",    "${"};
      size_t at = below(s.size() + 1);
      s.insert(at, kNoise[below(std::size(kNoise))]);
    }
    return s;
  }

 private:
  size_t below(size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
  }
  double chance() { return std::uniform_real_distribution<double>(0, 1)(rng_); }
  int pick(std::initializer_list<int> v) { return *(v.begin() + below(v.size())); }
  std::string m() { return "m" + std::to_string(below(40)); }

  std::string word(int d) {
    double r = chance();
    if (d < 3 && r < 0.08) return "\"$(" + list(d + 1) + ")\"";
    if (d < 3 && r < 0.14) return "$(" + list(d + 1) + ")";
    if (d < 3 && r < 0.18) {
      std::string inner = simple(d + 1), out;
      for (char c : inner) {
        if (c == '\\' || c == '`') out += '\\';
        out += c;
      }
      return "`" + out + "`";
    }
    if (d < 3 && r < 0.22) return "<(" + list(d + 1) + ")";
    static const char* const kWords[] = {
        "'a b'",  "\"c d\"", "e\\ f",     "$x",    "${x:-y}", "\\#", "'#'", "a#b", "$'\\x6d'",
        "\"$x\"", "~/x",     "*.nothing", "{a,b}", "a",       "b",   "-n",  "x=1", "--"};
    return kWords[below(std::size(kWords))];
  }
  std::string simple(int d) {
    std::string s = chance() < 0.15 ? "x=1 " : "";
    s += m();
    for (size_t n = below(4); n > 0; --n) s += " " + word(d);
    double r = chance();
    if (r < 0.1) {
      s += " > /dev/null";
    } else if (r < 0.15) {
      s += " 2>&1";
    } else if (r < 0.2) {
      s += " <<< " + word(d);
    } else if (r < 0.3) {
      static const char* const kQuotes[] = {"EOF", "'EOF'", "\"EOF\"", "\\EOF"};
      static const char* const kBodies[] = {"hello", "$(m1)", "`m2`", "m3", "$x ${y}"};
      s += std::string(" <<") + kQuotes[below(4)] + "\n" + kBodies[below(5)] + "\nEOF\n";
    }
    return s;
  }
  std::string command(int d) {
    double r = chance();
    if (d < 3 && r < 0.07) return "{ " + list(d + 1) + "; }";
    if (d < 3 && r < 0.14) return "( " + list(d + 1) + " )";
    if (d < 3 && r < 0.19)
      return "if " + list(d + 1) + "; then " + list(d + 1) + "; else " + list(d + 1) + "; fi";
    if (d < 3 && r < 0.23) return "for x in a " + word(d + 1) + "; do " + list(d + 1) + "; done";
    if (d < 3 && r < 0.26) return "while " + m() + "; false; do " + list(d + 1) + "; done";
    if (d < 3 && r < 0.31) {
      std::string inner = list(d + 1), q;
      for (char c : inner) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      return "bash -c '" + q + "'";
    }
    if (d < 3 && r < 0.34) return "sh <<'S'\n" + list(d + 1) + "\nS\n";
    return simple(d);
  }
  std::string pipeline(int d) {
    std::string s = command(d);
    while (chance() < 0.25) s += (chance() < 0.5 ? " | " : " |& ") + command(d);
    if (chance() < 0.1) s = "! " + s;
    return s;
  }
  std::string list(int d) {
    std::string s = pipeline(d);
    while (chance() < 0.4) {
      static const char* const kSeps[] = {" && ", " || ", "; ", "\n", " & "};
      std::string sep = kSeps[below(5)];
      if (!s.empty() && s.back() == '\n' && sep != "\n" && sep != " && " && sep != " || ")
        sep = "\n";
      s += sep + pipeline(d);
    }
    if (chance() < 0.15) s += " # " + m();
    return s;
  }

  std::mt19937 rng_;
};

// The command names our parse found, following `bash -c`, `sh -c` and shells fed a script on
// standard input the way the classifier does. False when part of it did not parse.
bool collect(const ShellScript& s, std::set<std::string>& names, bool& dynamic) {
  bool complete = s.complete;
  for (const auto& c : s.commands) {
    for (const auto& sub : c.substitutions) complete = collect(sub, names, dynamic) && complete;
    if (c.words.empty()) continue;
    const std::string& name = c.words[0].text;
    if (c.words[0].has_expansion) dynamic = true;
    names.insert(name);
    if (name != "bash" && name != "sh") continue;
    if (c.words.size() >= 3 && c.words[1].text == "-c")
      complete = collect(parse_shell(c.words[2].text), names, dynamic) && complete;
    for (const auto& r : c.redirections) {
      if (r.op == RedirectOp::kHereDoc)
        complete = collect(parse_shell(r.here_doc), names, dynamic) && complete;
      if (r.op == RedirectOp::kHereString)
        complete = collect(parse_shell(r.target.text), names, dynamic) && complete;
    }
  }
  return complete;
}

TEST(ShellDifferential, NoCommandBashRunsIsHidden) {  // CMD-1
  World w(false);
  const std::string bin = w.root() + "/markers";
  for (int i = 0; i < 40; ++i)
    w.write(bin + "/m" + std::to_string(i),
            "#!/bin/sh\necho m" + std::to_string(i) + " >> \"$LOG\"\n", 0755);
  Gen gen(20240601);
  int checked = 0;
  for (int n = 0; n < 400; ++n) {
    std::string line = gen.line();
    std::set<std::string> names;
    bool dynamic = false;
    if (!collect(parse_shell(line), names, dynamic) || dynamic) continue;
    ++checked;
    const std::string log = w.root() + "/log" + std::to_string(n);
    std::map<std::string, std::string> env = {
        {"PATH", bin + ":/usr/bin:/bin"}, {"HOME", w.home()}, {"LOG", log}};
    run_program({"/bin/bash", "-c", line}, env, w.project(), "", 5);
    std::ifstream in(log);
    std::string ran;
    while (in >> ran)
      EXPECT_TRUE(names.count(ran)) << "bash ran " << ran << " from a line we parsed without it:\n"
                                    << line;
  }
  EXPECT_GT(checked, 100) << "the generator should give mostly complete lines";
}

}  // namespace
}  // namespace cordon::it
