// The built-in read-only list (CMD-2). Each entry is `binary`, `binary arg1` or
// `binary arg1 arg2`; a simple command matches when its binary alone, the binary and its first
// argument, or the binary and its first two arguments are here (after git's global options).
//
// What belongs here: programs that read files and print, and nothing else, whatever their
// arguments; or a subcommand that only reads. The arguments that make a listed program write
// (`sort -o`, `find -delete`, `git branch -D`, `sed -i`) are refused separately, in
// classify.cc, whatever entry matched. Left out on purpose: anything that runs code from the
// project (`make -n` still runs `$(shell ...)` and `+` lines, `npm test`, `cargo metadata`),
// anything that fetches and runs what it fetched (`go list`, `git fetch` hooks), pagers and editors
// with shell escapes (`less`, `man`, `vim`), interpreters (`python -c`, `node -e`, `perl`), `tee`,
// `ldd` (which may run the program), and `cd`'s friends `pushd`/`popd`.
#include "commands/read_only_list.h"

namespace cordon {

const std::vector<std::string_view>& builtin_read_only_entries() {
  static const std::vector<std::string_view> list = {
      // Files and folders: list, read, measure.
      "ls", "dir", "vdir", "cat", "tac", "head", "tail", "nl", "wc", "stat", "file", "du", "df",
      "tree", "find", "locate", "plocate", "namei", "lsattr", "getfacl", "realpath", "readlink",
      "basename", "dirname", "pathchk", "pwd", "cd", "mountpoint", "findmnt",
      // Searching.
      "grep", "egrep", "fgrep", "rg", "ag", "fd", "fdfind", "zgrep", "zegrep", "zfgrep", "bzgrep",
      "xzgrep", "zstdgrep",
      // Comparing and checksums.
      "diff", "diff3", "sdiff", "cmp", "comm", "colordiff", "zdiff", "zcmp", "md5sum", "sha1sum",
      "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum", "shasum", "md5",
      // Bytes and encodings.
      "xxd", "od", "hexdump", "hd", "strings", "base32", "base64", "basenc", "iconv",
      // Compressed files read to standard output.
      "zcat", "bzcat", "xzcat", "lzcat", "zstdcat", "lz4cat", "gzip -l", "gzip -t", "gzip -dc",
      "gzip -cd", "gunzip -c", "gunzip -t", "bzip2 -t", "bzip2 -dc", "xz -l", "xz -t", "xz -dc",
      "unxz -c", "zstd -l", "zstd -t", "zstd -dc", "tar -tf", "tar -tvf", "tar -tzf", "tar -tzvf",
      "tar -tvzf", "tar -tjf", "tar -tJf", "tar tf", "tar tvf", "tar tzf", "tar tzvf", "tar --list",
      "unzip -l", "unzip -v", "unzip -t", "unzip -Z", "zipinfo", "7z l",
      // Text processing to standard output.
      "sort", "uniq", "cut", "tr", "paste", "join", "fold", "fmt", "pr", "column", "expand",
      "unexpand", "rev", "shuf", "tsort", "look", "numfmt", "sed", "awk", "gawk", "mawk", "nawk",
      "jq", "gojq", "yq", "xmllint",
      // Printing and testing.
      "echo", "printf", "true", "false", ":", "test", "[", "sleep", "seq", "expr", "factor", "yes",
      "exit", "wait", "jobs", "help", "set", "nice", "time", "exec",
      // The system: who, what, where.
      "date", "cal", "ncal", "uptime", "uname", "arch", "hostname", "whoami", "id", "groups",
      "logname", "users", "who", "w", "last", "tty", "nproc", "getconf", "locale", "lscpu", "lsblk",
      "lsusb", "lspci", "lsmod", "lsof", "free", "vmstat", "iostat", "mpstat", "ps", "pgrep",
      "pidof", "pstree", "ss", "netstat", "dmesg", "journalctl", "env", "printenv", "which",
      "whereis", "type", "command -v", "command -V", "getent", "stty -a", "stty size", "ulimit",
      "umask", "hostnamectl status", "timedatectl status", "localectl status", "systemctl status",
      "systemctl list-units", "systemctl list-unit-files", "systemctl list-timers",
      "systemctl is-active", "systemctl is-enabled", "systemctl is-failed", "systemctl show",
      "systemctl cat", "loginctl list-sessions", "ip",
      // Binaries and objects.
      "nm", "objdump", "readelf", "size", "c++filt", "addr2line", "otool", "pkg-config",
      // git: status, history, content; global options such as -C and -c are skipped first.
      "git status", "git log", "git diff", "git show", "git branch", "git tag", "git rev-parse",
      "git ls-files", "git ls-tree", "git cat-file", "git blame", "git annotate", "git shortlog",
      "git describe", "git rev-list", "git show-ref", "git show-branch", "git for-each-ref",
      "git name-rev", "git merge-base", "git count-objects", "git var", "git check-ignore",
      "git check-attr", "git check-ref-format", "git cherry", "git range-diff", "git grep",
      "git reflog", "git remote", "git config", "git whatchanged", "git diff-tree",
      "git diff-files", "git diff-index", "git verify-commit", "git verify-tag", "git help",
      "git version", "git --version", "git --help", "git --exec-path", "git --html-path",
      "git --man-path", "git --info-path", "git stash list", "git stash show", "git worktree list",
      "git notes list", "git notes show", "git submodule status", "git submodule summary",
      "git apply --check", "git apply --stat", "git apply --numstat", "git apply --summary",
      "git lfs ls-files", "git lfs status", "git lfs env", "git lfs version", "git bisect log",
      "git sparse-checkout list", "git rerere status", "git rerere diff", "git get-tar-commit-id",
      "git show-index", "git ls-remote --get-url", "git mergetool --tool-help",
      // Package managers: what is installed, never install, update or fetch.
      "npm ls", "npm list", "npm ll", "npm la", "npm root", "npm prefix", "npm explain", "npm why",
      "npm query", "npm config get", "npm config list", "npm config ls", "npm --version", "npm -v",
      // npm view asks the registry and runs nothing of the project's.
      "npm view", "npm info", "npm show", "bun --version", "pnpm --version", "pnpm -v",
      "yarn --version", "yarn -v", "pip list", "pip show", "pip freeze", "pip check",
      "pip --version", "pip -V", "pip config list", "pip3 list", "pip3 show", "pip3 freeze",
      "pip3 check", "pip3 --version", "pip3 -V", "pipx list", "pipx --version", "uv --version",
      "uv pip list", "uv pip show", "uv pip freeze", "poetry --version", "conda list", "conda info",
      "conda env list", "conda --version", "gem list", "gem --version", "gem env",
      "bundle --version", "composer --version", "cargo --version", "cargo -V", "cargo version",
      "cargo --list", "rustc --version", "rustc -V", "rustc --print", "rustup --version",
      "rustup toolchain list", "rustup target list", "rustup component list", "go version",
      "go env", "go help", "gofmt -l", "gofmt -d", "dotnet --version", "dotnet --info",
      "dotnet --list-sdks", "dotnet --list-runtimes", "brew list", "brew --version", "brew config",
      "apt list", "apt-cache policy", "apt-cache show", "apt-cache search", "apt-cache depends",
      "apt-cache rdepends", "apt-cache madison", "dpkg -l", "dpkg -L", "dpkg -s", "dpkg -S",
      "dpkg --list", "dpkg --listfiles", "dpkg --status", "dpkg --search", "dpkg-query", "rpm -q",
      "rpm -qa", "rpm -qi", "rpm -ql", "apk info", "snap list", "flatpak list",
      // Version and help of languages and tools.
      "node --version", "node -v", "npx --version", "deno --version", "python --version",
      "python -V", "python3 --version", "python3 -V", "python2 --version", "ruby --version",
      "ruby -v", "perl --version", "perl -v", "php --version", "php -v", "lua -v", "java -version",
      "java --version", "javac -version", "javac --version", "mvn -v", "mvn --version",
      "gradle --version", "kotlin -version", "scala -version", "swift --version", "ghc --version",
      "elixir --version", "julia --version", "R --version", "zig version", "nim --version",
      "dart --version", "gcc --version", "g++ --version", "cc --version", "c++ --version",
      "clang --version", "clang++ --version", "ld --version", "as --version", "make --version",
      "make -v", "cmake --version", "cmake --help", "ninja --version", "meson --version",
      "bazel --version", "autoconf --version", "automake --version", "libtool --version",
      "gdb --version", "valgrind --version", "docker --version", "docker version", "docker info",
      "docker ps", "docker images", "docker inspect", "docker logs", "docker image ls",
      "docker image inspect", "docker image history", "docker container ls",
      "docker container inspect", "docker network ls", "docker network inspect", "docker volume ls",
      "docker volume inspect", "docker compose ps", "docker compose ls", "docker compose config",
      "docker compose version", "podman --version", "podman version", "podman ps", "podman images",
      "podman inspect", "kubectl version --client", "kubectl config current-context",
      "kubectl config get-contexts", "helm version", "terraform version", "terraform --version",
      "ansible --version", "gh --version", "glab --version", "jq --version", "yq --version",
      "curl --version", "wget --version", "openssl version", "ssh -V", "tmux -V",
      "screen --version", "vim --version", "nvim --version", "emacs --version", "nano --version",
      "code --version", "bash --version", "zsh --version", "fish --version", "sh --version",
      "dash --version", "sqlite3 --version", "psql --version", "mysql --version",
      "redis-cli --version", "mongo --version", "rsync --version", "tar --version",
      "git-lfs --version", "shellcheck --version", "shellcheck", "hadolint --version",
      "eslint --version", "prettier --version", "tsc --version", "tsc -v", "black --version",
      "ruff --version", "mypy --version", "flake8 --version", "rg --version", "fd --version",
      "bat --version", "exa --version", "eza --version", "fzf --version", "htop --version",
      "lsb_release", "whatis", "apropos", "ldconfig -p", "lsns", "lsipc", "lslocks", "lsmem",
      "ipcs", "hostid", "runlevel", "numactl -H", "numactl --hardware", "top -b", "perl -V",
      "php -i", "python -VV", "python3 -VV", "sw_vers", "system_profiler", "sysctl -a", "sysctl -n",
      "tput cols", "tput lines", "infocmp"};
  return list;
}

}  // namespace cordon
