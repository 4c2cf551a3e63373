// `cordon serve`'s live output end to end (issue 30 item 4, SRV-1): the real binary over
// stdio, real sandboxes; `exec` with "stream": true sends `exec/output` notifications while the
// command runs, all of them before the answer, and they add up to the answer's output.
#include <chrono>

#include "harness.h"
#include "rpc_client.h"

namespace cordon::it {
namespace {

struct Served {
  explicit Served(World& w) : client({"serve"}, w.env, w.project()) {
    init = client.call("initialize", {{"project", w.project()}});
  }
  // The exec/output notifications of request `id` received before its answer, and how many
  // came for it at all.
  std::vector<json> output_before_answer(const json& id, size_t* all = nullptr) {
    std::vector<json> got = client.server_requests();
    size_t before = client.requests_before(id);
    std::vector<json> out;
    size_t count = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      if (got[i].value("method", "") != "exec/output" || got[i]["params"]["id"] != id) continue;
      ++count;
      if (i < before) out.push_back(got[i]["params"]);
    }
    if (all) *all = count;
    return out;
  }
  static std::string joined(const std::vector<json>& pieces, const std::string& stream) {
    std::string s;
    for (const auto& p : pieces)
      if (p["stream"] == stream) s += p["data"].get<std::string>();
    return s;
  }
  RpcClient client;
  json init;
};

// A line every 0.2 s for about 1.6 s, on both streams.
TEST(ServeStream, OutputComesAsItIsPrintedAndBeforeTheAnswer) {  // issue 30 item 4, SRV-1
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  ASSERT_TRUE(s.init.contains("result")) << s.init.dump() << s.client.stderr_text();
  json id = s.client.start("exec", {{"command",
                                     "for i in 1 2 3 4 5 6 7 8; do echo out $i; echo err $i >&2; "
                                     "sleep 0.2; done"},
                                    {"stream", true}});
  json r = s.client.wait(id);
  ASSERT_TRUE(r.contains("result")) << r.dump() << s.client.stderr_text();
  EXPECT_EQ(r["result"]["exit_code"], 0);
  size_t all = 0;
  std::vector<json> pieces = s.output_before_answer(id, &all);
  EXPECT_GE(pieces.size(), 2u);
  EXPECT_EQ(pieces.size(), all) << "an exec/output came after the answer";
  for (const auto& p : pieces) {
    EXPECT_TRUE(p["stream"] == "stdout" || p["stream"] == "stderr") << p.dump();
    EXPECT_FALSE(p["data"].get<std::string>().empty());
  }
  EXPECT_EQ(Served::joined(pieces, "stdout"), r["result"]["stdout"]);
  EXPECT_EQ(Served::joined(pieces, "stderr"), r["result"]["stderr"]);
  EXPECT_NE(Served::joined(pieces, "stderr").find("err 8\n"), std::string::npos);
  EXPECT_TRUE(s.client.bad_lines().empty());
}

// Coalesced: 1 MiB printed at once comes in few notifications of at most 64 KiB each (at most
// about 10 a second, plus the rest at the end), and they still add up to the output.
TEST(ServeStream, MuchOutputAtOnceIsCoalesced) {  // issue 30 item 4, SRV-1
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  ASSERT_TRUE(s.init.contains("result")) << s.init.dump() << s.client.stderr_text();
  auto t0 = std::chrono::steady_clock::now();
  json id = s.client.start(
      "exec", {{"command", "yes 0123456789abcdef | head -c 1048576"}, {"stream", true}});
  json r = s.client.wait(id, std::chrono::seconds(120));
  auto elapsed = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(r.contains("result")) << r.dump().substr(0, 500) << s.client.stderr_text();
  const std::string out = r["result"]["stdout"].get<std::string>();
  EXPECT_EQ(out.size(), size_t{1} << 20);
  size_t all = 0;
  std::vector<json> pieces = s.output_before_answer(id, &all);
  EXPECT_EQ(pieces.size(), all) << "an exec/output came after the answer";
  for (const auto& p : pieces) EXPECT_LE(p["data"].get<std::string>().size(), size_t{64} << 10);
  EXPECT_EQ(Served::joined(pieces, "stdout"), out);
  // One a tenth of a second while it ran, then the rest in 64 KiB pieces (16 for 1 MiB).
  const auto tenths = std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count() / 100;
  EXPECT_LE(pieces.size(), static_cast<size_t>(tenths) + 1 + 16 + 2) << "not coalesced";
}

// Without "stream": true nothing is streamed; a wrong "stream" is refused as a parameter, and
// so is "stream" with "background": true.
TEST(ServeStream, NoneWithoutStreamAndAWrongStreamIsRefused) {  // issue 30 item 4, SRV-1
  REQUIRE_SANDBOX();
  World w;
  Served s(w);
  ASSERT_TRUE(s.init.contains("result")) << s.init.dump() << s.client.stderr_text();
  json plain = s.client.start("exec", {{"command", "echo one; sleep 0.3; echo two"}});
  json r = s.client.wait(plain);
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["stdout"], "one\ntwo\n");
  json off = s.client.start("exec", {{"command", "echo three"}, {"stream", false}});
  r = s.client.wait(off);
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["stdout"], "three\n");
  for (const auto& m : s.client.server_requests())
    EXPECT_NE(m.value("method", ""), "exec/output") << m.dump();
  r = s.client.call("exec", {{"command", "echo x"}, {"stream", "yes"}});
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["error"]["data"]["reason"], "invalid");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("`stream`"), std::string::npos);
  // A background job's output is read with job/output; "background": false is an ordinary exec.
  r = s.client.call("exec", {{"command", "echo x"}, {"stream", true}, {"background", true}});
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("job/output"), std::string::npos);
  json fg =
      s.client.start("exec", {{"command", "echo four"}, {"stream", true}, {"background", false}});
  r = s.client.wait(fg);
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(Served::joined(s.output_before_answer(fg), "stdout"), "four\n");
}

}  // namespace
}  // namespace cordon::it
