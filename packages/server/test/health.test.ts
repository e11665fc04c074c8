import { describe, expect, it } from 'vitest';
import { ConfigurationError, FunctionAgent, InMemorySessionService } from '@troupe/core';
import { createApp, type ErrorReport, type HealthBody, serve } from '../src/index.js';
import { OutageStore, requiredMethodsOnly } from './stores.js';

const echo = new FunctionAgent({ name: 'echo', run: () => 'echo' });

async function health(app: ReturnType<typeof createApp>): Promise<[number, HealthBody]> {
  const res = await app.request('/health');
  return [res.status, (await res.json()) as HealthBody];
}

describe('GET /health reports the session store', () => {
  it("200 { status: 'ok', store: 'ok' } when the store answers its health check", async () => {
    const app = createApp({ apps: { echo }, sessionService: new OutageStore() });
    expect(await health(app)).toEqual([200, { status: 'ok', store: 'ok' }]);
  });

  it("503 { status: 'unavailable', store: { error }, requestId } when the check rejects; the store's own message goes to onError only", async () => {
    const store = new OutageStore();
    const reported: [unknown, ErrorReport][] = [];
    const app = createApp({
      apps: { echo },
      sessionService: store,
      onError: (error, _request, report) => reported.push([error, report]),
    });
    store.down = true;
    const res = await app.request('/health');
    const requestId = res.headers.get('X-Request-Id')!;
    expect([res.status, await res.json()]).toEqual([
      503,
      {
        status: 'unavailable',
        store: { error: "The session store failed its health check; the server's log (onError) has its message." },
        requestId,
      },
    ]);
    expect(reported).toEqual([
      [expect.objectContaining({ message: OutageStore.PROBLEM }), { requestId, level: 'error' }],
    ]);
    store.down = false;
    expect((await health(app))[0]).toBe(200);
  });

  it('503 once the timeout has passed when the check hangs; the hung check keeps nothing waiting', async () => {
    const store = new OutageStore();
    store.health = 'hangs';
    const app = createApp({ apps: { echo }, sessionService: store, healthCheckTimeoutMs: 150 });
    const asked = Date.now();
    expect(await health(app)).toEqual([
      503,
      {
        status: 'unavailable',
        store: { error: 'The session store did not answer its health check within 150 ms.' },
        requestId: expect.any(String),
      },
    ]);
    expect(Date.now() - asked).toBeGreaterThanOrEqual(140);
    expect(Date.now() - asked).toBeLessThan(2000);
  });

  it('503, not a 500, when the check throws instead of rejecting', async () => {
    const store = new OutageStore();
    store.health = 'throws';
    const app = createApp({ apps: { echo }, sessionService: store });
    expect(await health(app)).toEqual([
      503,
      {
        status: 'unavailable',
        store: { error: "The session store failed its health check; the server's log (onError) has its message." },
        requestId: expect.any(String),
      },
    ]);
  });

  it("says 'unchecked' for a store without checkHealth, and needs no token even with auth", async () => {
    // A store written before checkHealth existed: only the required methods.
    const bare = requiredMethodsOnly(new InMemorySessionService());
    const app = createApp({ apps: { echo }, sessionService: bare, auth: { tokens: { secret: '*' } } });
    expect(await health(app)).toEqual([200, { status: 'ok', store: 'unchecked' }]);
  });

  it('over a real connection, with the default timeout of 3 s', async () => {
    const store = new OutageStore();
    store.health = 'hangs';
    const handle = await serve(createApp({ apps: { echo }, sessionService: store }), { port: 0 });
    try {
      const asked = Date.now();
      const res = await fetch(`${handle.url}/health`);
      expect(res.status).toBe(503);
      expect(Date.now() - asked).toBeGreaterThanOrEqual(2900);
    } finally {
      await handle.close({ gracePeriodMs: 100 });
    }
  });

  it('rejects a healthCheckTimeoutMs that is not a positive whole number', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => createApp({ apps: { echo }, healthCheckTimeoutMs: bad })).toThrow(ConfigurationError);
    }
    expect(() => createApp({ apps: { echo }, healthCheckTimeoutMs: 0 })).toThrow(
      /healthCheckTimeoutMs is 0; it must be a positive whole number of milliseconds/,
    );
  });
});
