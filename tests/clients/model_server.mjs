// DIST-4 (issue 28): a scripted stand-in for the model APIs the coding agents call, on loopback:
// Anthropic Messages (Claude Code), OpenAI Responses (Codex) and Gemini generateContent (Gemini
// CLI). Each conversation gets one scripted tool call, then a final message. The tool is chosen
// from the tools the client offers: the first name matching a pattern of SCRIPT.tools.
//   SCRIPT='{"tools":["^mcp__cordon__bash$"],"command":"cat ~/secret"}' node model_server.mjs LOG
// It prints the port on stdout, and appends one JSON line per request to LOG:
//   {api, tools: [names offered], call: name or null, result: the tool result text sent back}.
import http from 'node:http';
import fs from 'node:fs';

const log = process.argv[2];
// SCRIPT, or the file SCRIPT_FILE read on every request (a test changes it between runs).
let script = JSON.parse(process.env.SCRIPT || '{}');
const reload = () => {
  if (process.env.SCRIPT_FILE) script = JSON.parse(fs.readFileSync(process.env.SCRIPT_FILE, 'utf8'));
};
const record = (o) => fs.appendFileSync(log, JSON.stringify(o) + '\n');

// A step's own `args`, with `{{job}}` in a string replaced by the background job that an
// earlier tool result of the conversation announced: cordon's text ("... in the background as
// job 1;") or its structured result ({"job":"1",...}), which Claude Code passes on instead.
function fill(v, seen) {
  if (typeof v === 'string') {
    const m = seen.match(/in the background as job ([^;\s]+);|"job\\?":\s*\\?"([^"\\]+)\\?"/) || [];
    const job = m[1] || m[2] || '';
    return v.replaceAll('{{job}}', job);
  }
  if (Array.isArray(v)) return v.map((x) => fill(x, seen));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x, seen)]));
  return v;
}

// Arguments for the chosen tool: the step's `args` when it gives them (`seen`: the tool results
// so far), else from its declared schema: `command` as a string (Claude Code's Bash, Gemini's
// run_shell_command, cordon's bash) or a list (Codex's shell), or `cmd`.
function argsFor(t, seen = '') {
  if (t.args) return fill(t.args, seen);
  const props = (t.schema && t.schema.properties) || {};
  const cmd = t.command;
  if (props.command && props.command.type === 'array') return { command: ['bash', '-lc', cmd] };
  if (props.command) return props.description ? { command: cmd, description: 'scripted' } : { command: cmd };
  if (props.cmd) return { cmd };
  return { command: cmd };
}

// SCRIPT.steps: [{tools: [patterns], command}] (or {tools, args}: the arguments whole), or one
// step as {tools, command}. The steps whose tool the client offers are called in order, one
// per turn; `done` tool results so far.
function choose(tools, done) {
  const steps = script.steps || [{ tools: script.tools || [], command: script.command }];
  const offered = [];
  for (const st of steps) {
    for (const p of st.tools) {
      const re = new RegExp(p);
      const t = tools.find((t) => re.test(t.name));
      if (t) { offered.push({ ...t, command: st.command, args: st.args }); break; }
    }
  }
  return offered[done] || null;
}

const text = (v) => (typeof v === 'string' ? v : JSON.stringify(v));

// ---- Anthropic Messages ----
function anthropic(body, res) {
  const tools = (body.tools || []).map((t) => ({ name: t.name, schema: t.input_schema }));
  const msgs = body.messages || [];
  const last = msgs.at(-1) || {};
  const isResults = (m) => Array.isArray(m.content) ? m.content.filter((c) => c.type === 'tool_result') : [];
  const results = isResults(last);
  const done = msgs.reduce((n, m) => n + isResults(m).length, 0);
  const seen = msgs.flatMap(isResults).map((r) => text(r.content)).join('\n');
  let block;
  const entry = { api: 'anthropic', tools: tools.map((t) => t.name), call: null };
  if (results.length) {
    entry.result = results.map((r) => text(r.content)).join('\n');
    entry.is_error = !!results[0].is_error;
  }
  {
    const t = tools.length ? choose(tools, done) : null;
    if (t) {
      entry.call = t.name;
      block = { type: 'tool_use', id: 'toolu_' + Date.now(), name: t.name, input: argsFor(t, seen) };
    } else {
      block = { type: 'text', text: tools.length ? 'scripted: done' : 'ok' };
    }
  }
  if (tools.length) record(entry);
  const stop = block.type === 'tool_use' ? 'tool_use' : 'end_turn';
  const msg = {
    id: 'msg_' + Date.now(), type: 'message', role: 'assistant', model: body.model,
    content: [], stop_reason: null, stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ ...msg, content: [block], stop_reason: stop }));
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  ev('message_start', { message: msg });
  if (block.type === 'tool_use') {
    ev('content_block_start', { index: 0, content_block: { ...block, input: {} } });
    ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
  } else {
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: block.text } });
  }
  ev('content_block_stop', { index: 0 });
  ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } });
  ev('message_stop', {});
  res.end();
}

// ---- OpenAI Responses ----
function openai(body, res) {
  // Codex 0.169 groups an MCP server's tools in a namespace (`mcp__cordon` holding `bash`).
  const tools = (body.tools || []).flatMap((t) => t.type === 'namespace'
    ? (t.tools || []).map((n) => ({ name: `${t.name}__${n.name}`, ns: t.name, short: n.name, schema: n.parameters }))
    : t.name ? [{ name: t.name, schema: t.parameters }] : []);
  const input = Array.isArray(body.input) ? body.input : [];
  const last = input.at(-1) || {};
  const entry = { api: 'openai', tools: tools.map((t) => t.name), call: null };
  let item;
  const done = input.filter((i) => /_call_output$/.test(i.type || '')).length;
  const seen = input.filter((i) => /_call_output$/.test(i.type || '')).map((i) => text(i.output)).join('\n');
  if (/_output$/.test(last.type || '')) entry.result = text(last.output);
  {
    const t = choose(tools, done);
    if (t) {
      entry.call = t.name;
      item = { type: 'function_call', id: 'fc_1', call_id: 'call_' + Date.now(), name: t.ns ? t.short : t.name, arguments: JSON.stringify(argsFor(t, seen)) };
      if (t.ns) item.namespace = t.ns;
    } else {
      item = { type: 'message', role: 'assistant', id: 'msg_1', content: [{ type: 'output_text', text: 'scripted: done' }] };
    }
  }
  record(entry);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  ev('response.created', { response: { id: 'resp_1' } });
  ev('response.output_item.done', { item });
  ev('response.completed', { response: { id: 'resp_1', usage: { input_tokens: 1, input_tokens_details: null, output_tokens: 1, output_tokens_details: null, total_tokens: 2 } } });
  res.end();
}

// ---- Gemini generateContent ----
function gemini(url, body, res) {
  if (url.includes(':countTokens')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ totalTokens: 1 }));
  }
  const tools = (body.tools || []).flatMap((t) => t.functionDeclarations || [])
    .map((f) => ({ name: f.name, schema: f.parametersJsonSchema || f.parameters }));
  const contents = body.contents || [];
  const last = contents.at(-1) || {};
  const responses = (last.parts || []).filter((p) => p.functionResponse);
  const entry = { api: 'gemini', tools: tools.map((t) => t.name), call: null };
  let part;
  const done = contents.reduce((n, c) => n + (c.parts || []).filter((p) => p.functionResponse).length, 0);
  const seen = contents.flatMap((c) => (c.parts || []).filter((p) => p.functionResponse))
    .map((p) => text(p.functionResponse.response)).join('\n');
  if (responses.length) entry.result = text(responses[0].functionResponse.response);
  if (tools.length) {
    const t = choose(tools, done);
    if (t) {
      entry.call = t.name;
      part = { functionCall: { name: t.name, args: argsFor(t, seen) } };
    } else {
      part = { text: 'scripted: done' };
    }
  } else {
    // A side request (next speaker, routing, a JSON answer): a neutral answer.
    part = { text: body.generationConfig && body.generationConfig.responseMimeType === 'application/json'
      ? JSON.stringify({ next_speaker: 'user', reasoning: 'scripted', model_choice: 'flash' }) : 'ok' };
  }
  if (tools.length) record(entry);
  const chunk = { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 } };
  if (url.includes('alt=sse')) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  } else {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(chunk));
  }
}

const server = http.createServer((req, res) => {
  let raw = '';
  req.on('data', (d) => (raw += d));
  req.on('end', () => {
    let body = {};
    try { body = raw ? JSON.parse(raw) : {}; } catch { /* not JSON */ }
    const url = req.url;
    reload();
    if (/^https?:/.test(url)) { record({ escaped: url }); res.writeHead(502); return res.end(); }
    if (process.env.MODEL_SERVER_TRACE) fs.appendFileSync(log + '.trace', `${req.method} ${url}\n${raw.slice(0, 400000)}\n\n`);
    try {
      if (req.method === 'POST' && /\/messages(\?|$)/.test(url)) return anthropic(body, res);
      if (req.method === 'POST' && /\/responses(\?|$)/.test(url)) return openai(body, res);
      if (req.method === 'POST' && /:(stream)?[gG]enerateContent|:countTokens/.test(url)) return gemini(url, body, res);
      if (/\/models/.test(url)) { res.writeHead(200, { 'content-type': 'application/json' }); return res.end('{"data":[],"models":[]}'); }
    } catch (e) {
      record({ error: String(e && e.stack) });
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{}');
  });
});
// Set as HTTP(S)_PROXY for the clients: any request for another host is recorded as escaped.
server.on('connect', (req, sock) => { record({ escaped: req.url }); sock.destroy(); });
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
