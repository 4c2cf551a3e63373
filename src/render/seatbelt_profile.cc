#include "render/seatbelt_profile.h"

#include <algorithm>
#include <set>

#include "core/paths.h"
#include "core/strings.h"
#include "plan/project_rules.h"

// How Seatbelt reads this profile, and what was checked (MAC-3: nothing here runs on a Mac).
//
// Grammar. SBPL is Scheme read by a TinyScheme reader inside libsandbox: `(version 1)`, then
// `(allow|deny OPERATION... FILTER...)` forms, `;` comments to the end of the line. A rule with
// several filters applies when any of them matches. Path filters: (literal "P") is exactly P;
// (subpath "P") is P and everything below it; (regex "RE") is a POSIX extended expression on
// the whole path. Strings are ordinary Scheme strings (see sbpl_string); regexes are written as
// ordinary strings too, rather than as #"..." literals, so one escaping rule covers both (as
// Firefox's profiles pass (string-append ...) results to `regex`).
//
// Precedence. For a given operation, the last rule whose filters match decides; `(deny
// default)` decides when none does. So a later filtered deny carves a hole in an earlier allow
// and a later filtered allow re-opens it (measured with sandbox-exec in microsoft/mxc's
// Seatbelt backend notes: allow-then-deny of one path gives EPERM, deny-then-allow connects),
// which is the order sandbox-runtime's profiles rely on ("in Seatbelt profiles, later rules
// take precedence"). One exception shapes the layout: a rule with no filter does not override
// an earlier filtered one, so every unfiltered allow here comes first.
//
// Paths. Seatbelt matches the path the kernel resolved (symlinks followed, /tmp as
// /private/tmp), so the plan's real paths are used; a hidden path is also denied at the path
// it is spelled with, which covers the link itself and a path created later.
//
// Not verifiable without a Mac, and so taken from profiles that run on Macs (openai/codex's
// seatbelt_base_policy.sbpl, anthropic's sandbox-runtime, Chromium and Firefox): the operation
// and filter names, `(extension "com.apple.sandbox.pty")` marking the terminals a command
// opens itself, `(remote ip "*:*")`, and that a rename is checked as file-write-unlink of its
// source (sandbox-runtime's move-blocking rules).

namespace cordon {

std::string sbpl_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += c;
    }
  }
  out += '"';
  return out;
}

namespace {

// POSIX extended regexes give `\` a defined meaning before these only; `]` and `}` are
// ordinary characters there, and a backslash before them is undefined.
constexpr std::string_view kRegexSpecial = "\\.[()*+?{|^$";

void append_regex_char(std::string& out, char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
    char lo = static_cast<char>(c | 0x20), up = static_cast<char>(c & ~0x20);
    out += '[';
    out += up;
    out += lo;
    out += ']';
  } else {
    if (kRegexSpecial.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
}

}  // namespace

std::string regex_literal(std::string_view s) {
  std::string out;
  for (char c : s) append_regex_char(out, c);
  return out;
}

std::string glob_path_regex(std::string_view pattern) {
  std::string dir = path_parent(pattern);
  std::string out = "^" + regex_literal(dir == "/" ? "" : dir) + "/";
  for (char c : path_base(pattern)) {
    if (c == '*')
      out += "[^/]*";
    else if (c == '?')
      out += "[^/]";
    else
      append_regex_char(out, c);
  }
  return out + "(/|$)";
}

const std::vector<std::string>& macos_hidden_home_entries() {
  static const std::vector<std::string> list = {
      "Library/Keychains",
      "Library/Cookies",
      "Library/HTTPStorages",
      "Library/Accounts",
      "Library/Group Containers",
      "Library/Containers",
      "Library/Mail",
      "Library/Messages",
      "Library/Safari",
      "Library/Application Support/Google/Chrome",
      "Library/Application Support/Chromium",
      "Library/Application Support/Firefox",
      "Library/Application Support/Microsoft Edge",
      "Library/Application Support/BraveSoftware",
      "Library/Application Support/Arc",
      "Library/Application Support/Vivaldi",
      "Library/Application Support/com.operasoftware.Opera",
      ".zsh_sessions",
  };
  return list;
}

namespace {

// Rule heads. A hard link is an operation of its own (file-link), checked on the file linked:
// a new name for a read-only or hidden file would escape the rules on its old name, so links
// are allowed where writes are and denied where they are. A clone (file-clone) copies what it
// clones, so a hidden file is not cloned; nothing allows clones elsewhere.
constexpr std::string_view kWriteAllow = "allow file-write* file-link";
constexpr std::string_view kWriteDeny = "deny file-write* file-link";
constexpr std::string_view kHide = "deny file-read* file-write* file-link file-clone process-exec";
constexpr std::string_view kReopen = "allow file-read* file-write* file-link process-exec";
constexpr std::string_view kLookUp = "allow file-read-metadata";

struct Filter {
  const char* kind;  // "literal", "subpath", "regex"
  std::string value;
  std::string note;  // the comment after the filter (sanitized when written)
};

// A comment holds text that can come from a project (a protected file's name): a control
// character could end the comment and start a rule, so none is kept.
std::string comment_text(std::string_view s) {
  std::string out;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    out += u < 0x20 || u == 0x7f ? '?' : c;
  }
  return out;
}

// Writes the profile. Consecutive path rules with the same head and list share one form (its
// filters are alternatives), and every path filter is counted against MAC-2's cap.
class ProfileWriter {
 public:
  void line(std::string_view s) {
    flush();
    text_ += s;
    text_ += '\n';
  }
  void comment(std::string_view s) { line("; " + comment_text(s)); }
  void blank() { line(""); }
  // A fixed rule of the base profile holding `filters` path filters.
  void base(std::string_view form, size_t filters = 0) {
    line(form);
    counts_.base += filters;
  }
  void rule(std::string_view head, Filter f, BudgetList list) {
    if (!pending_.empty() && (head != head_ || list != list_)) flush();
    head_ = head;
    list_ = list;
    pending_.push_back(std::move(f));
  }
  SeatbeltProfile finish() {
    flush();
    return SeatbeltProfile{std::move(text_), counts_};
  }

 private:
  void flush() {
    if (pending_.empty()) return;
    text_ += "(" + head_;
    for (const auto& f : pending_) {
      text_ += "\n  (";
      text_ += f.kind;
      text_ += ' ';
      text_ += sbpl_string(f.value);
      text_ += ')';
      if (&f != &pending_.back()) {
        if (!f.note.empty()) text_ += "  ; " + comment_text(f.note);
        continue;
      }
      text_ += ')';
      if (!f.note.empty()) text_ += "  ; " + comment_text(f.note);
    }
    text_ += '\n';
    counts_.at(list_) += pending_.size();
    pending_.clear();
  }

  std::string text_;
  BudgetCounts counts_;
  std::string head_;
  BudgetList list_ = BudgetList::kBase;
  std::vector<Filter> pending_;
};

bool within_any(const std::string& p, const std::vector<std::string>& roots) {
  for (const auto& r : roots)
    if (path_within(p, r)) return true;
  return false;
}

bool has_glob(std::string_view p) { return path_base(p).find_first_of("*?") != std::string::npos; }

// FS-7: a hidden path that holds the project or its git folder stays visible.
bool holds_project(const Facts& f, const std::string& p) {
  return path_within(f.project, p) || (!f.git.git_dir.empty() && path_within(f.git.git_dir, p));
}

// Would a glob entry's regex hide the project or its git folder?
bool glob_holds_project(const Facts& f, const std::string& pattern) {
  std::string dir = path_parent(pattern);
  for (const std::string& p : {f.project, f.git.git_dir}) {
    if (p.empty() || p == dir || !path_within(p, dir)) continue;
    std::string first = split(path_relative(p, dir), '/')[0];
    if (glob_match(to_lower(path_base(pattern)), to_lower(first))) return true;
  }
  return false;
}

struct Hidden {
  Filter filter;
  std::string path;  // a subpath's path, or a regex's glob pattern (its parent is a real folder)
};

// FS-4..FS-8 and the macOS additions: one filter per path to hide.
std::vector<Hidden> hidden_filters(const Facts& f) {
  std::vector<Hidden> out;
  std::set<std::string> seen;
  auto add = [&](const char* kind, const std::string& value, const std::string& path,
                 const std::string& note) {
    if (seen.insert(std::string(kind) + ":" + value).second)
      out.push_back(Hidden{Filter{kind, value, note}, path});
  };
  auto add_path = [&](const std::string& p, const std::string& note) {
    // A hidden path that holds the private temp folder or the project's package caches
    // (cordon's cache folder, FS-13) is hidden, and those opened again after it (reopened()).
    if (p.empty() || p == "/" || holds_project(f, p)) return;
    add("subpath", p, p, note);
  };
  for (const auto& h : f.hidden) {
    std::string spelled = normalize_path(expand_home(h.entry, f.home));
    std::string note = h.entry + " (" + h.why + ")";
    if (has_glob(spelled)) {
      // The regex also covers matches made later; a link among today's matches hides its
      // target too, which the regex does not name.
      bool project = glob_holds_project(f, spelled);
      if (!project) add("regex", glob_path_regex(spelled), spelled, note);
      for (const auto& m : h.matches) {
        if (project) add_path(m.path, note);
        if (!m.real.empty() && m.real != m.path) add_path(m.real, note + ", target");
      }
      continue;
    }
    bool found = false;
    for (const auto& m : h.matches) {
      if (!m.exists()) continue;
      found = true;
      if (!m.real.empty()) add_path(m.real, m.real == m.path ? note : note + ", target");
      if (m.real != m.path)
        add_path(m.path, note + (m.real.empty() ? ", dangling link" : ", link"));
    }
    // Seatbelt can name a path that does not exist yet: hide it where it would be made.
    if (!found) add_path(spelled, note + ", not there yet");
    // FS-5: the targets of links inside the hidden folder.
    for (const auto& l : h.links)
      if (link_target_kept_because(l.real, f.home, f.project).empty())
        add_path(l.real, note + ", link target");
  }
  // FS-12: a profile cannot show a copy in a file's place; the git config files that hold
  // credentials are not read at all (git then runs without the user's global settings).
  // The project's own config stays readable: git cannot work without it (NET-3's copy of it
  // is Linux's).
  const std::string project_config =
      f.git.common_dir.empty() ? "" : path_join(f.git.common_dir, "config");
  for (const auto& c : f.git_config_copies)
    if (c.credential && c.path != project_config)
      add_path(c.path, c.shown + " (git config with credentials)");  // FS-12
  for (const auto& c : f.home_config_copies)  // FS-4: likewise, not read at all
    add_path(c.path, c.shown + " (config with credentials)");
  for (const auto& rel : macos_hidden_home_entries())
    add_path(path_join(f.home, rel), "~/" + rel + " (macOS: credentials and private data)");
  // Nothing inside a hidden folder needs naming again.
  std::stable_sort(out.begin(), out.end(),
                   [](const Hidden& a, const Hidden& b) { return a.path < b.path; });
  std::vector<std::string> folders;
  std::vector<Hidden> kept;
  for (auto& h : out) {
    if (within_any(h.path, folders)) continue;
    if (std::string_view(h.filter.kind) == "subpath") folders.push_back(h.path);
    kept.push_back(std::move(h));
  }
  return kept;
}

std::string without_prefix(const std::string& why) {
  size_t colon = why.find(": ");
  return colon == std::string::npos ? why : why.substr(colon + 2);
}

void write_base(ProfileWriter& w) {
  w.base("(version 1)");
  w.base("(deny default)");
  w.blank();
  w.comment("Processes: run programs; signal and inspect only the command's own processes.");
  w.base("(allow process-fork)");
  w.base("(allow process-exec)");
  w.base("(allow signal (target same-sandbox))");
  w.base("(allow process-info* (target same-sandbox))");
  w.blank();
  w.comment("What shells, compilers and runtimes ask of the system: CPU and memory sizes, the OS");
  w.comment("version, user and group names, preferences (read only), power state, logging. Not");
  w.comment("the process table (kern.proc.all): other processes stay out of sight.");
  w.base("(allow sysctl-read");
  for (const char* name : {"hw.activecpu",
                           "hw.byteorder",
                           "hw.cachelinesize_compat",
                           "hw.cpufamily",
                           "hw.cpufrequency",
                           "hw.cpufrequency_compat",
                           "hw.cputype",
                           "hw.l1dcachesize_compat",
                           "hw.l1icachesize_compat",
                           "hw.l2cachesize_compat",
                           "hw.l3cachesize_compat",
                           "hw.logicalcpu",
                           "hw.logicalcpu_max",
                           "hw.machine",
                           "hw.memsize",
                           "hw.model",
                           "hw.ncpu",
                           "hw.nperflevels",
                           "hw.packages",
                           "hw.pagesize",
                           "hw.pagesize_compat",
                           "hw.physicalcpu",
                           "hw.physicalcpu_max",
                           "hw.tbfrequency_compat",
                           "hw.vectorunit",
                           "kern.argmax",
                           "kern.hostname",
                           "kern.maxfiles",
                           "kern.maxfilesperproc",
                           "kern.maxproc",
                           "kern.ngroups",
                           "kern.osproductversion",
                           "kern.osrelease",
                           "kern.ostype",
                           "kern.osvariant_status",
                           "kern.osversion",
                           "kern.secure_kernel",
                           "kern.usrstack64",
                           "kern.version",
                           "machdep.cpu.brand_string",
                           "sysctl.proc_cputype",
                           "vm.loadavg"})
    w.line(std::string("  (sysctl-name ") + sbpl_string(name) + ")");
  for (const char* prefix :
       {"hw.optional.", "hw.perflevel", "kern.proc.pgrp.", "kern.proc.pid.", "machdep.cpu."})
    w.line(std::string("  (sysctl-name-prefix ") + sbpl_string(prefix) + ")");
  w.base(")");
  w.comment("Java reads the CPU type through a sysctl that counts as a write.");
  w.base("(allow sysctl-write (sysctl-name \"kern.grade_cputype\"))");
  w.comment("libuv (Node's os.cpus()) asks the host for processor information.");
  w.base("(allow mach-host*)");
  w.base("(allow user-preference-read)");
  w.base("(allow mach-lookup");
  w.line("  (global-name \"com.apple.system.opendirectoryd.libinfo\")  ; getpwuid, getgrgid");
  w.line("  (global-name \"com.apple.system.opendirectoryd.membership\")  ; group membership");
  w.line("  (global-name \"com.apple.system.notification_center\")  ; notify(3)");
  w.line("  (global-name \"com.apple.system.logger\")");
  w.line("  (global-name \"com.apple.logd\")");
  w.line("  (global-name \"com.apple.bsd.dirhelper\")  ; confstr(_CS_DARWIN_USER_TEMP_DIR)");
  w.line("  (global-name \"com.apple.PowerManagement.control\"))");
  w.base("(allow iokit-open (iokit-registry-entry-class \"RootDomainUserClient\"))");
  w.comment("POSIX semaphores (Python's multiprocessing locks); named shared memory only for");
  w.comment("libomp and the preferences cache.");
  w.base("(allow ipc-posix-sem)");
  w.base("(allow ipc-posix-shm-read-data ipc-posix-shm-write-create ipc-posix-shm-write-unlink");
  w.line("  (ipc-posix-name-regex \"^/__KMP_REGISTERED_LIB_[0-9]+$\"))");
  w.base("(allow ipc-posix-shm-read* (ipc-posix-name-prefix \"apple.cfprefs.\"))");
  w.blank();
  w.comment("Devices a command writes to or asks about.");
  w.base("(allow file-write-data (literal \"/dev/null\") (literal \"/dev/zero\"))", 2);
  w.base("(allow file-read-data file-write-data (regex \"^/dev/fd/[0-9]+$\"))", 1);
  w.base("(allow file-ioctl", 0);
  w.base("  (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/random\")", 3);
  w.base("  (literal \"/dev/urandom\") (literal \"/dev/dtracehelper\"))", 2);
}

void write_network(ProfileWriter& w, bool share) {
  w.blank();
  if (!share) {
    w.comment("Network: none, loopback included. No rule allows network-outbound,");      // MAC-1
    w.comment("-inbound or -bind, nor creating a Unix-domain socket; `(deny default)`");  // NET-2
    w.comment("refuses them, and name lookups fail at once (the resolver is behind a socket).");
    return;
  }
  w.comment("Network: the machine's, for this approved command, loopback included.");  // NET-3
  w.comment("Unix-domain sockets stay closed but for the resolver's.");
  w.base("(allow network-outbound (remote ip \"*:*\"))");
  w.base("(allow network-inbound (local ip \"*:*\"))");
  w.base("(allow network-bind (local ip \"*:*\"))");
  w.base("(allow system-socket (socket-domain AF_UNIX))");
  w.base("(allow network-outbound (literal \"/private/var/run/mDNSResponder\"))", 1);
  w.base("(allow system-socket (require-all (socket-domain AF_SYSTEM) (socket-protocol 2)))");
  w.base("(allow network-outbound (control-name \"com.apple.netsrc\"))");
  w.base("(allow sysctl-read (sysctl-name-prefix \"net.routetable.\"))");
  w.base("(allow mach-lookup");
  w.line("  (global-name \"com.apple.dnssd.service\")");
  w.line("  (global-name \"com.apple.SystemConfiguration.configd\")");
  w.line("  (global-name \"com.apple.SystemConfiguration.DNSConfiguration\")");
  w.line("  (global-name \"com.apple.networkd\")");
  w.line("  (global-name \"com.apple.trustd.agent\")  ; TLS certificate checks");
  w.line("  (global-name \"com.apple.ocspd\"))");
}

}  // namespace

// FS-13, PKG-2: what a command needs inside cordon's hidden cache folder, as bwrap shows it
// there: its private temp folder ($TMPDIR, MAC-1) and the project's package caches.
struct Reopened {
  std::string path;
  std::string holder;  // the hidden folder holding it
  std::string note;
};

std::vector<Reopened> reopened(const Plan& plan, const Facts& f,
                               const std::vector<Hidden>& hidden) {
  std::vector<std::pair<std::string, std::string>> wanted;
  if (!f.session_tmp.empty())
    wanted.emplace_back(f.session_tmp, "the private temp folder, $TMPDIR");  // MAC-1
  for (const auto& m : plan.mounts)
    if (m.kind == MountKind::kBind && m.src == m.dest &&
        starts_with(m.why, "writable: the project's package caches"))
      wanted.emplace_back(m.src, without_prefix(m.why));
  std::vector<Reopened> out;
  for (const auto& [p, note] : wanted)
    for (const auto& h : hidden)
      if (std::string_view(h.filter.kind) == "subpath" && path_within(p, h.path)) {
        out.push_back(Reopened{p, h.path, note});
        break;
      }
  return out;
}

void write_reopened(ProfileWriter& w, const std::vector<Reopened>& r) {
  if (r.empty()) return;
  w.blank();
  w.comment("Inside cordon's hidden cache folder, only what this command needs,");  // FS-13, PKG-2
  w.comment("and a look at the folders on the way to it (not their contents).");
  std::set<std::string> on_the_way;
  for (const auto& x : r) {
    w.rule(kReopen, Filter{"subpath", x.path, x.note}, BudgetList::kWritable);
    for (std::string a = path_parent(x.path); path_within(a, x.holder); a = path_parent(a)) {
      on_the_way.insert(a);
      if (a == x.holder || a == "/") break;
    }
  }
  for (const auto& a : on_the_way) w.rule(kLookUp, Filter{"literal", a, ""}, BudgetList::kWritable);
}

SeatbeltProfile render_seatbelt_profile(const Plan& plan, const Facts& facts,
                                        const std::vector<std::string>& terminals) {
  ProfileWriter w;
  w.comment("cordon's Seatbelt profile for one command; `cordon policy --seatbelt`");  // MAC-1
  w.comment("prints it. For one operation and path the last matching rule decides.");
  write_base(w);
  write_network(w, plan.share_network);

  w.blank();
  w.comment("Reads: everywhere but the hidden paths and the terminals below.");  // FS-1
  w.base("(allow file-read*)");
  w.comment("Terminals: none of the machine's (reading one reads what the user types); only a");
  w.comment("pseudo-terminal the command opens itself.");  // PROC-2
  w.base("(deny file-read* file-write* file-ioctl (regex \"^/dev/tty\"))", 1);
  // Seatbelt checks writes to a terminal opened before the sandbox too: the command's output
  // to cordon's own terminal needs an allow, for that terminal only (and no reads).
  for (const auto& t : terminals)
    if (starts_with(t, "/dev/"))
      w.base("(allow file-write-data file-ioctl (literal " + sbpl_string(t) +
                 "))  ; cordon's own output",
             1);
  w.base("(allow pseudo-tty)");
  w.base("(allow file-read* file-write* file-ioctl (literal \"/dev/ptmx\"))", 1);
  w.base("(allow file-read* file-write* file-ioctl");
  w.base("  (require-all (regex \"^/dev/ttys[0-9]+$\") (extension \"com.apple.sandbox.pty\")))", 1);

  // The plan's binds, in its order: a later one wins, under bwrap and here alike.
  w.blank();
  // FS-2, FS-3, then PROT, GIT-1, FS-8.
  w.comment("Writes: the project, the private temp folder ($TMPDIR) and the writable paths,");
  w.comment("then read-only inside them: protected paths, git's auto-run files and cordon's");
  w.comment("own folders, in the plan's order.");
  std::vector<std::string> roots;
  std::vector<std::pair<std::string, BudgetList>> read_only;
  std::vector<Filter> credentials;
  for (const auto& m : plan.mounts) {
    const bool empty_src = m.src == facts.empty_file || m.src == facts.empty_dir;
    // A pin (GIT-9) is a mount point so that bwrap's sandbox refuses renames; a profile has no
    // mount points, and the folder is inside a writable root already.
    if (m.kind == MountKind::kBind && starts_with(m.why, "pinned:")) continue;
    if (m.kind == MountKind::kBind) {
      std::string note = m.src == facts.session_tmp ? "the private temp folder, $TMPDIR"  // MAC-1
                                                    : without_prefix(m.why);
      w.rule(kWriteAllow, Filter{"subpath", m.src, note}, BudgetList::kWritable);
      roots.push_back(m.src);
    } else if (m.kind == MountKind::kRoBind && !empty_src && m.src == m.dest && m.dest != "/") {
      BudgetList list = mount_budget_list(m);
      w.rule(kWriteDeny, Filter{"subpath", m.dest, without_prefix(m.why)}, list);
      read_only.emplace_back(m.dest, list);
    } else if (m.kind == MountKind::kRoBind && empty_src && starts_with(m.why, "credential:")) {
      credentials.push_back(Filter{"subpath", m.dest, "a credential file"});  // NET-3
    }
    // Hidden binds are written below from the facts (Seatbelt can do more than a mount);
    // the base binds (/, /dev, /proc) have no counterpart: the base rules above stand in.
  }
  // On macOS the private temp folder is used where it is, inside cordon's cache folder, which
  // a writable path holding it makes read-only above (FS-8): open it again.
  for (const auto& [d, list] : read_only)
    if (path_within(facts.session_tmp, d)) {
      w.rule(kWriteAllow,
             Filter{"subpath", facts.session_tmp, "the private temp folder again"},  // FS-3
             BudgetList::kWritable);
      break;
    }

  const std::vector<Hidden> hidden = hidden_filters(facts);
  w.blank();
  w.comment("Hidden paths: not read, written or run; \"Operation not permitted\".");  // FS-4, FS-5
  for (const auto& h : hidden) w.rule(kHide, h.filter, BudgetList::kHidden);
  if (!credentials.empty()) {
    w.blank();
    w.comment("Credential files, hidden from this networked command.");  // NET-3
    for (auto& c : credentials) w.rule(kHide, std::move(c), BudgetList::kCredential);
  }

  write_reopened(w, reopened(plan, facts, hidden));

  // Rules are about paths: a folder renamed away takes the paths inside it out of their
  // rules' reach, and back. No writable root, and no folder inside one on the way to a
  // read-only, hidden or credential path, may be renamed or removed.
  std::vector<std::pair<std::string, BudgetList>> unlink;
  std::set<std::string> named;
  auto keep = [&](const std::string& p, BudgetList list) {
    if (named.insert(p).second) unlink.emplace_back(p, list);
  };
  for (const auto& r : roots) keep(r, BudgetList::kWritable);
  auto on_the_way = [&](const std::string& p, BudgetList list) {
    std::string root;
    for (const auto& r : roots)
      if (path_within(p, r) && r.size() > root.size()) root = r;
    if (root.empty()) return;
    for (std::string a = path_parent(p); a.size() > root.size() && path_within(a, root);
         a = path_parent(a))
      keep(a, list);
  };
  for (const auto& [d, list] : read_only) on_the_way(d, list);
  for (const auto& h : hidden) on_the_way(h.path, BudgetList::kHidden);
  for (const auto& m : plan.mounts)
    if (starts_with(m.why, "credential:")) on_the_way(m.dest, BudgetList::kCredential);
  w.blank();
  w.comment("Renames and removals: not of a writable root, nor of a folder holding a read-only");
  w.comment("or hidden path (a renamed folder would take its paths out of their rules).");
  for (const auto& [p, list] : unlink)
    w.rule("deny file-write-unlink", Filter{"literal", p, ""}, list);
  return w.finish();
}

}  // namespace cordon
