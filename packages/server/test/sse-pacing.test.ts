import http from 'node:http';
import { BaseAgent, createEvent, type InvocationContext } from '@troupe/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, serve, type ServerHandle } from '../src/index.js';
import { call, createSession, eventually, message, parseFrames } from './helpers.js';

// A /run_sse stream is paced by its client: a client that stops reading stops the run from going on
// (instead of the server buffering every event), and reading again lets it finish. Served by
// serve(), frames are written to Node's response directly; through app.request(), they go through
// a web stream. Both are pinned here.

const EVENTS = 400;
const BIG = 'x'.repeat(64 * 1024);

/** An app whose agent yields EVENTS events of 64 KB each and counts how many it got past. */
function floodApp() {
  const progress = { yielded: 0 };
  class Flood extends BaseAgent {
    protected async *runAsyncImpl(_ctx: InvocationContext) {
      for (let i = 0; i < EVENTS; i++) {
        yield createEvent({ content: { role: 'model', parts: [{ text: `${i} ${BIG}` }] } });
        progress.yielded++;
      }
    }
  }
  const app = createApp({ apps: { flood: new Flood({ name: 'flood' }) } });
  return { app, progress };
}

/** Waits until `read()` has not changed for 300 ms, and returns its value. */
async function settled(read: () => number): Promise<number> {
  let last = read();
  let since = Date.now();
  await eventually(() => {
    const now = read();
    if (now !== last) {
      last = now;
      since = Date.now();
    }
    expect(Date.now() - since).toBeGreaterThanOrEqual(300);
  }, 10_000);
  return last;
}

let handle: ServerHandle | undefined;
afterEach(async () => {
  await handle?.close({ gracePeriodMs: 100 });
  handle = undefined;
});

describe('/run_sse is paced by its client', () => {
  it('over a real connection: a client that stops reading holds the run; reading again finishes it', async () => {
    const { app, progress } = floodApp();
    handle = await serve(app, { port: 0 });
    const s = await createSession(app, 'flood', 'u');
    const body = JSON.stringify({ appName: 'flood', userId: 'u', sessionId: s.id, newMessage: message('go') });
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const request = http.request(
        `${handle!.url}/run_sse`,
        { method: 'POST', headers: { 'Content-Type': 'application/json' } },
        resolve,
      );
      request.on('error', reject);
      request.end(body);
    });
    response.pause();
    // The middleware's headers travel with the directly written stream.
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream');
    expect(response.headers['x-request-id']).toMatch(/\S/);

    // 400 × 64 KB is far more than the sockets' buffers hold: the run waits for the client.
    const held = await settled(() => progress.yielded);
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThan(EVENTS);

    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.resume();
    await new Promise((resolve) => response.once('end', resolve));
    const frames = parseFrames(Buffer.concat(chunks).toString('utf8'));
    expect(frames).toHaveLength(EVENTS);
    expect(frames.map((f) => Number((f.content!.parts[0] as { text: string }).text.split(' ')[0]))).toEqual(
      Array.from({ length: EVENTS }, (_, i) => i),
    );
    expect(progress.yielded).toBe(EVENTS);
  });

  it('in process: a reader that stops reading holds the run one event ahead; reading on finishes it', async () => {
    const { app, progress } = floodApp();
    const s = await createSession(app, 'flood', 'u');
    const res = await call(app, 'POST', '/run_sse', {
      appName: 'flood',
      userId: 'u',
      sessionId: s.id,
      newMessage: message('go'),
    });
    const reader = res.body!.getReader();
    await reader.read();
    expect(await settled(() => progress.yielded)).toBeLessThanOrEqual(2);

    let text = '';
    const decoder = new TextDecoder();
    for (let step = await reader.read(); !step.done; step = await reader.read()) text += decoder.decode(step.value);
    expect(parseFrames(text)).toHaveLength(EVENTS - 1);
    expect(progress.yielded).toBe(EVENTS);
  });
});
