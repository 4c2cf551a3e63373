// PERF-1: exit_leaving_teardown ends the process with its status at once and leaves the
// unmapping of its memory to a holder that shares it. What its parent sees: the status given,
// every descriptor the process held closed by then (a pipe's reader gets end of file, so the
// holder kept none), the command line reduced to the program's name, the holder itself gone on
// its own shortly after (reaped by whoever reaps the process's orphans), and by then the empty
// folders given to remove_after_exit removed, and a folder with a file in it kept.
#include "host/quick_exit.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"

#if defined(__linux__)
#include <sys/prctl.h>
#endif

namespace cordon {
namespace {

#if defined(__linux__)
// What the reaper (a child subreaper between the test and the exiting process) found, as bits
// in memory shared with the test (more of them than an exit status holds): 0 when all held.
enum : int {
  kWrongStatus = 1,
  kPipeStillOpen = 2,  // a descriptor of the exiting process outlived it
  kNoHolder = 4,       // nothing was left to reap: the holder was never made
  kHolderStayed = 8,   // the holder did not end by itself within 5 s
  kHolderFailed = 16,
  kMoreLeft = 32,
  kArgumentsKept = 64,     // the command line still named the command (the holder shares it)
  kEmptyFolderKept = 128,  // a folder given to remove_after_exit outlived the holder
  kFullFolderGone = 256,   // a folder with a file in it was removed (it must be kept)
  kNoSetUp = 512,          // the pipe or the folders could not be made
  kReaperFailed = 1024,    // the reaper itself did not end normally
};

// The folders the exiting process gives to remove_after_exit: one empty, one with a file.
struct Folders {
  std::string empty, full;
};
Folders make_folders(const std::string& root) {
  Folders f{root + "/empty", root + "/full"};
  mkdir(f.empty.c_str(), 0700);
  mkdir(f.full.c_str(), 0700);
  std::ofstream(f.full + "/kept") << "a user's file";
  return f;
}
bool exists(const std::string& p) {
  struct stat st;
  return lstat(p.c_str(), &st) == 0;
}

// Memory the test, the reaper and the exiting process share: a command line as the kernel lays
// one out (the strings one after another), which the reaper reads after the exiting process is
// gone, and what the reaper found.
struct Shared {
  char text[64];
  char* argv[5];
  int result;
};
constexpr char kArgs[] = "cordon\0run\0--\0sleep 31337";
Shared* shared_memory() {
  void* m =
      mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) std::abort();
  auto* a = static_cast<Shared*>(m);
  a->result = kReaperFailed;
  std::memcpy(a->text, kArgs, sizeof kArgs);
  a->argv[0] = a->text;
  a->argv[1] = a->text + 7;
  a->argv[2] = a->text + 11;
  a->argv[3] = a->text + 14;
  a->argv[4] = nullptr;
  return a;
}

[[noreturn]] void exiting_child(int write_end, int status, Shared* args, const Folders& f) {
  // Not deferred yet: the caller removes its folders itself.
  if (remove_after_exit(f.empty)) _exit(99);
  defer_removals_to_exit();
  if (!remove_after_exit(f.empty) || !remove_after_exit(f.full)) _exit(98);
  // A heap of a few MB, as cordon has when it exits.
  std::vector<char*> blocks;
  for (int i = 0; i < 4000; ++i) {
    blocks.push_back(static_cast<char*>(std::malloc(1024)));
    std::memset(blocks.back(), 1, 1024);
  }
  (void)write_end;  // held open until the exit
  exit_leaving_teardown(status, 4, args->argv);
}

int reaper(int status, Shared* args) {
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  int fds[2];
  if (pipe(fds) != 0) return kNoSetUp;
  it::TempDir root("cordon-quick-exit");  // removed as the reaper returns
  if (root.path.empty()) return kNoSetUp;
  const Folders folders = make_folders(root.path);
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    exiting_child(fds[1], status, args, folders);
  }
  close(fds[1]);
  int result = 0, st = 0;
  if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st) != status)
    result |= kWrongStatus;
  // The holder closed its copy of every descriptor before it was let go: reading gives end of
  // file now. Bounded, so that a descriptor kept open fails the test instead of hanging it.
  alarm(5);
  char c;
  if (read(fds[0], &c, 1) != 0) result |= kPipeStillOpen;
  alarm(0);
  // The holder came to us (the subreaper) when the process exited, and ends by itself.
  int reaped = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    pid_t p = waitpid(-1, &st, WNOHANG | __WALL);
    if (p > 0) {
      ++reaped;
      if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) result |= kHolderFailed;
      continue;
    }
    if (p < 0) break;  // ECHILD: nothing more to reap
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (reaped == 0) result |= kNoHolder;
  // The program's name stays; the rest is gone.
  if (std::strcmp(args->text, "cordon") != 0 ||
      std::memchr(args->text + 7, 's', sizeof kArgs - 7) != nullptr)
    result |= kArgumentsKept;
  if (reaped > 1) result |= kMoreLeft;
  if (waitpid(-1, &st, WNOHANG | __WALL) == 0) result |= kHolderStayed;
  // The holder removed the empty folder before it ended, and only that one.
  if (exists(folders.empty)) result |= kEmptyFolderKept;
  if (!exists(folders.full + "/kept")) result |= kFullFolderGone;
  return result;
}

int run_reaper(int status) {
  Shared* shared = shared_memory();
  pid_t r = fork();
  if (r == 0) {
    shared->result = reaper(status, shared);
    _exit(0);
  }
  int st = 0;
  waitpid(r, &st, 0);
  const int result = WIFEXITED(st) && WEXITSTATUS(st) == 0 ? shared->result : kReaperFailed;
  munmap(shared, sizeof(Shared));
  return result;
}

TEST(QuickExitTest, StatusGivenDescriptorsClosedAndTheHolderEndsByItself) {
  EXPECT_EQ(run_reaper(7), 0);
  EXPECT_EQ(run_reaper(0), 0);
  EXPECT_EQ(run_reaper(255), 0);
}
#endif

}  // namespace
}  // namespace cordon
