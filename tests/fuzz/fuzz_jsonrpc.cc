// libFuzzer target for the servers' framing and dispatch (SRV-3): bytes go through the line
// framer into `cordon serve`'s or `cordon mcp`'s connection, over a fake session that runs no
// process (tests/unit/fake_api_session.h), with every request run inline. Whatever the input,
// nothing may crash, hang or leak, and every line written back must be one JSON object.
//
// The first byte picks the face (even: serve, odd: mcp); the rest is the input, split into
// reads at 0xff bytes so the framer sees lines across reads.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "../unit/fake_api_session.h"
#include "core/error_code.h"
#include "jsonrpc/jsonrpc.h"
#include "jsonrpc/jsonrpc_mcp.h"
#include "jsonrpc/jsonrpc_serve.h"

namespace {

using cordon::rpc::json;

bool check_line(std::string_view line) {
  if (line.empty() || line.back() != '\n' || line.find('\n') != line.size() - 1) std::abort();
  json j = json::parse(line.substr(0, line.size() - 1), nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("jsonrpc", "") != "2.0") std::abort();
  return true;
}

template <class Connection>
void feed(Connection& conn, std::string_view data) {
  cordon::rpc::LineFramer framer(4096);  // a small limit, so "too long" is reached
  std::vector<cordon::rpc::LineFramer::Line> lines;
  while (!data.empty()) {
    size_t cut = data.find('\xff');
    framer.feed(data.substr(0, cut), lines);
    data.remove_prefix(cut == std::string_view::npos ? data.size() : cut + 1);
  }
  if (auto last = framer.finish()) lines.push_back(*last);
  for (const auto& l : lines) {
    conn.on_line(l);
    if constexpr (std::is_same_v<Connection, cordon::rpc::ServeConnection>)
      if (conn.finished()) break;
  }
  conn.close();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  // Questions to the client time out at once: nobody answers them here.
  cordon::rpc::Peer peer(check_line);
  if (data[0] % 2 == 0) {
    cordon::rpc::ServeOptions o;
    o.threads = false;
    o.open = [](const cordon::rpc::InitializeParams& ip,
                cordon::Asker* asker) -> cordon::Result<std::unique_ptr<cordon::api::Session>> {
      if (ip.project == "/broken")
        return cordon::make_error(cordon::ErrorKind::kUnavailable, "broken");
      auto s = std::make_unique<cordon::testing::FakeApiSession>(asker, ip.project);
      s->deadline_s = 0;
      return std::unique_ptr<cordon::api::Session>(std::move(s));
    };
    cordon::rpc::ServeConnection conn(std::move(o), peer);
    feed(conn, input);
  } else {
    cordon::rpc::McpOptions o;
    o.threads = false;
    o.open = [](cordon::Asker* asker) -> cordon::Result<std::unique_ptr<cordon::api::Session>> {
      auto s = std::make_unique<cordon::testing::FakeApiSession>(asker);
      s->deadline_s = 0;
      return std::unique_ptr<cordon::api::Session>(std::move(s));
    };
    cordon::rpc::McpConnection conn(std::move(o), peer);
    feed(conn, input);
  }
  return 0;
}
