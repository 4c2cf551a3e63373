// DIST-4: `cordon hook <client>` through the real binary. The quoting torture set: each
// command goes through each client's hook, and what the client would then run (bash -c of the
// rewritten command, in the hook's folder) gives the same exit status and output, byte for
// byte, as `cordon run -c` of the original in that folder.
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness.h"
#include "test_paths.h"

namespace cordon::it {
namespace {

using json = nlohmann::json;

const char* kClients[] = {"claude-code", "codex", "gemini", "cursor", "vscode"};

json fixture(const std::string& client) {
  std::ifstream in(test_source_dir() + "/tests/data/integrations/hook_" + client +
                   ".json");
  std::stringstream s;
  s << in.rdbuf();
  return json::parse(s.str());
}

// The client's documented input with our command and folder in it.
json hook_input(const std::string& client, const std::string& command, const std::string& cwd) {
  json in = fixture(client);
  in["cwd"] = cwd;
  in["tool_input"]["command"] = command;
  if (client == "gemini") in["tool_input"].erase("dir_path");
  if (client == "cursor") {
    in["tool_input"]["working_directory"] = cwd;
    in["workspace_roots"] = json::array({cwd});
  }
  return in;
}

std::string rewritten(const std::string& client, const json& answer) {
  if (client == "gemini") return answer["hookSpecificOutput"]["tool_input"]["command"];
  if (client == "cursor") return answer["updated_input"]["command"];
  return answer["hookSpecificOutput"]["updatedInput"]["command"];
}

// Quotes of both kinds, $(...), backticks, backslashes, newlines, here-documents, bytes that
// are not UTF-8 (made by the command: JSON strings cannot carry them raw), UTF-8, exit status.
const std::vector<std::string>& torture() {
  static const std::vector<std::string> t = {
      R"X(echo "double $((6*7))" 'single $HOME' "it's" 'say "hi"')X",
      R"X(echo "$(echo nested "$(printf '%s' deep)")" `echo tick`)X",
      R"X(printf '%s|' back\\slash "a\\b" 'c\\d' "\$x" '\n'; echo)X",
      "echo one\necho two\n\n",
      "cat <<'EOF'\n$literal \\ `x` \"q\" 'q'\nEOF\ncat <<EOF\nexpanded $((1+2)) \\$x\nEOF",
      R"X(printf '\xff\xfe\x80 \351t\351\n')X",
      "echo 'é ✓ 日本' \"ü\"",
      R"X(echo $'tab\there' $'nl\nline' "semi;colon" 'pipe|amp&')X",
      "echo out; echo err >&2; exit 7",
      "  echo   spaced   words  ",
      "echo cordon run --base64 --cwd Lw== -c bHM=",
      "pwd; ls -a | sort | head -5",
      "x='a b'; set -- $x; echo $#; for w in \"$@\"; do echo \"[$w]\"; done",
      "echo '#not a comment' # a comment",
  };
  return t;
}

TEST(Hook, TortureSetRunsAsCordonRunWould) {  // DIST-4
  REQUIRE_SANDBOX();
  World w;
  w.write("a file.txt", "x\n");
  // A folder whose name a hand-quoted command would break on.
  const std::string odd = w.project() + "/sub dir 'q' \"dq\" $(x)";
  w.host({"mkdir", "-p", odd});
  for (const std::string& folder : {w.project(), odd}) {
    for (const std::string& cmd : torture()) {
      Proc want = w.cordon({"run", "-c", cmd}, folder);
      for (const char* client : kClients) {
        SCOPED_TRACE(std::string(client) + " in " + folder + ": " + cmd);
        Proc h = w.cordon({"hook", client}, folder, hook_input(client, cmd, folder).dump());
        ASSERT_EQ(h.status, 0) << h.err;
        const std::string wrapped = rewritten(client, json::parse(h.out));
        // The client runs the new command with its shell, in its folder.
        Proc got = run_program({"/bin/bash", "-c", wrapped}, w.env, folder);
        EXPECT_EQ(got.status, want.status) << got.err;
        EXPECT_EQ(got.out, want.out);
        EXPECT_EQ(got.err, want.err);
        // Through the hook again: already wrapped, left alone.
        Proc again = w.cordon({"hook", client}, folder, hook_input(client, wrapped, folder).dump());
        EXPECT_EQ(again.status, 0);
        EXPECT_EQ(again.out, "{}\n");
      }
    }
  }
}

TEST(Hook, TheWrappedCommandIsSandboxed) {  // DIST-4: it runs in cordon run, not beside it
  REQUIRE_SANDBOX();
  World w;
  w.write(w.home() + "/.ssh/id_rsa", "PRIVATE\n");
  const std::string cmd = "cat ~/.ssh/id_rsa | wc -c; touch ~/outside && echo wrote";
  Proc h =
      w.cordon({"hook", "claude-code"}, "", hook_input("claude-code", cmd, w.project()).dump());
  ASSERT_EQ(h.status, 0) << h.err;
  Proc got = run_program({"/bin/bash", "-c", rewritten("claude-code", json::parse(h.out))}, w.env,
                         w.project());
  EXPECT_EQ(got.out, "0\n") << got.err;
  EXPECT_FALSE(w.exists(w.home() + "/outside"));
}

TEST(Hook, BadInputBlocksWithExitTwo) {  // DIST-4
  World w;
  Proc h = w.cordon({"hook", "claude-code"}, "", "{not json");
  EXPECT_EQ(h.status, 2);
  EXPECT_NE(h.err.find("not JSON"), std::string::npos) << h.err;
  EXPECT_EQ(h.out, "");
  // Raw bytes that are not UTF-8 in the JSON: blocked, not passed on half-read.
  h = w.cordon({"hook", "codex"}, "",
               "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"echo \xff\"},\"cwd\":\"/\"}");
  EXPECT_EQ(h.status, 2);
  h = w.cordon({"hook", "zed"}, "", "{}");
  EXPECT_EQ(h.status, 2);
  EXPECT_NE(h.err.find("claude-code"), std::string::npos) << h.err;
  // cordon run --base64 refuses what is not base64.
  Proc r = w.cordon({"run", "--base64", "--cwd", "Lw==", "-c", "not base64!"});
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("base64"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cordon::it
