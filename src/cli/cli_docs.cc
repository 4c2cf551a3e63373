#include "cli/cli_docs.h"

#include <functional>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "core/strings.h"

namespace cordon {

namespace {

// A command of the CLI, with its path ("session start") and the parts the generators use.
struct Cmd {
  const CLI::App* app;
  std::vector<std::string> path;  // {} for cordon itself
  std::string joined() const { return join(path, " "); }
};

// Hidden commands (an empty group) are internal: not documented, not completed.
std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); });
}

void walk(const CLI::App& app, std::vector<std::string> path, std::vector<Cmd>& out) {
  out.push_back(Cmd{&app, path});
  for (const CLI::App* sub : visible_subcommands(app)) {
    auto p = path;
    p.push_back(sub->get_name());
    walk(*sub, p, out);
  }
}

std::vector<Cmd> all_commands(const CLI::App& app) {
  std::vector<Cmd> out;
  walk(app, {}, out);
  return out;
}

std::vector<const CLI::Option*> named_options(const CLI::App& app) {
  return app.get_options([](const CLI::Option* o) { return o->nonpositional(); });
}

std::vector<const CLI::Option*> positionals(const CLI::App& app) {
  return app.get_options([](const CLI::Option* o) { return !o->nonpositional(); });
}

bool takes_value(const CLI::Option* o) { return o->get_items_expected_max() > 0; }

std::vector<std::string> option_names(const CLI::Option* o) {
  std::vector<std::string> n;
  for (const auto& s : o->get_snames()) n.push_back("-" + s);
  for (const auto& l : o->get_lnames()) n.push_back("--" + l);
  return n;
}

std::string value_name(const CLI::Option* o) {
  std::string v = o->get_lnames().empty() ? std::string("VALUE") : o->get_lnames().front();
  for (auto& c : v)
    c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return v;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// ---- roff ----

std::string roff_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '\\')
      o += "\\e";
    else if (c == '-')
      o += "\\-";
    else
      o += c;
  }
  return o;
}

// Text lines; lines indented by two spaces (the examples in --help) stay as they are.
std::string roff_text(const std::string& text) {
  std::string out;
  bool in_example = false;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    bool example = starts_with(line, "  ");
    if (example && !in_example) out += ".PP\n.nf\n.RS 4\n";
    if (!example && in_example) out += ".RE\n.fi\n";
    in_example = example;
    std::string l = roff_escape(example ? trim(line) : line);
    if (!l.empty() && (l[0] == '.' || l[0] == '\'')) l = "\\&" + l;
    out += l + "\n";
  }
  if (in_example) out += ".RE\n.fi\n";
  return out;
}

std::string roff_options(const CLI::App& app) {
  std::string out;
  for (const CLI::Option* o : positionals(app)) {
    out += ".TP\n\\fI" + roff_escape(o->get_name(true)) + "\\fR\n";
    out += roff_text(o->get_description());
  }
  for (const CLI::Option* o : named_options(app)) {
    std::vector<std::string> names;
    for (const auto& n : option_names(o)) names.push_back("\\fB" + roff_escape(n) + "\\fR");
    out += ".TP\n" + join(names, ", ");
    if (takes_value(o)) out += " \\fI" + value_name(o) + "\\fR";
    out += "\n" + roff_text(o->get_description());
  }
  return out;
}

// ---- shell quoting ----

std::string sh_single(const std::string& s) {
  std::string o = "'";
  for (char c : s) {
    if (c == '\'')
      o += "'\\''";
    else
      o += c;
  }
  return o + "'";
}

// zsh _arguments descriptions: brackets and colons are syntax there.
std::string zsh_desc(const std::string& s) {
  std::string o;
  for (char c : first_line(s)) {
    if (c == '[' || c == ']' || c == ':' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

std::string ident(const std::vector<std::string>& path) {
  std::string s = "_cordon";
  for (const auto& p : path) {
    s += "_";
    for (char c : p) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return s;
}

std::string bash_script(const CLI::App& app) {
  std::vector<Cmd> cmds = all_commands(app);
  std::set<std::string> value_options;
  std::string paths, cases;
  for (const Cmd& c : cmds) {
    std::vector<std::string> words;
    for (const CLI::App* s : visible_subcommands(*c.app)) words.push_back(s->get_name());
    for (const CLI::Option* o : named_options(*c.app)) {
      for (const auto& n : option_names(o)) {
        words.push_back(n);
        if (takes_value(o)) value_options.insert(n);
      }
    }
    if (!c.path.empty()) paths += (paths.empty() ? "" : "|") + sh_single(c.joined());
    cases +=
        fmt::format("    {}) words={} ;;\n", sh_single(c.joined()), sh_single(join(words, " ")));
  }
  std::vector<std::string> vo(value_options.begin(), value_options.end());
  std::string out = "# bash completion for cordon, generated from its command line definition.\n";
  out += "_cordon() {\n";
  out += "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path='' w i\n";
  out += "  for ((i = 1; i < COMP_CWORD; i++)); do\n";
  out += "    w=${COMP_WORDS[i]}\n";
  out += "    # After `--` comes the command to run: bash's own completion.\n";
  out += "    [[ $w == -- ]] && return 0\n";
  out += "    case \"${path:+$path }$w\" in\n";
  out += "      " + paths + ") path=\"${path:+$path }$w\" ;;\n";
  out += "    esac\n";
  out += "  done\n";
  out += "  case $prev in\n";
  out += "    " + join(vo, "|") + ") return 0 ;;\n";
  out += "  esac\n";
  out += "  local words=''\n";
  out += "  case $path in\n" + cases + "  esac\n";
  out += "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n";
  out += "}\n";
  out += "complete -o default -o bashdefault -F _cordon cordon\n";
  return out;
}

std::string zsh_script(const CLI::App& app) {
  std::vector<Cmd> cmds = all_commands(app);
  std::string out = "#compdef cordon\n";
  out += "# zsh completion for cordon, generated from its command line definition.\n";
  for (const Cmd& c : cmds) {
    std::vector<std::string> specs;
    for (const CLI::Option* o : named_options(*c.app)) {
      std::vector<std::string> names = option_names(o);
      std::string desc = zsh_desc(o->get_description());
      std::string value = takes_value(o) ? ":" + value_name(o) + ":_files" : "";
      if (names.size() == 1) {
        specs.push_back(sh_single(names[0] + "[" + desc + "]" + value));
      } else {
        // zsh's brace form: '(-x --xx)'{-x,--xx}'[desc]', the names outside the quotes.
        specs.push_back(sh_single("(" + join(names, " ") + ")") + "{" + join(names, ",") + "}" +
                        sh_single("[" + desc + "]" + value));
      }
    }
    auto subs = visible_subcommands(*c.app);
    for (const CLI::Option* o : positionals(*c.app))
      specs.push_back(sh_single(":" + o->get_name(true) + ":"));
    out += ident(c.path) + "() {\n";
    if (!subs.empty()) {
      out += "  local -a subcommands\n  subcommands=(\n";
      for (const CLI::App* s : subs)
        out += "    " + sh_single(s->get_name() + ":" + first_line(s->get_description())) + "\n";
      out += "  )\n";
      out += "  local curcontext=$curcontext state line\n";
      out += "  _arguments -C \\\n";
      for (const auto& s : specs) out += "    " + s + " \\\n";
      out += "    '1: :->subcommand' '*:: :->args' && return\n";
      out += "  case $state in\n";
      out += "    subcommand) _describe -t commands '" + trim("cordon " + c.joined()) +
             " command' subcommands ;;\n";
      out += "    args)\n      case $words[1] in\n";
      for (const CLI::App* s : subs) {
        auto p = c.path;
        p.push_back(s->get_name());
        out += "        " + s->get_name() + ") " + ident(p) + " ;;\n";
      }
      out += "      esac ;;\n  esac\n";
    } else {
      out += "  _arguments \\\n";
      for (const auto& s : specs) out += "    " + s + " \\\n";
      // run and classify: the command itself, after the options.
      out += c.app->get_prefix_command() ? "    '*::command:_normal'\n" : "    '*: :_files'\n";
    }
    out += "}\n";
  }
  out += "_cordon \"$@\"\n";
  return out;
}

std::string fish_script(const CLI::App& app) {
  std::vector<Cmd> cmds = all_commands(app);
  std::vector<std::string> paths;
  for (const Cmd& c : cmds)
    if (!c.path.empty()) paths.push_back(c.joined());
  std::string out = "# fish completion for cordon, generated from its command line definition.\n";
  // The command path typed so far: words that extend a known path (values of options do not).
  out += "function __cordon_path\n";
  out += "    set -l known";
  for (const auto& p : paths) out += " " + sh_single(p);
  out += "\n    set -l path ''\n";
  out += "    for w in (commandline -opc)[2..-1]\n";
  out += "        test \"$w\" = '--'; and break\n";
  out += "        set -l next (string trim -- \"$path $w\")\n";
  out += "        contains -- $next $known; and set path $next\n";
  out += "    end\n";
  out += "    echo $path\n";
  out += "end\n";
  out += "function __cordon_at\n";
  out += "    test (__cordon_path) = \"$argv\"\n";
  out += "end\n";
  out += "complete -c cordon -f\n";
  for (const Cmd& c : cmds) {
    std::string cond = "-n " + sh_single("__cordon_at " + c.joined());
    for (const CLI::App* s : visible_subcommands(*c.app))
      out += "complete -c cordon " + cond + " -a " + sh_single(s->get_name()) + " -d " +
             sh_single(first_line(s->get_description())) + "\n";
    for (const CLI::Option* o : named_options(*c.app)) {
      std::string line = "complete -c cordon " + cond;
      for (const auto& s : o->get_snames()) line += " -s " + s;
      for (const auto& l : o->get_lnames()) line += " -l " + l;
      if (takes_value(o)) line += " -r -F";
      line += " -d " + sh_single(first_line(o->get_description()));
      out += line + "\n";
    }
  }
  return out;
}

}  // namespace

std::string man_page(const CLI::App& app, const std::string& version) {
  std::string out;
  out += ".\\\" cordon(1), generated from cordon's command line definition (cordon __man).\n";
  out += ".TH CORDON 1 \"\" \"cordon " + version + "\" \"User Commands\"\n";
  std::string name_line = first_line(app.get_description());
  if (starts_with(name_line, "cordon: ")) name_line = name_line.substr(8);
  out += ".SH NAME\ncordon \\- " + roff_escape(name_line) + "\n";
  out += ".SH SYNOPSIS\n.B cordon\n\\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n";
  out += ".SH DESCRIPTION\n" + roff_text(app.get_description());
  out += ".SH OPTIONS\n" + roff_options(app);
  out += ".SH COMMANDS\n";
  for (const Cmd& c : all_commands(app)) {
    if (c.path.empty()) continue;
    out += ".SS \"cordon " + roff_escape(c.joined()) + "\"\n";
    out += roff_text(c.app->get_description());
    std::string opts = roff_options(*c.app);
    if (!opts.empty()) out += ".PP\n" + opts;
    if (!c.app->get_footer().empty()) out += ".PP\n" + roff_text(c.app->get_footer());
  }
  out += ".SH EXIT STATUS\n";
  out +=
      "The command's own status (128+N when a signal N ended it); 124 when it timed out, "
      "125 when cordon refused to run it (the reason on standard error), 126 when it could "
      "not be executed, 127 when it was not found.\n";
  out += ".SH FILES\n.TP\n\\fI~/.config/cordon/config.toml\\fR\nThe configuration.\n";
  out +=
      ".SH SEE ALSO\n\\fBbwrap\\fR(1). The documentation in \\fI/usr/share/doc/cordon/\\fR "
      "(README.md, docs/).\n";
  return out;
}

std::string completion_script(const CLI::App& app, const std::string& shell) {
  if (shell == "bash") return bash_script(app);
  if (shell == "zsh") return zsh_script(app);
  if (shell == "fish") return fish_script(app);
  return "";
}

}  // namespace cordon
