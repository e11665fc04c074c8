// The PostgreSQL floor of the server benchmark (bench/server-load.mjs --pg): a plain node:http + pg
// server that answers the load client's requests with the same durable writes a session store
// must make, in the fewest round trips, and nothing else (no framework, no leases, no run records):
// - POST /apps/{app}/users/{user}/sessions: one INSERT;
// - POST /run and /run_sse: one SELECT of the session and its events (the history an agent needs),
//   then for each of the 4 events (the user's message, the model's get_weather call, the tool's
//   result, the answer) one statement that bumps the session's version under a version check,
//   applies the state change and inserts the event: committed before the next step, as a run
//   must (a crash loses no finished step). The fake model and tool are the Troupe agent's.
// Usage: node bench/server-load/pg-floor.mjs <port> <postgres url>   (GET /list-apps answers when ready)
import http from 'node:http';
import process from 'node:process';
import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { weather, weatherAnswer } from './weather-model.mjs';

const [port, connectionString] = process.argv.slice(2);
const APP = 'weather';
const pool = new pg.Pool({ connectionString, max: 10 });

await pool.query(`
  CREATE TABLE IF NOT EXISTS floor_sessions (
    app text NOT NULL, user_id text NOT NULL, id text NOT NULL,
    state jsonb NOT NULL DEFAULT '{}', version integer NOT NULL DEFAULT 0,
    PRIMARY KEY (app, user_id, id));
  CREATE TABLE IF NOT EXISTS floor_events (
    app text NOT NULL, user_id text NOT NULL, session_id text NOT NULL, seq integer NOT NULL,
    event jsonb NOT NULL, PRIMARY KEY (app, user_id, session_id, seq));`);

const READ = `SELECT s.version, s.state,
  (SELECT coalesce(json_agg(e.event ORDER BY e.seq), '[]') FROM floor_events e
    WHERE e.app = s.app AND e.user_id = s.user_id AND e.session_id = s.id) AS events
  FROM floor_sessions s WHERE s.app = $1 AND s.user_id = $2 AND s.id = $3`;
// One statement per event: the version check, the state change and the insert commit together.
const APPEND = `WITH bumped AS (
    UPDATE floor_sessions SET version = version + 1, state = state || $5::jsonb
    WHERE app = $1 AND user_id = $2 AND id = $3 AND version = $4 RETURNING version)
  INSERT INTO floor_events (app, user_id, session_id, seq, event)
  SELECT $1, $2, $3, version, $6::jsonb FROM bumped RETURNING seq`;

const server = http.createServer((req, res) => {
  handle(req, res).catch((error) => {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: String(error.message ?? error) }));
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(port), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});

async function handle(req, res) {
  if (req.method === 'GET' && req.url === '/list-apps') return json(res, [APP]);
  const body = req.method === 'POST' ? await readJson(req) : undefined;
  const created = /^\/apps\/([^/]+)\/users\/([^/]+)\/sessions$/.exec(req.url);
  if (created) {
    const [, app, userId] = created;
    const id = randomUUID();
    await pool.query('INSERT INTO floor_sessions (app, user_id, id) VALUES ($1, $2, $3)', [app, userId, id]);
    return json(res, { id, appName: app, userId, state: {}, events: [], lastUpdateTime: Date.now() / 1000 });
  }
  if (req.url === '/run' || req.url === '/run_sse') {
    const streaming = req.url === '/run_sse';
    if (streaming) res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const events = await run(body, streaming ? (event) => res.write(`data: ${JSON.stringify(event)}\n\n`) : undefined);
    return streaming ? res.end() : json(res, events);
  }
  res.writeHead(404).end();
}

/** One run: the session read once, then each event appended (and sent) before the next step. */
async function run({ appName, userId, sessionId, newMessage }, send) {
  const key = [appName, userId, sessionId];
  const { rows } = await pool.query(READ, key);
  if (rows.length === 0) throw new Error(`no session ${sessionId}`);
  let version = rows[0].version;
  const contents = rows[0].events.map((event) => event.content);
  const invocationId = `e-${randomUUID()}`;
  const produced = [];
  const append = async (author, content, stateDelta = {}) => {
    const event = {
      id: randomUUID(),
      invocationId,
      author,
      content,
      actions: { stateDelta, artifactDelta: {} },
      timestamp: Date.now() / 1000,
    };
    const written = await pool.query(APPEND, [...key, version, JSON.stringify(stateDelta), JSON.stringify(event)]);
    if (written.rowCount !== 1) throw new Error(`session ${sessionId} changed under this run`);
    version++;
    contents.push(content);
    produced.push(event);
    send?.(event);
  };
  await append('user', newMessage);
  const call = weatherAnswer(contents).content;
  await append('weather_agent', call);
  const { id, name, args } = call.parts[0].functionCall;
  await append('weather_agent', { role: 'user', parts: [{ functionResponse: { id, name, response: weather(args) } }] });
  await append('weather_agent', weatherAnswer(contents).content);
  return produced;
}

function json(res, value) {
  const text = JSON.stringify(value);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      try {
        resolve(chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}
