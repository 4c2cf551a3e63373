// cordon mcp driven by the official MCP TypeScript SDK client (SRV-2): the client starts
// `cordon mcp`, negotiates, lists the tools, and calls `bash` and the file tools. The checks
// prove the commands are sandboxed: a write outside the project fails, ~/.ssh reads empty, and
// a way out asks the user (by elicitation, or is refused naming --allow-network without it).
//
//   node e2e.mjs /path/to/cordon
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

const cordon = path.resolve(process.argv[2] || '../../build/cordon');
assert.ok(fs.existsSync(cordon), `no cordon binary at ${cordon}`);

// A throw-away world: HOME with a secret, and a project that is a git repository. Not under
// /tmp: the sandbox replaces /tmp, which would hide the secret for the wrong reason.
const root = fs.mkdtempSync('/var/tmp/cordon-mcp-e2e-');
fs.chmodSync(root, 0o755);
const home = path.join(root, 'home');
const project = path.join(home, 'project');
fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
fs.mkdirSync(project, { recursive: true });
fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'PRIVATE KEY MATERIAL\n');
fs.writeFileSync(path.join(project, 'README.md'), 'hello from the project\n');
const env = {
  HOME: home,
  PATH: '/usr/local/bin:/usr/bin:/bin',
  LANG: 'C.UTF-8',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com',
};
for (const args of [['init', '-q', '-b', 'main'], ['add', 'README.md'], ['commit', '-q', '-m', 'init']])
  execFileSync('git', args, { cwd: project, env });

let failures = 0;
async function check(name, fn) {
  try {
    await fn();
    console.log(`ok   ${name}`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}\n${e && e.stack ? e.stack : e}`);
  }
}

async function connect({ elicitation, args = [], extraEnv = {}, answer = null }) {
  const transport = new StdioClientTransport({
    command: cordon,
    args: ['mcp', '--project', project, ...args],
    env: { ...env, ...extraEnv },
    cwd: project,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d; });
  // Every message the server sends, as the client received it (the client sets onmessage
  // before it starts the transport).
  const seen = [];
  const start = transport.start.bind(transport);
  transport.start = async () => {
    const inner = transport.onmessage;
    transport.onmessage = (m, extra) => { seen.push(m); inner?.(m, extra); };
    return start();
  };
  const client = new Client({ name: 'cordon-e2e', version: '1.0.0' },
                            { capabilities: elicitation ? { elicitation: {} } : {} });
  const asked = [];
  if (elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params);
      return answer || { action: 'accept', content: { decision: elicitation } };
    });
  }
  await client.connect(transport);
  return { client, transport, asked, seen, stderr: () => stderr };
}

const text = (r) => r.content.map((c) => c.text).join('');

const a = await connect({ elicitation: 'allow once' });

await check('protocol version negotiated to the current one', async () => {
  assert.equal(a.client.getServerVersion().name, 'cordon');
  const init = a.seen.find((m) => m.result && m.result.protocolVersion);
  assert.ok(init, 'no initialize result seen');
  assert.equal(init.result.protocolVersion, LATEST_PROTOCOL_VERSION);
  assert.ok(a.client.getServerCapabilities().tools);
  assert.match(a.client.getInstructions() || '', /sandbox/);
});

await check('tools/list: the eight tools with their input schemas', async () => {
  const { tools } = await a.client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, ['bash', 'bash_output', 'bash_write', 'edit_file', 'kill_bash',
                           'read_file', 'search', 'write_file']);
  const bash = tools.find((t) => t.name === 'bash');
  assert.equal(bash.inputSchema.type, 'object');
  assert.deepEqual(bash.inputSchema.required, ['command']);
  for (const p of ['command', 'network', 'outside_sandbox', 'timeout_ms'])
    assert.ok(bash.inputSchema.properties[p], `bash has no ${p}`);
  assert.ok(bash.outputSchema, 'bash declares its output');
  for (const t of tools) assert.ok(t.description.length > 20, `${t.name} has a description`);
});

await check('bash runs in the sandbox: ~/.ssh reads empty, a write outside fails', async () => {
  const r = await a.client.callTool({
    name: 'bash',
    arguments: {
      command: 'echo hello; cat ~/.ssh/id_rsa | wc -c; ' +
               'echo x > "$HOME/outside.txt" && echo wrote || echo refused; exit 3',
    },
  });
  assert.equal(r.isError, false, text(r));
  assert.equal(r.structuredContent.exit_code, 3);
  assert.equal(r.structuredContent.stdout, 'hello\n0\nrefused\n');
  assert.match(r.structuredContent.stderr, /Read-only file system/);
  assert.match(text(r), /\[exit code 3\]/);
  assert.ok(!fs.existsSync(path.join(home, 'outside.txt')), 'the write outside landed');
});

await check('bash writes inside the project', async () => {
  const r = await a.client.callTool({ name: 'bash', arguments: { command: 'echo made > made.txt' } });
  assert.equal(r.structuredContent.exit_code, 0, text(r));
  assert.equal(fs.readFileSync(path.join(project, 'made.txt'), 'utf8'), 'made\n');
});

await check('read_file reads the project, refuses the hidden ~/.ssh', async () => {
  let r = await a.client.callTool({ name: 'read_file', arguments: { path: 'README.md' } });
  assert.equal(r.isError, false, text(r));
  assert.equal(text(r), 'hello from the project\n');
  r = await a.client.callTool({ name: 'read_file', arguments: { path: '~/.ssh/id_rsa' } });
  assert.equal(r.isError, true);
  assert.ok(!text(r).includes('PRIVATE'), text(r));
});

await check('write_file, edit_file and search', async () => {
  let r = await a.client.callTool({ name: 'write_file', arguments: { path: 'w.txt', content: 'one two\n' } });
  assert.equal(r.isError, false, text(r));
  r = await a.client.callTool({ name: 'edit_file',
                                arguments: { path: 'w.txt', old_text: 'two', new_text: 'three' } });
  assert.equal(r.isError, false, text(r));
  assert.equal(fs.readFileSync(path.join(project, 'w.txt'), 'utf8'), 'one three\n');
  r = await a.client.callTool({ name: 'search', arguments: { pattern: 'thr+ee' } });
  assert.match(text(r), /w\.txt:1:one three/);
});

await check('network: true asks the user by elicitation', async () => {
  const r = await a.client.callTool({ name: 'bash', arguments: { command: 'true', network: true,
                                                                reason: 'e2e' } });
  assert.equal(r.isError, false, text(r));
  assert.equal(a.asked.length, 1);
  assert.match(a.asked[0].message, /network access for `true`/);
  assert.match(a.asked[0].message, /e2e/);
});

await check('bad arguments are a tool error the model can read', async () => {
  const r = await a.client.callTool({ name: 'bash', arguments: { command: 'x', timeout_ms: -5 } });
  assert.equal(r.isError, true);
  assert.match(text(r), /invalid/);
});

await a.client.close();

const b = await connect({ elicitation: null });
await check('without elicitation a way out is refused, naming the option', async () => {
  let r = await b.client.callTool({ name: 'bash', arguments: { command: 'true', network: true } });
  assert.equal(r.isError, true);
  assert.match(text(r), /cordon mcp --allow-network/);
  r = await b.client.callTool({ name: 'bash', arguments: { command: 'touch "$HOME/o"',
                                                          outside_sandbox: true } });
  assert.equal(r.isError, true);
  assert.ok(!text(r).includes('--allow-'), text(r));
  assert.ok(!fs.existsSync(path.join(home, 'o')));
});
await b.client.close();

const c = await connect({ elicitation: null, args: ['--allow-network'] });
await check('--allow-network approves network in advance', async () => {
  const r = await c.client.callTool({ name: 'bash', arguments: { command: 'true', network: true } });
  assert.equal(r.isError, false, text(r));
});
await c.client.close();

// DIST-4: progress notifications reach the SDK client during a 5-second command (the first at
// once, then one a second here: CORDON_MCP_PROGRESS_MS shortens the 10 s default for the test).
const d = await connect({ elicitation: null, extraEnv: { CORDON_MCP_PROGRESS_MS: '1000' } });
await check('progress notifications during a 5-second command', async () => {
  const got = [];
  const started = Date.now();
  const r = await d.client.callTool({ name: 'bash', arguments: { command: 'sleep 5; echo done' } },
                                    undefined,
                                    { onprogress: (p) => got.push({ ...p, at: Date.now() - started }),
                                      timeout: 60000 });
  assert.equal(r.structuredContent.stdout, 'done\n', text(r));
  assert.ok(got.length >= 4, `only ${got.length} progress notifications: ${JSON.stringify(got)}`);
  assert.ok(got[0].at < 1000, `the first came after ${got[0].at} ms`);
  for (let i = 1; i < got.length; i++) assert.ok(got[i].progress > got[i - 1].progress);
  const after = d.seen.findIndex((m) => m.result && m.result.structuredContent);
  const late = d.seen.slice(after + 1).filter((m) => m.method === 'notifications/progress');
  assert.equal(late.length, 0, 'progress after the result');
});
await d.client.close();

// DIST-4: a call without timeout_ms ends at the server's own time-out (some clients never
// cancel), and the result says so; a call's own timeout_ms still wins.
const t = await connect({ elicitation: null, args: ['--timeout', '1s'] });
await check('cordon mcp --timeout ends a bash call that gave none', async () => {
  let r = await t.client.callTool({ name: 'bash', arguments: { command: 'sleep 5; echo late' } });
  assert.equal(r.structuredContent.timed_out, true, text(r));
  assert.equal(r.structuredContent.exit_code, 124);
  assert.match(text(r), /default time-out of 1 s/);
  r = await t.client.callTool({ name: 'bash', arguments: { command: 'sleep 2; echo ok',
                                                          timeout_ms: 20000 } });
  assert.equal(r.structuredContent.stdout, 'ok\n', text(r));
});
// Issue 30: a background job answers at once, gets no default time-out, and its output is
// read in turns; the SDK checks each result against the tool's output schema.
await check('bash run_in_background, bash_output and kill_bash', async () => {
  let r = await t.client.callTool({ name: 'bash', arguments: {
    command: 'echo one; sleep 2; echo two', run_in_background: true } });
  assert.equal(r.isError, false, text(r));
  const job = r.structuredContent.job;
  assert.match(text(r), /bash_output/);
  let seen = '';
  for (let i = 0; i < 600; i++) {
    r = await t.client.callTool({ name: 'bash_output', arguments: { job } });
    assert.equal(r.isError, false, text(r));
    seen += r.structuredContent.stdout;
    if (!r.structuredContent.running) break;
    await new Promise((done) => setTimeout(done, 100));
  }
  assert.equal(r.structuredContent.running, false, text(r));
  assert.equal(r.structuredContent.exit_code, 0, text(r));
  assert.equal(seen, 'one\ntwo\n');
  r = await t.client.callTool({ name: 'kill_bash', arguments: { job } });
  assert.equal(r.structuredContent.killed, false, text(r));
  r = await t.client.callTool({ name: 'bash_output', arguments: { job: 'nope' } });
  assert.equal(r.isError, true);
  assert.match(text(r), /"nope"/);
});
// JOB-3: a background job with a terminal, typed into through bash_write; the SDK checks
// bash_write's result against its output schema.
await check('bash tty in the background and bash_write', async () => {
  let r = await t.client.callTool({ name: 'bash', arguments: {
    command: 'read -r x; echo "got $x"; stty size', tty: true, cols: 70, rows: 21,
    run_in_background: true } });
  assert.equal(r.isError, false, text(r));
  const job = r.structuredContent.job;
  r = await t.client.callTool({ name: 'bash_write', arguments: { job, data: 'hi\n', eof: true } });
  assert.equal(r.isError, false, text(r));
  assert.equal(r.structuredContent.written, 3, text(r));
  let seen = r.structuredContent.stdout;
  for (let i = 0; i < 600 && r.structuredContent.running; i++) {
    await new Promise((done) => setTimeout(done, 100));
    r = await t.client.callTool({ name: 'bash_output', arguments: { job } });
    assert.equal(r.isError, false, text(r));
    seen += r.structuredContent.stdout;
  }
  assert.equal(r.structuredContent.exit_code, 0, text(r));
  assert.match(seen, /got hi\r\n21 70\r\n/);
});
await t.client.close();

// DIST-4: Codex's yes/no dialog answers `accept` with no content; that is "allow once".
const e = await connect({ elicitation: 'unused', answer: { action: 'accept' } });
await check('elicitation accepted without content allows the command once', async () => {
  let r = await e.client.callTool({ name: 'bash', arguments: { command: 'echo net', network: true } });
  assert.equal(r.isError, false, text(r));
  assert.equal(r.structuredContent.stdout, 'net\n');
  assert.equal(e.asked.length, 1);
  r = await e.client.callTool({ name: 'bash', arguments: { command: 'echo again', network: true } });
  assert.equal(e.asked.length, 2, 'a yes without content was taken as more than once');
});
await e.client.close();
const f = await connect({ elicitation: 'unused', answer: { action: 'decline' } });
await check('elicitation declined refuses the command', async () => {
  const r = await f.client.callTool({ name: 'bash', arguments: { command: 'echo net', network: true } });
  assert.equal(r.isError, true, text(r));
});
await f.client.close();

execFileSync('rm', ['-rf', root]);
if (failures) {
  console.log(`mcp e2e: ${failures} failed`);
  process.exit(1);
}
console.log('mcp e2e: all passed');
