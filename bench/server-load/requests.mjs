// One request of the HTTP load test (bench/server-load.mjs): a new session, then one run of the
// `weather` app, over keep-alive connections; the response is checked for the tool call, the
// tool's result and the answer. Used by the load client and for the server's readiness check.
import { Buffer } from 'node:buffer';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { URL } from 'node:url';
import { CITY, TEXT } from './weather-model.mjs';

/** One HTTP request; resolves { status, body } or, with onData, streams chunks to it. */
function sendRequest(base, agent, method, path, body, onData) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        agent,
        headers: payload
          ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
          : undefined,
      },
      (res) => {
        const chunks = [];
        let failed;
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          if (!onData || res.statusCode !== 200) chunks.push(chunk);
          else if (!failed) {
            // A bad event fails the request once the stream has ended (the connection stays usable).
            try {
              onData(chunk);
            } catch (error) {
              failed = error;
            }
          }
        });
        res.on('end', () => (failed ? reject(failed) : resolve({ status: res.statusCode, body: chunks.join('') })));
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Throws unless the events hold the get_weather call, its result and the final answer. */
function checkEvents(events) {
  const parts = events.flatMap((e) => e.content?.parts ?? []);
  const call = parts.find((p) => p.functionCall?.name === 'get_weather');
  if (call?.functionCall.args?.city !== CITY) throw new Error('no get_weather call in the events');
  const result = parts.find((p) => p.functionResponse?.name === 'get_weather');
  if (!JSON.stringify(result?.functionResponse.response ?? {}).includes('"sunny"'))
    throw new Error('no get_weather result in the events');
  if (events.at(-1)?.content?.parts?.[0]?.text !== TEXT) throw new Error('the last event is not the answer');
}

const isAnswer = (event) => event.content?.parts?.[0]?.text === TEXT && !event.partial;

/**
 * A function doing one request on `url` (`route`: 'run' or 'run_sse') for a user: a new session,
 * then one run. It resolves the time the answer arrived (performance.now()) and rejects on any
 * failed check. `agent` is the http.Agent whose keep-alive connections it uses.
 */
export function requester({ url, app, route, agent }) {
  const base = new URL(url);
  const request = (...args) => sendRequest(base, agent, ...args);
  return async function oneRequest(userId) {
    const created = await request('POST', `/apps/${app}/users/${userId}/sessions`, {});
    if (created.status !== 200) throw new Error(`create session: HTTP ${created.status} ${created.body.slice(0, 200)}`);
    const sessionId = JSON.parse(created.body).id;
    const body = {
      appName: app,
      userId,
      sessionId,
      newMessage: { role: 'user', parts: [{ text: `What is the weather in ${CITY}?` }] },
      streaming: false,
    };
    if (route === 'run') {
      const res = await request('POST', '/run', body);
      if (res.status !== 200) throw new Error(`/run: HTTP ${res.status} ${res.body.slice(0, 200)}`);
      checkEvents(JSON.parse(res.body));
      return performance.now();
    }
    // /run_sse: parse `data:` lines as they come; the request is done at the answer event, and the
    // stream must then end (read to its end before the next request on this connection).
    const events = [];
    let buffer = '';
    let answeredAt;
    const res = await request('POST', '/run_sse', body, (chunk) => {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (!data) continue;
        const event = JSON.parse(data);
        if (event.error) throw new Error(`/run_sse error event: ${JSON.stringify(event.error).slice(0, 200)}`);
        events.push(event);
        if (isAnswer(event)) answeredAt = performance.now();
      }
    });
    if (res.status !== 200) throw new Error(`/run_sse: HTTP ${res.status} ${res.body.slice(0, 200)}`);
    if (buffer.trim()) throw new Error(`/run_sse: stream ended inside an event: ${buffer.slice(0, 100)}`);
    checkEvents(events);
    if (answeredAt === undefined) throw new Error('/run_sse: no answer event');
    return answeredAt;
  };
}
