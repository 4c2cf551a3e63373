// `cordon serve` under load: PERF-4 (sequential `exec` of `true` per second, target >= 40/s;
// two in flight at once, target >= 1.6x the sequential rate) and PERF-6 (resident memory of
// the server over 10,000 execs, target < 20 MiB and no growth). Sequential and paired rounds
// alternate, because this machine is shared and noisy; medians are printed. Figures only:
// nothing here fails on time.
//
//   bench_serve CORDON_BINARY [--rounds N] [--execs N] [--rss-execs N] [--only perf4|perf6]
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "serve_client.h"

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

void die(const std::string& m) {
  std::fprintf(stderr, "bench_serve: %s\n", m.c_str());
  std::exit(1);
}

using bench::Server;

long rss_kib(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

// Threads and open descriptors of a process: neither may grow with the number of execs.
std::string threads_and_fds(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line, threads = "?";
  while (std::getline(f, line))
    if (line.rfind("Threads:", 0) == 0) threads = line.substr(9);
  std::string cmd = "ls /proc/" + std::to_string(pid) + "/fd | wc -l";
  FILE* p = popen(cmd.c_str(), "r");
  char buf[32] = {0};
  if (p) {
    if (!fgets(buf, sizeof buf, p)) buf[0] = 0;
    pclose(p);
  }
  std::string fds = buf;
  while (!fds.empty() && (fds.back() == '\n' || fds.back() == ' ')) fds.pop_back();
  return "threads " + threads + ", descriptors " + fds;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// `n` execs, with `in_flight` of them outstanding at any time; returns execs per second.
double run(Server& s, int n, int in_flight, int64_t& next_id) {
  auto t0 = Clock::now();
  int sent = 0, done = 0;
  while (sent < n && sent - done < in_flight) s.exec_true(next_id++), ++sent;
  while (done < n) {
    s.expect_ok(s.read());
    ++done;
    if (sent < n) s.exec_true(next_id++), ++sent;
  }
  double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  return n / secs;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) die("usage: bench_serve CORDON_BINARY [--rounds N] [--execs N] [--rss-execs N]");
  std::string cordon = argv[1];
  int rounds = 5, execs = 100, rss_execs = 10000;
  std::string only;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--rounds") rounds = std::atoi(argv[i + 1]);
    if (k == "--execs") execs = std::atoi(argv[i + 1]);
    if (k == "--rss-execs") rss_execs = std::atoi(argv[i + 1]);
    if (k == "--only") only = argv[i + 1];
  }
  char tmpl[] = "/var/tmp/cordon-bench-serve-XXXXXX";
  std::string root = mkdtemp(tmpl);
  std::string home = root + "/home", project = home + "/project";
  std::string mk = "mkdir -p " + project + " && cd " + project +
                   " && git init -q -b main && echo hi > README.md && git add README.md && "
                   "GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@x GIT_COMMITTER_NAME=b "
                   "GIT_COMMITTER_EMAIL=b@x git commit -q -m init";
  if (std::system(mk.c_str()) != 0) die("cannot make the project");
  std::vector<std::string> env = {"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin",
                                  "LANG=C.UTF-8"};
  {
    Server s(cordon, env, project);
    s.send({{"jsonrpc", "2.0"},
            {"id", 0},
            {"method", "initialize"},
            {"params", {{"project", project}}}});
    json init = s.read();
    if (!init.contains("result") || init["result"]["sandbox"]["available"] != true)
      die("initialize: " + init.dump());
    int64_t id = 1;
    run(s, 20, 1, id);  // warm: the probe, the page cache, the seccomp program
    if (only.empty() || only == "perf4") {
      std::vector<double> seq, par;
      for (int r = 0; r < rounds; ++r) {
        seq.push_back(run(s, execs, 1, id));
        par.push_back(run(s, execs, 2, id));
        std::printf("  round %d: sequential %.1f exec/s, two in flight %.1f exec/s (%.2fx)\n",
                    r + 1, seq.back(), par.back(), par.back() / seq.back());
      }
      double ms = median(seq), mp = median(par);
      std::printf(
          "PERF-4 sequential exec of `true`: %.1f exec/s median of %d rounds of %d "
          "(target >= 40)\n",
          ms, rounds, execs);
      std::printf("PERF-4 two in flight: %.1f exec/s, %.2fx sequential (target >= 1.6x)\n", mp,
                  mp / ms);
    }
    if (only.empty() || only == "perf6") {
      long first = rss_kib(s.pid()), peak = first, at_half = 0;
      std::printf("PERF-6 resident memory of cordon serve over %d execs (two in flight):\n",
                  rss_execs);
      std::printf("  after %5d execs: %6ld KiB (%s)\n", 0, first, threads_and_fds(s.pid()).c_str());
      auto t0 = Clock::now();
      int step = std::max(1, rss_execs / 10);
      for (int done = 0; done < rss_execs; done += step) {
        run(s, std::min(step, rss_execs - done), 2, id);
        long now = rss_kib(s.pid());
        peak = std::max(peak, now);
        if (done + step >= rss_execs / 2 && at_half == 0) at_half = now;
        std::printf("  after %5d execs: %6ld KiB (%s)\n", std::min(done + step, rss_execs), now,
                    threads_and_fds(s.pid()).c_str());
        std::fflush(stdout);
      }
      long last = rss_kib(s.pid());
      double secs = std::chrono::duration<double>(Clock::now() - t0).count();
      std::printf(
          "PERF-6 peak %.1f MiB (target < 20 MiB); last %.1f MiB; second half growth "
          "%+ld KiB; %.1f exec/s\n",
          peak / 1024.0, last / 1024.0, last - at_half, rss_execs / secs);
    }
    s.send({{"jsonrpc", "2.0"}, {"id", -1}, {"method", "shutdown"}});
    s.read();
  }
  std::string rm = "rm -rf " + root;
  if (std::system(rm.c_str()) != 0) return 1;
  return 0;
}
