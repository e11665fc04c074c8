import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, type ServerHandle } from '../../src/index.js';
import { createSession, runBody, scriptedApp } from '../helpers.js';

// Clickjacking: `troupe web` sent neither `frame-ancestors` nor `X-Frame-Options`, so any web page
// could load the dev UI in an invisible frame and overlay its Approve buttons. Every answer of the
// server (the UI's files and the API's JSON, errors and streams alike) now forbids framing.

const staticDir = fileURLToPath(new URL('../fixtures/static', import.meta.url));
const handles: ServerHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close({ gracePeriodMs: 100 })));
});

function expectNoFraming(res: Response, what: string): void {
  expect(res.headers.get('content-security-policy'), what).toBe("frame-ancestors 'none'");
  expect(res.headers.get('x-frame-options'), what).toBe('DENY');
}

describe('the dev UI and the API cannot be framed', () => {
  it('sends frame-ancestors and X-Frame-Options on the UI, the API, its errors and its streams', async () => {
    const { app } = scriptedApp(['Hello!'], { staticDir });
    const handle = await serve(app, { port: 0 });
    handles.push(handle);
    const at = (path: string, init?: RequestInit) => fetch(`${handle.url}${path}`, init);

    for (const path of ['/', '/index.html', '/app.js', '/list-apps', '/health', '/no-such-route', '/apps/nope/graph']) {
      const res = await at(path);
      expectNoFraming(res, path);
      await res.arrayBuffer();
    }
    const session = await createSession(app, 'chat', 'u');
    const stream = await at('/run_sse', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...runBody(session, 'hi'), streaming: true }),
    });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    expectNoFraming(stream, '/run_sse');
    expect(await stream.text()).toContain('Hello!');
  });

  it('sends them from an app served in process (app.request) too', async () => {
    const { app } = scriptedApp([], { staticDir });
    expectNoFraming(await app.request('/'), '/');
    expectNoFraming(await app.request('/list-apps'), '/list-apps');
  });
});
