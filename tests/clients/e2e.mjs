// DIST-4 (issue 28): cordon's `setup` and `hook` inside the real coding agents. Each client,
// installed at a pinned version (scripts/clients_e2e.sh), is driven offline against
// model_server.mjs, a scripted stand-in for its model API on loopback, in its approve-everything
// mode, and the checks are what a user would see:
//   - the scripted command ran in the sandbox: ~/.ssh/id_rsa read empty, ~/outside.txt not written;
//   - the client's own shell is not offered, or is refused;
//   - a second `cordon setup` changes nothing and exits 0;
//   - through the hook, the client's own deny rules still apply (Claude Code);
//   - nothing tried to leave loopback (the proxy trap in model_server.mjs);
//   - issue 30: Claude Code's background shell through cordon's MCP server (bash with
//     run_in_background, then bash_output and kill_bash): a dev server that the next command
//     reaches, then ends with no process left.
//
//   node e2e.mjs /path/to/cordon /path/to/node_modules/.bin [claude|codex|gemini ...]
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const cordon = path.resolve(process.argv[2]);
const bin = path.resolve(process.argv[3]);
const only = process.argv.slice(4);
const here = path.dirname(new URL(import.meta.url).pathname);

const root = fs.mkdtempSync('/var/tmp/cordon-clients-e2e-');
fs.chmodSync(root, 0o755);
const log = path.join(root, 'model.jsonl');
const scriptFile = path.join(root, 'script.json');
fs.writeFileSync(scriptFile, '{}');

const server = spawn(process.execPath, [path.join(here, 'model_server.mjs'), log], {
  env: { ...process.env, SCRIPT_FILE: scriptFile }, stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise((ok, fail) => {
  server.stdout.once('data', (d) => ok(String(d).trim()));
  server.once('exit', () => fail(new Error('model server exited')));
});
const base = `http://127.0.0.1:${port}`;

const SECRET = 'PRIVATE KEY MATERIAL';
const CHECK = 'cat ~/.ssh/id_rsa; echo escaped > ~/outside.txt; echo E2E-RAN';
const SHELL = { claude: ['^Bash$'], codex: ['^(exec_command|shell|shell_command|local_shell)$'],
  gemini: ['^run_shell_command$'] };
const CORDON_BASH = ['^mcp__cordon__bash$', '^cordon__bash$', '^mcp_cordon_bash$', '^bash$'];

let failures = 0;
function check(name, fn) {
  try { fn(); console.log(`ok   ${name}`); } catch (e) { failures++; console.log(`FAIL ${name}\n     ${e.message.split('\n').join('\n     ')}`); }
}

// A throw-away user: HOME with a secret, a project that is a git repository.
let n = 0;
function world(client) {
  const home = path.join(root, `${client}-${++n}`, 'home');
  const project = path.join(home, 'project');
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  fs.mkdirSync(project, { recursive: true });
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), SECRET + '\n');
  fs.writeFileSync(path.join(project, 'README'), 'hello from the project\n');
  const env = {
    HOME: home, PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`, LANG: 'C.UTF-8', USER: process.env.USER || 'root',
    SHELL: '/bin/bash', TERM: 'dumb', NO_COLOR: '1',
    HTTP_PROXY: base, HTTPS_PROXY: base, http_proxy: base, https_proxy: base,
    NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost',
    GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com',
    GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com',
  };
  for (const args of [['init', '-q', '-b', 'main'], ['add', 'README'], ['commit', '-q', '-m', 'init']])
    execFileSync('git', args, { cwd: project, env });
  return { client, home, project, env };
}

function setup(w, args = []) {
  return spawnSync(cordon, ['setup', w.client === 'claude' ? 'claude-code' : w.client, ...args],
    { cwd: w.project, env: w.env, encoding: 'utf8', timeout: 60000 });
}

// The client's own files that setup writes, byte for byte.
function files(w) {
  const out = {};
  const walk = (d) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) { if (!/node_modules|\.git$|cache|sessions|log|tmp/.test(e.name)) walk(p); }
      else if (/\.(json|toml)$/.test(e.name) && !/cordon-backup/.test(e.name)) out[p] = fs.readFileSync(p, 'utf8');
    }
  };
  for (const d of ['.claude', '.codex', '.gemini']) { walk(path.join(w.home, d)); walk(path.join(w.project, d)); }
  for (const f of [path.join(w.home, '.claude.json'), path.join(w.project, '.mcp.json')])
    if (fs.existsSync(f)) out[f] = fs.readFileSync(f, 'utf8');
  // Claude Code rewrites its own counters in ~/.claude.json on every start: only mcpServers counts.
  const cj = path.join(w.home, '.claude.json');
  if (out[cj]) out[cj] = JSON.stringify(JSON.parse(out[cj]).mcpServers || {});
  return out;
}

function drive(w, steps, extraEnv = {}) {
  fs.writeFileSync(scriptFile, JSON.stringify({ steps }));
  fs.writeFileSync(log, '');
  const env = { ...w.env, ...extraEnv };
  let argv;
  if (w.client === 'claude') {
    Object.assign(env, { ANTHROPIC_BASE_URL: base, ANTHROPIC_API_KEY: 'sk-e2e',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1', IS_SANDBOX: '1' });
    argv = ['claude', '-p', 'run the check', '--output-format', 'json', '--dangerously-skip-permissions'];
  } else if (w.client === 'codex') {
    Object.assign(env, { MOCK_API_KEY: 'sk-e2e' });
    argv = ['codex', 'exec', '--skip-git-repo-check', 'run the check'];
  } else {
    Object.assign(env, { GEMINI_API_KEY: 'sk-e2e', GOOGLE_GEMINI_BASE_URL: base, GEMINI_CLI_TRUST_WORKSPACE: 'true' });
    argv = ['gemini', '-p', 'run the check', '--yolo'];
  }
  const r = spawnSync(path.join(bin, argv[0]), argv.slice(1), { cwd: w.project, env, encoding: 'utf8', timeout: 120000, input: '' });
  const entries = fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return { r, entries, calls: entries.filter((e) => e.call).map((e) => e.call),
    results: entries.filter((e) => 'result' in e).map((e) => e.result),
    offered: entries.find((e) => e.tools)?.tools || [],
    escaped: entries.filter((e) => e.escaped).map((e) => e.escaped) };
}

// Client settings that a user has before cordon: the model provider (Codex, Gemini).
function clientBase(w) {
  if (w.client === 'codex') {
    fs.mkdirSync(path.join(w.home, '.codex'), { recursive: true });
    fs.writeFileSync(path.join(w.home, '.codex', 'config.toml'),
      `model = "mock-model"\nmodel_provider = "mock"\n\n[model_providers.mock]\nname = "mock"\n` +
      `base_url = "${base}/v1"\nwire_api = "responses"\nenv_key = "MOCK_API_KEY"\n` +
      `request_max_retries = 0\nstream_max_retries = 0\n` +
      // The user's choice, not cordon's: Codex's own calls home (update check, analytics,
      // plugin catalog) off, so that the trap sees only what the commands try.
      `check_for_update_on_startup = false\n\n[analytics]\nenabled = false\n\n` +
      `[features]\nplugins = false\nremote_plugin = false\nplugin_discovery_prefetch = false\n`);
  }
  if (w.client === 'gemini') {
    fs.mkdirSync(path.join(w.home, '.gemini'), { recursive: true });
    fs.writeFileSync(path.join(w.home, '.gemini', 'settings.json'),
      JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } },
        // The user's choice: Gemini CLI's usage statistics (play.googleapis.com) off.
        privacy: { usageStatisticsEnabled: false } }, null, 2) + '\n');
  }
}

const sandboxed = (w, d, label) => {
  check(`${label}: the command ran (its output reached the model)`, () =>
    assert.ok(d.results.some((r) => r.includes('E2E-RAN')), `results: ${JSON.stringify(d.results)}\n${d.r.stdout}\n${d.r.stderr}`.slice(0, 3000)));
  check(`${label}: the secret read empty`, () =>
    assert.ok(!JSON.stringify(d.entries).includes(SECRET), 'the secret reached the model'));
  check(`${label}: the write outside the project failed`, () =>
    assert.ok(!fs.existsSync(path.join(w.home, 'outside.txt')), '~/outside.txt was written'));
  check(`${label}: nothing left loopback`, () => assert.deepEqual(d.escaped, []));
};

// The MCP route: `cordon setup <client>` (user scope, or --project DIR), then the model tries
// the client's own shell first (when offered) and cordon's bash next.
function mcpRoute(client, project) {
  const w = world(client);
  clientBase(w);
  const label = `${client} mcp (${project ? 'project' : 'user'} scope)`;
  const s = setup(w, project ? ['--project', w.project] : []);
  check(`${label}: setup exits 0`, () => assert.equal(s.status, 0, s.stdout + s.stderr));
  const extra = {};
  if (project && client === 'claude') {
    // Claude Code starts a project's server only once approved (what setup tells the user).
    fs.writeFileSync(path.join(w.project, '.claude', 'settings.local.json'),
      JSON.stringify({ enabledMcpjsonServers: ['cordon'] }));
  }
  if (project && client === 'codex')
    fs.appendFileSync(path.join(w.home, '.codex', 'config.toml'),
      `\n[projects.${JSON.stringify(w.project)}]\ntrust_level = "trusted"\n`);
  const d = drive(w, [{ tools: SHELL[client], command: CHECK }, { tools: CORDON_BASH, command: CHECK }], extra);
  check(`${label}: cordon's bash was offered and called`, () =>
    assert.ok(d.calls.some((c) => CORDON_BASH.some((p) => new RegExp(p).test(c))), `offered: ${d.offered}\ncalls: ${d.calls}\n${(d.r.stdout + d.r.stderr).slice(-2000)}`));
  check(`${label}: the client's own shell is not offered, or refused`, () => {
    const shellCalled = d.calls.findIndex((c) => SHELL[client].some((p) => new RegExp(p).test(c)));
    if (shellCalled >= 0) assert.ok(!d.results[shellCalled]?.includes('E2E-RAN'), `the shell ran: ${d.results[shellCalled]}`);
  });
  sandboxed(w, d, label);
  const before = files(w);
  const again = setup(w, project ? ['--project', w.project] : []);
  check(`${label}: a second setup changes nothing and exits 0`, () => {
    assert.equal(again.status, 0, again.stdout + again.stderr);
    assert.deepEqual(files(w), before);
  });
}

// The hook route: the client's own shell, with `cordon hook <client>` in its settings.
function hookRoute(client) {
  const w = world(client);
  clientBase(w);
  const label = `${client} hook`;
  if (client === 'claude') {
    fs.mkdirSync(path.join(w.home, '.claude'), { recursive: true });
    fs.writeFileSync(path.join(w.home, '.claude', 'settings.json'), JSON.stringify({
      permissions: { deny: ['Bash(cat:*)'] },
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `${cordon} hook claude-code` }] }] } }));
  } else if (client === 'gemini') {
    const f = path.join(w.home, '.gemini', 'settings.json');
    const s = JSON.parse(fs.readFileSync(f, 'utf8'));
    s.hooks = { BeforeTool: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', command: `${cordon} hook gemini` }] }] };
    fs.writeFileSync(f, JSON.stringify(s, null, 2));
  }
  const check_ = client === 'claude' ? CHECK.replace('cat ', 'head ') : CHECK;
  const d = drive(w, [{ tools: SHELL[client], command: check_ }]);
  check(`${label}: the client's shell was called`, () => assert.equal(d.calls.length, 1, `${d.calls}\n${(d.r.stdout + d.r.stderr).slice(-2000)}`));
  sandboxed(w, d, label);
  if (client !== 'claude') return;
  for (const cmd of ['cat README', 'echo a && cat README', 'true; cat README | head -1', 'echo x | cat']) {
    const dd = drive(w, [{ tools: SHELL[client], command: cmd }]);
    check(`${label}: the user's deny rule Bash(cat:*) still refuses \`${cmd}\``, () => {
      assert.equal(dd.results.length, 1, JSON.stringify(dd.entries).slice(0, 1500));
      assert.match(dd.results[0], /denied/);
      assert.ok(!dd.results[0].includes('hello from the project'));
    });
  }
}

// Processes on this machine whose command line holds every one of `words`.
function processes(...words) {
  const out = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let cmd = '';
    try { cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '); } catch { continue; }
    if (words.every((x) => cmd.includes(x))) out.push(`${pid} ${cmd}`);
  }
  return out;
}

// Issue 30: the dev-server loop through cordon's MCP server (user scope), as Claude Code's
// background shell runs it: the model starts `python3 -m http.server` with
// run_in_background, reaches it with curl in a second command of the same session (the
// session's loopback), reads the job with bash_output and ends it with kill_bash.
function jobsRoute(client) {
  const w = world(client);
  clientBase(w);
  const label = `${client} mcp background job`;
  const s = setup(w);
  check(`${label}: setup exits 0`, () => assert.equal(s.status, 0, s.stdout + s.stderr));
  const port = String(20000 + Math.floor(Math.random() * 20000));
  const serve = `python3 -m http.server ${port} --bind 127.0.0.1`;
  // The server takes a moment to listen: the curl is tried for up to 5 s.
  const curl = `for i in $(seq 1 25); do curl -s 127.0.0.1:${port} && break; sleep 0.2; done; echo CURL-DONE`;
  const tool = (name) => [`^mcp__cordon__${name}$`];
  const steps = [
    { tools: tool('bash'), args: { command: serve, run_in_background: true } },
    { tools: tool('bash'), args: { command: curl } },
    { tools: tool('bash_output'), args: { job: '{{job}}' } },
    { tools: tool('kill_bash'), args: { job: '{{job}}' } },
  ];
  const d = drive(w, steps);
  const tail = `\nresults: ${JSON.stringify(d.results)}\n${(d.r.stdout + d.r.stderr).slice(-2000)}`.slice(0, 4000);
  check(`${label}: the four tools were called in order`, () =>
    assert.deepEqual(d.calls, ['bash', 'bash', 'bash_output', 'kill_bash'].map((n) => `mcp__cordon__${n}`),
      `offered: ${d.offered}${tail}`));
  // Claude Code passes cordon's structured result on (JSON); another client, its text.
  const res = d.results.map((r) => { try { return JSON.parse(r); } catch { return null; } });
  const job = res[0]?.job || ((d.results[0] || '').match(/in the background as job ([^;\s]+);/) || [])[1];
  check(`${label}: bash with run_in_background answered a job id`, () => {
    assert.ok(job, tail);
    if (res[0]) assert.equal(res[0].running, true, tail);
  });
  check(`${label}: the next command of the session reached the server (its listing)`, () => {
    const out = res[1] ? res[1].stdout : d.results[1] || '';
    assert.ok(out.includes('CURL-DONE'), tail);
    assert.match(out, /Directory listing for \//, tail);
    assert.ok(out.includes('README'), tail);
  });
  check(`${label}: bash_output read the running job`, () => {
    if (res[2]) assert.ok(res[2].job === job && res[2].running === true, tail);
    else assert.ok((d.results[2] || '').includes(`[job ${job} is still running`), tail);
  });
  check(`${label}: kill_bash ended the job`, () => {
    if (res[3]) assert.ok(res[3].job === job && res[3].killed === true && res[3].running === false, tail);
    else assert.ok((d.results[3] || '').includes(`[job ${job} ended by kill_bash]`), tail);
  });
  check(`${label}: no server process is left`, () => assert.deepEqual(processes('http.server', port), []));
  check(`${label}: nothing left loopback`, () => assert.deepEqual(d.escaped, []));
}

const clients = only.length ? only : ['claude', 'codex', 'gemini'];
// CLIENTS_E2E_ROUTES=jobs (or mcp, hook, a comma list): only those, for a quicker loop.
const routes = (process.env.CLIENTS_E2E_ROUTES || 'mcp,hook,jobs').split(',');
for (const c of clients) {
  const t = Date.now();
  if (routes.includes('mcp')) { mcpRoute(c, false); mcpRoute(c, true); }
  if (routes.includes('hook') && c !== 'codex') hookRoute(c);
  if (routes.includes('jobs') && c === 'claude') jobsRoute(c);
  console.log(`     (${c}: ${((Date.now() - t) / 1000).toFixed(1)} s)`);
}
server.kill();
if (!failures) fs.rmSync(root, { recursive: true, force: true });
else console.log(`kept ${root} for a look`);
console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);
