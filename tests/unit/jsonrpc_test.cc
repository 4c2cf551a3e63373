// JSON-RPC framing and messages (SRV-1, SRV-3): every malformed input gets an error reply,
// never an exception.
#include "jsonrpc/jsonrpc.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "cordon/cordon.h"
#include "core/error_code.h"
#include "jsonrpc/jsonrpc_peer.h"
#include "jsonrpc/jsonrpc_tools.h"

namespace cordon::rpc {
namespace {

std::vector<LineFramer::Line> frame(LineFramer& f, const std::string& data) {
  std::vector<LineFramer::Line> out;
  f.feed(data, out);
  return out;
}

TEST(LineFramer, SplitsLinesAcrossReads) {
  LineFramer f;
  EXPECT_TRUE(frame(f, "{\"a\":").empty());
  auto lines = frame(f, "1}\n{\"b\":2}\r\n{\"c\"");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].text, "{\"a\":1}");
  EXPECT_EQ(lines[1].text, "{\"b\":2}");  // CRLF: the \r is dropped
  auto last = f.finish();
  ASSERT_TRUE(last);
  EXPECT_EQ(last->text, "{\"c\"");
  EXPECT_FALSE(f.finish());
}

TEST(LineFramer, TooLongLineIsReportedOnceAndDroppedToItsEnd) {  // SRV-3
  LineFramer f(10);
  auto lines = frame(f, "0123456789ABC");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].too_long);
  EXPECT_TRUE(frame(f, "more of the same line").empty());
  lines = frame(f, "still\nok\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_FALSE(lines[0].too_long);
  EXPECT_EQ(lines[0].text, "ok");
  // A line exactly at the limit is fine.
  lines = frame(f, "0123456789\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text, "0123456789");
}

TEST(LineFramer, TooLongLineWithNoEndIsNotReturnedAtFinish) {
  LineFramer f(4);
  EXPECT_EQ(frame(f, "abcdefgh").size(), 1u);
  EXPECT_FALSE(f.finish());
}

TEST(LineFramer, DefaultLimitIs16MiB) {  // SRV-3
  LineFramer f;
  std::string big(kMaxLineBytes, 'x');
  EXPECT_TRUE(frame(f, big).empty());
  auto lines = frame(f, "y");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].too_long);
}

int error_code(const Message& m) { return m.reply["error"]["code"].get<int>(); }

TEST(ParseMessage, RequestNotificationResponse) {
  Message m = parse_message(R"({"jsonrpc":"2.0","id":7,"method":"exec","params":{"argv":["ls"]}})");
  EXPECT_EQ(m.kind, Message::Kind::kRequest);
  EXPECT_EQ(m.id, 7);
  EXPECT_EQ(m.method, "exec");
  EXPECT_EQ(m.params["argv"][0], "ls");
  m = parse_message(R"({"jsonrpc":"2.0","method":"note"})");
  EXPECT_EQ(m.kind, Message::Kind::kNotification);
  EXPECT_TRUE(m.params.is_null());
  m = parse_message(R"({"jsonrpc":"2.0","id":"x","result":{"decision":"allow"}})");
  EXPECT_EQ(m.kind, Message::Kind::kResponse);
  EXPECT_EQ(m.result["decision"], "allow");
  m = parse_message(R"({"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"no"}})");
  EXPECT_EQ(m.kind, Message::Kind::kResponse);
  ASSERT_TRUE(m.error);
  EXPECT_EQ((*m.error)["message"], "no");
  EXPECT_EQ(parse_message("   ").kind, Message::Kind::kEmpty);
}

TEST(ParseMessage, MalformedInputGetsTheRightError) {  // SRV-3
  struct Case {
    const char* line;
    int code;
    bool keeps_id;
  } cases[] = {
      {"not json", kParseError, false},
      {"{\"jsonrpc\":\"2.0\",\"id\":1,", kParseError, false},
      {"[1,2]", kInvalidRequest, false},  // a batch
      {"42", kInvalidRequest, false},
      {"\"text\"", kInvalidRequest, false},
      {"null", kInvalidRequest, false},
      {R"({"id":1,"method":"x"})", kInvalidRequest, true},                      // no jsonrpc
      {R"({"jsonrpc":"1.0","id":1,"method":"x"})", kInvalidRequest, true},      // wrong version
      {R"({"jsonrpc":2,"id":1,"method":"x"})", kInvalidRequest, true},          // not a string
      {R"({"jsonrpc":"2.0","id":{},"method":"x"})", kInvalidRequest, false},    // bad id
      {R"({"jsonrpc":"2.0","id":[1],"method":"x"})", kInvalidRequest, false},   // bad id
      {R"({"jsonrpc":"2.0","id":true,"method":"x"})", kInvalidRequest, false},  // bad id
      {R"({"jsonrpc":"2.0","id":1,"method":5})", kInvalidRequest, true},
      {R"({"jsonrpc":"2.0","id":1,"method":"x","params":"s"})", kInvalidRequest, true},
      {R"({"jsonrpc":"2.0","id":1,"method":"x","params":3})", kInvalidRequest, true},
      {R"({"jsonrpc":"2.0","id":1})", kInvalidRequest, true},  // neither
      {R"({"jsonrpc":"2.0","id":1,"result":1,"error":{}})", kInvalidRequest, true},
      {R"({"jsonrpc":"2.0","result":1})", kInvalidRequest, false},  // a response with no id
      {R"({"jsonrpc":"2.0","id":1,"error":"no"})", kInvalidRequest, false},
      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}", kParseError, false},  // not UTF-8
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.line);
    Message m = parse_message(c.line);
    ASSERT_EQ(m.kind, Message::Kind::kInvalid);
    EXPECT_EQ(error_code(m), c.code);
    EXPECT_EQ(m.reply["jsonrpc"], "2.0");
    EXPECT_EQ(m.reply["error"]["data"]["reason"], "invalid");
    if (c.keeps_id)
      EXPECT_EQ(m.reply["id"], 1);
    else
      EXPECT_TRUE(m.reply["id"].is_null());
    // The reply itself is one valid line.
    std::string line = to_line(m.reply);
    EXPECT_EQ(line.back(), '\n');
    EXPECT_EQ(line.find('\n'), line.size() - 1);
  }
}

TEST(ParseMessage, DuplicateKeysAreInvalidAtAnyDepth) {  // SRV-3, issue 13 item 14
  struct Case {
    const char* line;
    bool keeps_id;
  } cases[] = {
      {R"({"jsonrpc":"2.0","id":1,"method":"exec","params":{"command":"echo one","command":"echo two"}})",
       true},
      {R"({"jsonrpc":"2.0","id":1,"method":"exec","method":"review","params":{}})", true},
      {R"({"jsonrpc":"2.0","id":1,"id":2,"method":"exec"})", false},
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","arguments":{"command":"ls","command":"rm -rf x"}}})",
       true},
      {R"({"jsonrpc":"2.0","id":1,"method":"exec","params":{"argv":[{"a":1,"a":2}]}})", true},
      {R"({"jsonrpc":"2.0","id":1,"method":"exec","params":{"command":"ls","command":"rm"}})",
       true},  // the same key spelled with an escape
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.line);
    Message m = parse_message(c.line);
    ASSERT_EQ(m.kind, Message::Kind::kInvalid);
    EXPECT_EQ(error_code(m), kInvalidRequest);
    EXPECT_EQ(m.reply["error"]["data"]["reason"], "invalid");
    EXPECT_NE(m.reply["error"]["message"].get<std::string>().find("twice"), std::string::npos);
    if (c.keeps_id)
      EXPECT_EQ(m.reply["id"], 1);
    else
      EXPECT_TRUE(m.reply["id"].is_null());
  }
  // The same key in two different objects is fine.
  EXPECT_EQ(
      parse_message(R"({"jsonrpc":"2.0","id":1,"method":"x","params":{"id":2,"a":{"id":3}}})").kind,
      Message::Kind::kRequest);
  // A key in the message is printable in the reply.
  Message m = parse_message("{\"jsonrpc\":\"2.0\",\"id\":1,\"\\u001b]0;x\":1,\"\\u001b]0;x\":2}");
  ASSERT_EQ(m.kind, Message::Kind::kInvalid);
  EXPECT_EQ(m.reply["error"]["message"].get<std::string>().find('\x1b'), std::string::npos);
}

TEST(ParseMessage, DeepNestingIsRefusedWithoutParsing) {
  std::string deep = R"({"jsonrpc":"2.0","id":1,"method":"x","params":{"a":)";
  deep += std::string(100000, '[') + std::string(100000, ']') + "}}";
  Message m = parse_message(deep);
  ASSERT_EQ(m.kind, Message::Kind::kInvalid);
  EXPECT_EQ(error_code(m), kParseError);
  // Brackets inside strings do not count.
  std::string quoted =
      R"({"jsonrpc":"2.0","id":1,"method":"x","params":{"a":")" + std::string(1000, '[') + R"("}})";
  EXPECT_EQ(parse_message(quoted).kind, Message::Kind::kRequest);
  // Exactly at the limit is fine.
  std::string ok = R"({"jsonrpc":"2.0","id":1,"method":"x","params":)" +
                   std::string(kMaxDepth - 1, '[') + std::string(kMaxDepth - 1, ']') + "}";
  EXPECT_EQ(parse_message(ok).kind, Message::Kind::kRequest);
}

TEST(ToLine, InvalidUtf8IsReplacedNotThrown) {
  json j = make_response(1, {{"stdout", std::string("a\xff\xfe"
                                                    "b")}});
  std::string line = to_line(j);
  json back = json::parse(line);
  EXPECT_EQ(back["result"]["stdout"],
            "a\xEF\xBF\xBD\xEF\xBF\xBD"
            "b");
}

TEST(ErrorReply, CarriesTheStableReason) {  // SRV-1
  json e = error_response(5, make_error(ErrorKind::kHeld, "held: kill -9 42"));
  EXPECT_EQ(e["error"]["code"], kHeldCode);
  EXPECT_EQ(e["error"]["message"], "held: kill -9 42");
  EXPECT_EQ(e["error"]["data"]["reason"], "held");
  EXPECT_EQ(error_response(5, make_error(ErrorKind::kInvalid, "x"))["error"]["code"],
            kInvalidParams);
  EXPECT_EQ(error_response(5, make_error(ErrorKind::kRefused, "x"))["error"]["code"], kRefusedCode);
  EXPECT_EQ(error_response(5, make_error(ErrorKind::kUnavailable, "x"))["error"]["code"],
            kUnavailableCode);
}

// SRV-1, issue 29 item 4: one mapping from libcordon's kinds to the public code
// (core/error_code.h) and one from the public code to JSON-RPC's; the file tools' answers use
// the same two as exec's.
TEST(ErrorReply, OneMappingFromWordToCode) {  // SRV-1
  EXPECT_EQ(jsonrpc_code(ErrorCode::kRefused), kRefusedCode);
  EXPECT_EQ(jsonrpc_code(ErrorCode::kHeld), kHeldCode);
  EXPECT_EQ(jsonrpc_code(ErrorCode::kUnavailable), kUnavailableCode);
  EXPECT_EQ(jsonrpc_code(ErrorCode::kInvalid), kInvalidParams);
  EXPECT_EQ(jsonrpc_code(ErrorCode::kIo), kUnavailableCode);
  // a broken config: fix it first
  EXPECT_EQ(error_response(1, make_error(ErrorKind::kConfig, "x"))["error"]["code"],
            kUnavailableCode);
  EXPECT_EQ(error_response(1, make_error(ErrorKind::kGit, "x"))["error"]["code"], kInvalidParams);
  EXPECT_EQ(error_response(1, Error{})["error"]["code"], kRefusedCode);  // no kind: fails closed
  EXPECT_EQ(wire_reason(make_error(ErrorKind::kConfig, "bad")), "unavailable");
  EXPECT_EQ(wire_reason(make_error(ErrorKind::kIo, "disk")), "unavailable");
  EXPECT_EQ(wire_reason(make_error(ErrorKind::kReview, "none")), "invalid");
  EXPECT_EQ(wire_reason(make_error(ErrorKind::kSpawn, "no")), "refused");
}

TEST(Params, TypesAreChecked) {
  json p = {{"path", "a"},
            {"n", 3},
            {"neg", -1},
            {"f", 2.5},
            {"b", true},
            {"list", {"x", 1}},
            {"nul", std::string("a\0b", 3)}};
  {
    Params r(p);
    EXPECT_EQ(r.str("path"), "a");
    EXPECT_EQ(r.count("n", 10), 3u);
    EXPECT_EQ(r.boolean("b"), true);
    EXPECT_TRUE(r.ok());
    EXPECT_FALSE(r.str("absent"));
    EXPECT_TRUE(r.ok());
  }
  auto problem = [&](auto read) {
    Params r(p);
    read(r);
    return r.problem();
  };
  EXPECT_NE(problem([](Params& r) { r.str("n"); }).find("`n` must be a string"), std::string::npos);
  EXPECT_NE(problem([](Params& r) { r.count("neg", 10); }).find("integer"), std::string::npos);
  EXPECT_NE(problem([](Params& r) { r.count("f", 10); }).find("integer"), std::string::npos);
  EXPECT_NE(problem([](Params& r) { r.count("n", 2); }).find("from 0 to 2"), std::string::npos);
  EXPECT_NE(problem([](Params& r) { r.boolean("path"); }).find("true or false"), std::string::npos);
  EXPECT_NE(problem([](Params& r) { r.strings("list"); }).find("only strings"), std::string::npos);
  EXPECT_NE(problem([](Params& r) { r.str("absent", true); }).find("required"), std::string::npos);
  EXPECT_NE(problem([](Params& r) { r.str("nul"); }).find("NUL"), std::string::npos);
  EXPECT_EQ(problem([](Params& r) { r.str("nul", false, /*data=*/true); }), "");
  EXPECT_NE(problem([](Params& r) {
              r.str("path");
              r.no_others();
            }).find("unknown parameter"),
            std::string::npos);
  Params arr(json::array({1}));
  EXPECT_FALSE(arr.ok());
}

TEST(Peer, CallWaitsForItsResponseAndTimesOut) {
  std::vector<std::string> sent;
  std::mutex mu;
  Peer peer([&](std::string_view l) {
    std::lock_guard<std::mutex> lock(mu);
    sent.emplace_back(l);
    return true;
  });
  auto soon = std::chrono::steady_clock::now() + std::chrono::milliseconds(30);
  auto r = peer.call("approval/ask", {{"kind", "network"}}, soon);
  EXPECT_EQ(r.status, Peer::CallResult::kTimeout);
  ASSERT_EQ(sent.size(), 1u);
  json req = json::parse(sent[0]);
  EXPECT_EQ(req["method"], "approval/ask");
  // A late answer matches nothing.
  Message late = parse_message(R"({"jsonrpc":"2.0","id":1,"result":{}})");
  EXPECT_FALSE(peer.on_response(late));

  std::thread answer([&] {
    for (int i = 0; i < 200; ++i) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (sent.size() == 2) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    Message m = parse_message(R"({"jsonrpc":"2.0","id":2,"result":{"decision":"allow"}})");
    EXPECT_TRUE(peer.on_response(m));
  });
  r = peer.call("approval/ask", {}, std::nullopt);
  answer.join();
  EXPECT_EQ(r.status, Peer::CallResult::kResult);
  EXPECT_EQ(r.value["decision"], "allow");

  peer.close();
  EXPECT_EQ(peer.call("x", {}, std::nullopt).status, Peer::CallResult::kClosed);
}

// SRV-4, APR-5 (issue 27): a call waiting for the client's answer returns kCanceled as soon as
// its request is canceled and the peer is woken, with the id to withdraw; a call whose request
// was canceled before it is made sends nothing.
TEST(Peer, ACanceledRequestStopsWaitingAtOnce) {
  std::atomic<int> sent{0};
  Peer peer([&](std::string_view) {
    ++sent;
    return true;
  });
  cordon::api::Cancel cancel;
  std::thread canceler([&] {
    while (sent == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    cancel.cancel();
    peer.wake();
  });
  auto t0 = std::chrono::steady_clock::now();
  auto r = peer.call("approval/ask", {}, std::nullopt, cancel.fd());
  canceler.join();
  EXPECT_EQ(r.status, Peer::CallResult::kCanceled);
  EXPECT_EQ(r.id, 1);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  // The late answer matches nothing; a new call for the canceled request is not sent.
  EXPECT_FALSE(peer.on_response(parse_message(R"({"jsonrpc":"2.0","id":1,"result":{}})")));
  EXPECT_EQ(peer.call("approval/ask", {}, std::nullopt, cancel.fd()).status,
            Peer::CallResult::kCanceled);
  EXPECT_EQ(sent, 1);
}

TEST(Peer, LinesAreNeverInterleaved) {  // SRV-4
  std::string out;
  std::atomic<int> writing{0};
  bool overlapped = false;
  Peer peer([&](std::string_view l) {
    if (writing.fetch_add(1) != 0) overlapped = true;
    // Written in two halves, as a slow pipe would.
    out.append(l.substr(0, l.size() / 2));
    std::this_thread::yield();
    out.append(l.substr(l.size() / 2));
    writing.fetch_sub(1);
    return true;
  });
  std::vector<std::thread> ts;
  for (int t = 0; t < 8; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) peer.send(make_response(t * 1000 + i, std::string(100, 'x')));
    });
  for (auto& t : ts) t.join();
  EXPECT_FALSE(overlapped);
  size_t lines = 0, pos = 0;
  while ((pos = out.find('\n', pos)) != std::string::npos) ++pos, ++lines;
  EXPECT_EQ(lines, 1600u);
}

TEST(Workers, LimitAndWait) {
  Workers w(2, true);
  std::atomic<bool> go{false};
  std::atomic<int> ran{0};
  auto job = [&] {
    while (!go) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ran++;
  };
  EXPECT_TRUE(w.run(job));
  EXPECT_TRUE(w.run(job));
  EXPECT_FALSE(w.run(job));  // at the limit
  go = true;
  w.wait_all();
  EXPECT_EQ(ran, 2);
  EXPECT_TRUE(w.run(job));
  w.wait_all();
  EXPECT_EQ(ran, 3);
}

}  // namespace
}  // namespace cordon::rpc
