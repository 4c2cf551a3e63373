// The planner alone (pure): facts -> plan -> bwrap arguments, no processes.
#include <benchmark/benchmark.h>

#include "fake_facts.h"
#include "plan/planner.h"
#include "render/bwrap_args.h"

namespace {

using cordon::Kind;
using cordon::testing::FakeWorld;
using cordon::testing::file_info;

FakeWorld agent_like_world() {
  FakeWorld w;
  for (const char* d : {"~/.ssh", "~/.aws", "~/.config/gh", "~/.docker", "~/.kube"})
    w.exists_hidden(d, file_info(std::string("/home/u/") + (d + 2), Kind::kDir));
  for (const char* f : {"~/.netrc", "~/.npmrc", "~/.bash_history", "~/.git-credentials"})
    w.exists_hidden(f, file_info(std::string("/home/u/") + (f + 2)));
  for (int i = 0; i < 20; ++i)
    w.facts.env.set("VAR" + std::to_string(i), "value" + std::to_string(i));
  w.facts.env.set("GITHUB_TOKEN", "x");
  return w;
}

void BM_Plan(benchmark::State& state) {
  FakeWorld w = agent_like_world();
  cordon::Request r;
  r.argv = {"make", "test"};
  for (auto _ : state) {
    cordon::Plan p = cordon::make_plan(w.policy, w.facts, r);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_Plan);

void BM_PlanAndRender(benchmark::State& state) {
  FakeWorld w = agent_like_world();
  cordon::Request r;
  r.argv = {"make", "test"};
  for (auto _ : state) {
    cordon::Plan p = cordon::make_plan(w.policy, w.facts, r);
    auto args = cordon::render_bwrap_args(p, cordon::BwrapFds{4, 5});
    std::string blob = cordon::nul_join(args);
    benchmark::DoNotOptimize(blob);
  }
}
BENCHMARK(BM_PlanAndRender);

}  // namespace
