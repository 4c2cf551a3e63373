// CMD-1: the shell tokenizer splits a line the way POSIX sh does, and says when it cannot.
#include "commands/shell_tokenizer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cordon {
namespace {

std::vector<std::string> texts(const std::vector<ShellWord>& words) {
  std::vector<std::string> out;
  for (const auto& w : words) out.push_back(w.text);
  return out;
}

// Every simple command as its argv, flattened, substitutions included (depth first).
void collect(const ShellScript& s, std::vector<std::vector<std::string>>& out) {
  for (const auto& c : s.commands) {
    for (const auto& sub : c.substitutions) collect(sub, out);
    if (!c.words.empty()) out.push_back(texts(c.words));
  }
}
std::vector<std::vector<std::string>> argvs(std::string_view line) {
  ShellScript s = parse_shell(line);
  std::vector<std::vector<std::string>> out;
  collect(s, out);
  return out;
}
using V = std::vector<std::vector<std::string>>;

ShellScript ok(std::string_view line) {
  ShellScript s = parse_shell(line);
  EXPECT_TRUE(s.complete) << line << ": " << s.problem;
  return s;
}

void expect_unparsed(std::string_view line, std::string_view problem_part) {
  ShellScript s = parse_shell(line);
  EXPECT_FALSE(s.complete) << "parsed: " << line;
  EXPECT_NE(s.problem.find(problem_part), std::string::npos)
      << line << " -> problem: " << s.problem;
}

TEST(ShellTokenizer, WordsAndQuotes) {  // CMD-1
  ShellScript s = ok(R"(echo 'a b' "c d" e\ f 'it'"'"'s' "x\"y" "a\qb")");
  ASSERT_EQ(s.commands.size(), 1u);
  EXPECT_EQ(texts(s.commands[0].words),
            (std::vector<std::string>{"echo", "a b", "c d", "e f", "it's", "x\"y", "a\\qb"}));
  EXPECT_FALSE(s.commands[0].words[0].quoted);
  EXPECT_TRUE(s.commands[0].words[1].quoted);
  // Adjacent parts make one word; empty quotes make an empty word.
  s = ok("echo a'b'\"c\" '' \"\"");
  EXPECT_EQ(texts(s.commands[0].words), (std::vector<std::string>{"echo", "abc", "", ""}));
}

TEST(ShellTokenizer, Operators) {  // CMD-1
  EXPECT_EQ(argvs("a; b && c || d | e & f |& g"),
            (V{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}, {"f"}, {"g"}}));
  EXPECT_EQ(argvs("a\nb\n\n  c"), (V{{"a"}, {"b"}, {"c"}}));
  EXPECT_EQ(argvs("a&&b||c"), (V{{"a"}, {"b"}, {"c"}}));
  // A newline may follow && and |.
  EXPECT_EQ(argvs("a &&\n b |\n c"), (V{{"a"}, {"b"}, {"c"}}));
  // Line continuation.
  EXPECT_EQ(argvs("ec\\\nho a \\\n b"), (V{{"echo", "a", "b"}}));
}

TEST(ShellTokenizer, Comments) {  // CMD-1
  EXPECT_EQ(argvs("echo a#b # rm -rf /\nls"), (V{{"echo", "a#b"}, {"ls"}}));
  EXPECT_EQ(argvs("# only a comment"), V{});
  EXPECT_EQ(argvs("echo '#not' \"#not\" \\#not"), (V{{"echo", "#not", "#not", "#not"}}));
}

TEST(ShellTokenizer, SubshellsAndGroups) {  // CMD-1
  EXPECT_EQ(argvs("(cd src && make) ; { pwd; ls; }"),
            (V{{"cd", "src"}, {"make"}, {"pwd"}, {"ls"}}));
  EXPECT_EQ(argvs("( (a) )"), (V{{"a"}}));
  EXPECT_EQ(argvs("! grep x f"), (V{{"grep", "x", "f"}}));
  // Redirections of a compound command are kept on a command of their own.
  ShellScript s = ok("{ ls; } > out 2>&1");
  ASSERT_EQ(s.commands.size(), 2u);
  EXPECT_EQ(s.commands[1].kind, CommandKind::kCompoundRedirect);
  EXPECT_EQ(s.commands[1].redirections.size(), 2u);
  // `{` and `}` are words elsewhere.
  EXPECT_EQ(argvs("echo { }"), (V{{"echo", "{", "}"}}));
}

TEST(ShellTokenizer, ControlFlow) {  // CMD-1
  EXPECT_EQ(argvs("if test -f x; then cat x; elif true; then :; else echo no; fi"),
            (V{{"test", "-f", "x"}, {"cat", "x"}, {"true"}, {":"}, {"echo", "no"}}));
  EXPECT_EQ(argvs("while read l; do echo \"$l\"; done < f"), (V{{"read", "l"}, {"echo", "$l"}}));
  EXPECT_EQ(argvs("until false\ndo\n  ls\ndone"), (V{{"false"}, {"ls"}}));
  ShellScript s = ok("for f in *.go $(ls); do wc -l \"$f\"; done");
  ASSERT_EQ(s.commands.size(), 2u);
  EXPECT_EQ(s.commands[0].kind, CommandKind::kForList);
  EXPECT_EQ(s.commands[0].assignments[0].text, "f");
  EXPECT_EQ(texts(s.commands[0].words), (std::vector<std::string>{"*.go", "$(ls)"}));
  EXPECT_EQ(s.commands[0].substitutions.size(), 1u);
  ok("for x do echo $x; done");
  ok("for x; do :; done");
  ok("for x in a b\ndo\n echo $x\ndone");
  // Reserved words only count at the start of a command.
  EXPECT_EQ(argvs("echo if then fi"), (V{{"echo", "if", "then", "fi"}}));
  EXPECT_EQ(argvs("\"if\" x"), (V{{"if", "x"}}));
}

TEST(ShellTokenizer, CommandSubstitution) {  // CMD-1
  EXPECT_EQ(argvs("echo \"a $(date +%s) b\""), (V{{"date", "+%s"}, {"echo", "a $(date +%s) b"}}));
  // Nested, and with quotes inside quotes inside the substitution.
  EXPECT_EQ(argvs(R"x(echo "x $(echo "$(whoami) 'q'")")x"),
            (V{{"whoami"}, {"echo", "$(whoami) 'q'"}, {"echo", "x $(echo \"$(whoami) 'q'\")"}}));
  // A `)` inside quotes or a comment does not close it.
  EXPECT_EQ(argvs("echo $(echo ')' # )\n)"), (V{{"echo", ")"}, {"echo", "$(echo ')' # )\n)"}}));
  // Backquotes, nested with escapes, and inside double quotes.
  EXPECT_EQ(argvs("echo `ls \\`pwd\\``"),
            (V{{"pwd"}, {"ls", "`pwd`"}, {"echo", "`ls \\`pwd\\``"}}));
  EXPECT_EQ(argvs("echo \"`id -u`\""), (V{{"id", "-u"}, {"echo", "`id -u`"}}));
  // In assignments and redirection targets.
  EXPECT_EQ(argvs("X=$(rm a) cat < $(rm b)"), (V{{"rm", "a"}, {"rm", "b"}, {"cat"}}));
  ShellScript s = ok("echo $(ls)");
  EXPECT_TRUE(s.commands[0].words[1].has_expansion);
  EXPECT_TRUE(s.commands[0].words[1].unquoted_expansion);
  s = ok("echo \"$(ls)\"");
  EXPECT_TRUE(s.commands[0].words[1].has_expansion);
  EXPECT_FALSE(s.commands[0].words[1].unquoted_expansion);
}

TEST(ShellTokenizer, ProcessSubstitution) {  // CMD-1
  ShellScript s = ok("diff <(ls a) <(ls b) > >(tee log)");
  EXPECT_EQ(argvs("diff <(ls a) <(ls b)"),
            (V{{"ls", "a"}, {"ls", "b"}, {"diff", "<(ls a)", "<(ls b)"}}));
  ASSERT_EQ(s.commands.size(), 1u);
  EXPECT_TRUE(s.commands[0].words[1].process_substitution);
  EXPECT_FALSE(s.commands[0].words[1].has_expansion);
  ASSERT_EQ(s.commands[0].redirections.size(), 1u);
  EXPECT_TRUE(s.commands[0].redirections[0].target.process_substitution);
  ok("while read x; do :; done < <(ls)");
}

TEST(ShellTokenizer, Expansions) {  // CMD-1
  ShellScript s = ok("echo $HOME ${USER} $1 $@ $? ${x:-def} ${#x} ${x%.c} \"$PWD\" lit $ a$");
  const auto& w = s.commands[0].words;
  for (size_t i = 1; i <= 9; ++i) EXPECT_TRUE(w[i].has_expansion) << w[i].text;
  EXPECT_FALSE(w[9].unquoted_expansion);
  EXPECT_FALSE(w[10].has_expansion);
  EXPECT_FALSE(w[11].has_expansion) << "a lone $ is itself";
  EXPECT_EQ(w[11].text, "$");
  EXPECT_EQ(w[12].text, "a$");
  for (size_t i = 1; i < w.size(); ++i) EXPECT_FALSE(w[i].risky_expansion) << w[i].text;
  // Expansions that can evaluate code held in a variable.
  for (const char* risky : {"echo $((x+1))", "echo ${!ref}", "echo ${x@P}", "echo ${a[i+1]}",
                            "echo ${x:1:2}", "echo ${x:$n}", "echo ${(e)x}"}) {
    ShellScript r = ok(risky);
    ASSERT_EQ(r.commands.size(), 1u) << risky;
    EXPECT_TRUE(r.commands[0].words[1].risky_expansion) << risky;
  }
  ShellScript fine = ok("echo ${a[@]} ${a[0]} ${#a[*]} ${@} ${x:-$(date)}");
  for (size_t i = 1; i < fine.commands[0].words.size(); ++i)
    EXPECT_FALSE(fine.commands[0].words[i].risky_expansion) << fine.commands[0].words[i].text;
  expect_unparsed("echo ${a[$i]}", "subscript");
  // A substitution inside ${...} is parsed too.
  EXPECT_EQ(argvs("echo ${x:-$(rm -rf /)}"),
            (V{{"rm", "-rf", "/"}, {"echo", "${x:-$(rm -rf /)}"}}));
}

TEST(ShellTokenizer, GlobsBracesTilde) {  // CMD-1
  ShellScript s = ok("ls *.c src/?.h [ab].txt '*.q' {a,b} {1..3} @{u} ~/x ~ a~ '~/y' ~root");
  const auto& w = s.commands[0].words;
  EXPECT_TRUE(w[1].has_glob);
  EXPECT_TRUE(w[2].has_glob);
  EXPECT_TRUE(w[3].has_glob);
  EXPECT_FALSE(w[4].has_glob) << "quoted";
  EXPECT_TRUE(w[5].has_brace);
  EXPECT_TRUE(w[6].has_brace);
  EXPECT_FALSE(w[7].has_brace);
  EXPECT_TRUE(w[8].tilde);
  EXPECT_TRUE(w[9].tilde);
  EXPECT_FALSE(w[10].tilde);
  EXPECT_FALSE(w[11].tilde);
  EXPECT_TRUE(w[12].tilde);
}

TEST(ShellTokenizer, AnsiCQuotes) {  // CMD-1
  ShellScript s = ok(R"(echo $'\x72\x6d' $'a\tb' $'\u00e9' $'\101' $'it\'s' $'\cA')");
  const auto& w = s.commands[0].words;
  EXPECT_EQ(w[1].text, "rm");
  EXPECT_EQ(w[2].text, "a\tb");
  EXPECT_EQ(w[3].text, "\xc3\xa9");
  EXPECT_EQ(w[4].text, "A");
  EXPECT_EQ(w[5].text, "it's");
  EXPECT_EQ(w[6].text, "\x01");
  EXPECT_EQ(argvs("$'\\x72\\x6d' -rf x"), (V{{"rm", "-rf", "x"}}));
  expect_unparsed(R"(echo $'\0')", "NUL");
  expect_unparsed(R"(echo $'\x00')", "NUL");
  // Inside double quotes $'...' is not special.
  EXPECT_EQ(argvs("echo \"$'x'\""), (V{{"echo", "$'x'"}}));
}

TEST(ShellTokenizer, Assignments) {  // CMD-1
  ShellScript s = ok("A=1 B=\"x y\" C+=z cmd D=2");
  ASSERT_EQ(s.commands.size(), 1u);
  EXPECT_EQ(texts(s.commands[0].assignments), (std::vector<std::string>{"A=1", "B=x y", "C+=z"}));
  EXPECT_EQ(texts(s.commands[0].words), (std::vector<std::string>{"cmd", "D=2"}));
  // A quoted name is not an assignment; neither is a bad name.
  s = ok("\"A\"=1 x");
  EXPECT_TRUE(s.commands[0].assignments.empty());
  s = ok("1A=1 x");
  EXPECT_TRUE(s.commands[0].assignments.empty());
  s = ok("X=1");
  EXPECT_EQ(s.commands[0].assignments.size(), 1u);
  EXPECT_TRUE(s.commands[0].words.empty());
  expect_unparsed("a=(1 2)", "(");
  // A line continuation inside the name does not stop it being an assignment.
  s = ok("X\\\n=1 cmd");
  EXPECT_EQ(texts(s.commands[0].assignments), (std::vector<std::string>{"X=1"}));
  EXPECT_EQ(texts(s.commands[0].words), (std::vector<std::string>{"cmd"}));
}

TEST(ShellTokenizer, Redirections) {  // CMD-1
  ShellScript s = ok("cmd <in >out 2>>log 2>&1 &>all &>>all2 >|force <>rw 3<&0 >&- 9>f");
  const auto& r = s.commands[0].redirections;
  ASSERT_EQ(r.size(), 11u);
  EXPECT_EQ(r[0].op, RedirectOp::kIn);
  EXPECT_EQ(r[0].target.text, "in");
  EXPECT_EQ(r[1].op, RedirectOp::kOut);
  EXPECT_EQ(r[2].op, RedirectOp::kAppend);
  EXPECT_EQ(r[2].fd, 2);
  EXPECT_EQ(r[3].op, RedirectOp::kDupOut);
  EXPECT_EQ(r[3].fd, 2);
  EXPECT_EQ(r[3].target.text, "1");
  EXPECT_EQ(r[4].op, RedirectOp::kOutErr);
  EXPECT_EQ(r[5].op, RedirectOp::kAppendOutErr);
  EXPECT_EQ(r[6].op, RedirectOp::kClobber);
  EXPECT_EQ(r[7].op, RedirectOp::kReadWrite);
  EXPECT_EQ(r[8].op, RedirectOp::kDupIn);
  EXPECT_EQ(r[8].fd, 3);
  EXPECT_EQ(r[9].target.text, "-");
  EXPECT_EQ(r[10].fd, 9);
  EXPECT_EQ(texts(s.commands[0].words), (std::vector<std::string>{"cmd"}));
  // Redirections may come first; a number not followed by < or > is a word.
  s = ok(">out 2> err echo 2 hi");
  EXPECT_EQ(texts(s.commands[0].words), (std::vector<std::string>{"echo", "2", "hi"}));
  EXPECT_EQ(s.commands[0].redirections.size(), 2u);
  s = ok("cat <<< \"$(id)\"");
  EXPECT_EQ(s.commands[0].redirections[0].op, RedirectOp::kHereString);
  EXPECT_EQ(s.commands[0].substitutions.size(), 1u);
  expect_unparsed("cat >", "no target");
  expect_unparsed("cat > ;", "no target");
}

TEST(ShellTokenizer, HereDocuments) {  // CMD-1
  ShellScript s = ok("cat <<EOF\nhello $(whoami)\n`id`\nEOF\necho after");
  ASSERT_EQ(s.commands.size(), 2u);
  EXPECT_EQ(s.commands[0].redirections[0].op, RedirectOp::kHereDoc);
  EXPECT_EQ(s.commands[0].redirections[0].here_doc, "hello $(whoami)\n`id`\n");
  EXPECT_EQ(s.commands[0].substitutions.size(), 2u) << "an unquoted body expands";
  EXPECT_EQ(texts(s.commands[1].words), (std::vector<std::string>{"echo", "after"}));
  // Quoted delimiters: the body is literal.
  for (const char* q : {"cat <<'EOF'\n$(rm -rf /)\nEOF", "cat <<\"EOF\"\n$(rm -rf /)\nEOF",
                        "cat <<\\EOF\n$(rm -rf /)\nEOF", "cat <<E\"O\"F\n$(rm -rf /)\nEOF"}) {
    ShellScript qs = ok(q);
    EXPECT_TRUE(qs.commands[0].substitutions.empty()) << q;
    EXPECT_TRUE(qs.commands[0].redirections[0].here_doc_quoted) << q;
  }
  // <<- strips leading tabs, from the body and the delimiter line.
  s = ok("cat <<-END\n\tone\n  END\n\t\tEND\nls");
  EXPECT_EQ(s.commands[0].redirections[0].here_doc, "one\n  END\n");
  EXPECT_EQ(argvs("cat <<-END\n\tone\n  END\n\t\tEND\nls"), (V{{"cat"}, {"ls"}}));
  // Without the dash, a tab-indented delimiter does not end it.
  s = ok("cat <<END\n\tEND\nEND\nls");
  EXPECT_EQ(s.commands[0].redirections[0].here_doc, "\tEND\n");
  // Two on one line, read in order; the body lines are not commands.
  s = ok("cat <<A; cat <<B\nrm -rf /\nA\nshutdown\nB\n");
  ASSERT_EQ(s.commands.size(), 2u);
  EXPECT_EQ(s.commands[0].redirections[0].here_doc, "rm -rf /\n");
  EXPECT_EQ(s.commands[1].redirections[0].here_doc, "shutdown\n");
  // In a command substitution.
  EXPECT_EQ(argvs("x=$(cat <<EOF\nhi\nEOF\n); echo $x"), (V{{"cat"}, {"echo", "$x"}}));
  // bash joins `EO\` and `F` into the delimiter, dash does not: never guess.
  expect_unparsed("cat <<EOF\nEO\\\nF\nreboot\nEOF\n", "backslash");
  expect_unparsed("cat <<EOF\nx\\\nEOF\nreboot\nEOF\n", "backslash");
  ok("cat <<EOF\nx\\\\\nEOF\n");      // an escaped backslash does not join
  ok("cat <<'EOF'\nEO\\\nF\nEOF\n");  // quoted: no joining at all
  expect_unparsed("cat <<EOF\nno end", "not closed");
  expect_unparsed("cat <<EOF", "without a body");
  expect_unparsed("cat <<$X\nx\n$X", "delimiter");
  expect_unparsed("cat <<EOF; echo \"a\nb\"\nEOF", "here-document");
}

TEST(ShellTokenizer, Unsupported) {  // CMD-1: what we cannot follow is reported, never guessed
  expect_unparsed("case $x in a) rm -rf /;; esac", "case");
  expect_unparsed("f() { rm -rf /; }; f", "(");
  expect_unparsed("function f { :; }", "function");
  expect_unparsed("[[ -f x ]] && ls", "[[");
  expect_unparsed("(( i++ ))", "arithmetic");
  expect_unparsed("for ((i=0;i<3;i++)); do :; done", "arithmetic");
  expect_unparsed("select x in a b; do :; done", "select");
  expect_unparsed("coproc cat", "coproc");
  expect_unparsed("echo $[1+2]", "$[");
  expect_unparsed("ls @(a|b)", "(");
  expect_unparsed("echo ${x:-'y'}", "quotes inside ${");
  expect_unparsed("echo $(( $(id -u) + 1 ))", "inside $((");
}

TEST(ShellTokenizer, Unbalanced) {  // CMD-1
  expect_unparsed("echo 'abc", "single quote");
  expect_unparsed("echo \"abc", "double quote");
  expect_unparsed("echo \"a'b", "double quote");
  expect_unparsed("echo $(ls", "`)`");
  expect_unparsed("echo `ls", "backquote");
  expect_unparsed("echo ${x", "${");
  expect_unparsed("(ls", "unclosed");
  expect_unparsed("ls)", "unmatched");
  expect_unparsed("{ ls", "unclosed");
  expect_unparsed("if true; then ls", "unclosed");
  expect_unparsed("while true; do ls", "unclosed");
  expect_unparsed("fi", "without");
  expect_unparsed("ls |", "operator");
  expect_unparsed("ls &&", "operator");
  expect_unparsed("| ls", "without a command");
  expect_unparsed("ls ;; ls", "case");
  expect_unparsed("; ls", "without a command");
  expect_unparsed("(ls) foo", "after a compound");
  expect_unparsed("echo $'abc", "$'");
  // What came before the problem is still returned (for denied commands).
  ShellScript s = parse_shell("shutdown now; echo 'oops");
  EXPECT_FALSE(s.complete);
  ASSERT_FALSE(s.commands.empty());
  EXPECT_EQ(s.commands[0].words[0].text, "shutdown");
}

TEST(ShellTokenizer, Limits) {  // CMD-1: bounded depth and input
  std::string deep = "echo ";
  for (int i = 0; i < 40; ++i) deep += "$(echo ";
  deep += "x";
  for (int i = 0; i < 40; ++i) deep += ")";
  expect_unparsed(deep, "deeply");
  std::string ok_depth = "echo ";
  for (int i = 0; i < 10; ++i) ok_depth += "$(echo ";
  ok_depth += "x";
  for (int i = 0; i < 10; ++i) ok_depth += ")";
  ok(ok_depth);
  std::string quotes;
  for (int i = 0; i < 40; ++i) quotes += "\"$(";
  expect_unparsed(quotes, "");
  std::string backquotes = "echo ";
  for (int i = 0; i < 20; ++i)
    backquotes += std::string(static_cast<size_t>(1) << std::min(i, 10), '\\') + "`";
  parse_shell(backquotes);  // must return
  std::string parens(100000, '(');
  expect_unparsed(parens, "");
  std::string groups;
  for (int i = 0; i < 200; ++i) groups += "{ ";
  expect_unparsed(groups, "too many compound");
  ShellLimits small;
  small.max_bytes = 64;
  ShellScript s = parse_shell(std::string(100, 'a'), 0, small);
  EXPECT_FALSE(s.complete);
  EXPECT_NE(s.problem.find("longer than 64"), std::string::npos);
  std::string many;
  for (int i = 0; i < 30000; ++i) many += "a;";
  expect_unparsed(many, "too many commands");
}

TEST(ShellTokenizer, NulAndInvalidUtf8) {  // CMD-1: never crash; NUL is unparsed
  std::string nul = std::string("ls\0; rm -rf /", 13);
  ShellScript s = parse_shell(nul);
  EXPECT_FALSE(s.complete);
  EXPECT_NE(s.problem.find("NUL"), std::string::npos);
  ASSERT_EQ(s.commands.size(), 1u);
  EXPECT_EQ(s.commands[0].words[0].text, "ls");
  s = ok("echo \xff\xfe \xc3\x2e 'caf\xc3\xa9' \xe2\x80\x8b");
  EXPECT_EQ(s.commands[0].words.size(), 5u);
  EXPECT_EQ(s.commands[0].words[1].text, "\xff\xfe");
  // A non-breaking space is not a separator for sh.
  s = ok("ls\xc2\xa0-la");
  EXPECT_EQ(s.commands[0].words.size(), 1u);
  s = ok("ls\r");
  EXPECT_EQ(s.commands[0].words[0].text, "ls\r");
}

TEST(ShellTokenizer, Offsets) {  // CMD-1: offsets point into the text for messages
  ShellScript s = ok("ls  -la");
  EXPECT_EQ(s.commands[0].words[1].offset, 4u);
  ShellScript bad = parse_shell("echo ok; echo 'oops");
  EXPECT_EQ(bad.problem_offset, 14u);
}

}  // namespace
}  // namespace cordon
