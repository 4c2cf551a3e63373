// The command policy alone (pure): classify_line on lines agents run (CMD-2). The server
// classifies before each command, so this is on the path of every `exec`.
#include <benchmark/benchmark.h>

#include "commands/classify.h"
#include "commands/program_tables.h"

namespace {

const cordon::CommandClassifier& classifier() {
  static const cordon::CommandClassifier c =
      std::move(cordon::CommandClassifier::create(cordon::CommandsConfig{})).value();
  return c;
}

cordon::ClassifyContext context() {
  cordon::ClassifyContext ctx;
  ctx.cwd = "/home/u/proj";
  ctx.home = "/home/u";
  return ctx;
}

void classify(benchmark::State& state, const char* line) {
  const auto& c = classifier();
  auto ctx = context();
  for (auto _ : state) {
    auto r = c.classify_line(line, ctx);
    benchmark::DoNotOptimize(r);
  }
}

void BM_ClassifyShort(benchmark::State& s) { classify(s, "git status"); }
BENCHMARK(BM_ClassifyShort);
void BM_ClassifyPipeline(benchmark::State& s) {
  classify(s, "grep -rn 'TODO' src/ | sort -u -k2,2 -t: | head -50");
}
BENCHMARK(BM_ClassifyPipeline);
void BM_ClassifyGitLog(benchmark::State& s) {
  classify(s, "git --no-pager log --oneline --graph --decorate --all -n 30 -- src/");
}
BENCHMARK(BM_ClassifyGitLog);
void BM_ClassifyWrites(benchmark::State& s) {
  classify(s, "cd build && cmake --build . -j4 && ctest --output-on-failure > log.txt");
}
BENCHMARK(BM_ClassifyWrites);
void BM_ClassifyLong(benchmark::State& s) {
  classify(s,
           "find . -name '*.ts' -not -path './node_modules/*' | xargs grep -l useEffect | "
           "while read f; do wc -l \"$f\"; done; ls -la src; cat package.json | jq .scripts; "
           "sed -n '1,80p' src/server.ts; awk -F, '{sum += $3} END {print sum}' data.csv");
}
BENCHMARK(BM_ClassifyLong);

}  // namespace

// PERF-1: what a one-shot `cordon run` pays once before its first classification: the tables,
// the classifier's lists, and the first line's path matchers (a fresh classifier each time).
void BM_TablesIndex(benchmark::State& state) {
  for (auto _ : state) {
    auto t = cordon::ProgramTables::index();
    benchmark::DoNotOptimize(t);
  }
}
BENCHMARK(BM_TablesIndex)->Unit(benchmark::kMillisecond);
void BM_CreateAndFirstClassify(benchmark::State& state) {
  auto ctx = context();
  for (auto _ : state) {
    auto c = cordon::CommandClassifier::create(cordon::CommandsConfig{});
    auto r = c->classify_line("true", ctx);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_CreateAndFirstClassify)->Unit(benchmark::kMillisecond);
