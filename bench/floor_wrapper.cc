// The floor for PERF-1: the least any wrapper around bwrap pays that does the per-command file
// work the requirements ask of cordon — a private /tmp folder made and removed (FS-3), a leftover record
// written atomically and removed (SES-2), the protected paths looked at afterwards (PROT-6) —
// and nothing else: no config, no facts, no plan. bench_compare runs it around the same bwrap
// command as the bare one, so "cordon / floor" is what cordon's own work costs, and
// "floor / bwrap" what being a separate process with that work costs on this machine.
//
//   FLOOR_BASE=DIR floor_wrapper BWRAP ARGS...
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

extern char** environ;

int main(int argc, char** argv) {
  const char* base = std::getenv("FLOOR_BASE");
  if (argc < 2 || !base) {
    std::fprintf(stderr, "usage: FLOOR_BASE=DIR floor_wrapper COMMAND ARGS...\n");
    return 2;
  }
  char tmp[1024], dir[1024], rec[1100], part[1100];
  std::snprintf(tmp, sizeof tmp, "%s/tmp-%d", base, getpid());
  std::snprintf(dir, sizeof dir, "%s/leftovers-%d", base, getpid());
  std::snprintf(rec, sizeof rec, "%s/1", dir);
  std::snprintf(part, sizeof part, "%s/1.tmp", dir);
  mkdir(tmp, 0700);
  mkdir(dir, 0700);
  static char record[3900];  // the size of cordon's leftover record for a small project
  std::memset(record, 'x', sizeof record);
  int fd = open(part, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0 || write(fd, record, sizeof record) != static_cast<ssize_t>(sizeof record)) return 3;
  close(fd);
  if (rename(part, rec) != 0) return 3;
  pid_t pid;
  if (posix_spawn(&pid, argv[1], nullptr, nullptr, argv + 1, environ) != 0) return 4;
  int st = 0;
  waitpid(pid, &st, 0);
  struct stat s;
  for (int i = 0; i < 40; ++i) {
    char p[1100];
    std::snprintf(p, sizeof p, "%s/protected-%d", base, i);
    lstat(p, &s);
  }
  unlink(rec);
  rmdir(dir);
  rmdir(tmp);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 125;
}
