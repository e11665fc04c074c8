import { expect, it } from 'vitest';
import { describeRedis, useRedis } from '../../../queue/test/redis-server.js';
import type { BackgroundRunInfo, HealthBody } from '../../src/index.js';
import { call, createSession, eventually, message, runBody } from '../helpers.js';
import { queuedApp, scriptedAgent } from '../queue/queued-app.js';

// Issue #28, item 17: with the queue's Redis stopped, POST .../runs, /run, /run_sse and a run's
// stream route were still waiting after 60 s (answered only once Redis came back), and /health said
// 200. Every Redis call on a request path is now bounded: those routes answer 503 QUEUE_UNAVAILABLE
// at once, /health reports Redis (503), and all of it works again once Redis is back.

/** Well under the test's timeout, and far above what an answer that does not wait for Redis takes on a busy machine. */
const PROMPTLY_MS = 5_000;

async function timed(request: () => Promise<Response>): Promise<{ res: Response; ms: number }> {
  const started = Date.now();
  const res = await request();
  return { res, ms: Date.now() - started };
}

describeRedis('Redis down: requests that need it answer 503 at once', () => {
  const redis = useRedis();

  it('each route answers 503 QUEUE_UNAVAILABLE within the bound, /health says so, and all works again once Redis is back', async () => {
    const api = await queuedApp(redis().url, { chat: scriptedAgent(['before', 'after']) });
    let redisDown = false;
    try {
      const s = await createSession(api.app, 'chat', 'alice');
      const runs = `/apps/chat/users/alice/sessions/${s.id}/runs`;
      const before = await call(api.app, 'POST', '/run', runBody(s, 'hi'));
      expect(before.status).toBe(200);
      const [done] = (await (await call(api.app, 'GET', runs)).json()) as BackgroundRunInfo[];
      await redis().stop();
      redisDown = true;

      const requests: [string, () => Promise<Response>][] = [
        ['POST .../runs', () => call(api.app, 'POST', runs, { newMessage: message('queued') })],
        ['POST /run', () => call(api.app, 'POST', '/run', runBody(s, 'run'))],
        ['POST /run_sse', () => call(api.app, 'POST', '/run_sse', runBody(s, 'sse'))],
        ['GET .../stream', () => call(api.app, 'GET', `${runs}/${done!.runId}/stream`)],
      ];
      for (const [what, request] of requests) {
        const { res, ms } = await timed(request);
        const body = (await res.json()) as { error: { code: string; message: string } };
        expect({ what, status: res.status, code: body.error.code }).toEqual({
          what,
          status: 503,
          code: 'QUEUE_UNAVAILABLE',
        });
        expect(ms).toBeLessThan(PROMPTLY_MS);
      }
      const { res: down, ms } = await timed(() => call(api.app, 'GET', '/health'));
      expect(ms).toBeLessThan(PROMPTLY_MS);
      const downBody = (await down.json()) as HealthBody;
      expect([down.status, downBody]).toEqual([
        503,
        {
          status: 'unavailable',
          store: 'ok',
          queue: { redis: { error: expect.stringMatching(/^Redis did not answer/) } },
          requestId: expect.any(String),
        },
      ]);
      // Nothing was queued or stored for the refused runs: the session holds only the first one.
      expect(((await (await call(api.app, 'GET', runs)).json()) as BackgroundRunInfo[]).length).toBe(1);

      await redis().restart();
      redisDown = false;
      await eventually(async () => {
        const healthy = await call(api.app, 'GET', '/health');
        expect([healthy.status, await healthy.json()]).toEqual([
          200,
          { status: 'ok', store: 'ok', queue: { redis: 'ok', workers: 1 } },
        ]);
      }, 15_000);
      const after = await call(api.app, 'POST', '/run', runBody(s, 'again'));
      expect(after.status).toBe(200);
      expect(((await after.json()) as { content?: { parts: unknown[] } }[]).at(-1)!.content!.parts).toEqual([
        { text: 'after' },
      ]);
    } finally {
      // The in-process worker's close waits for Redis (BullMQ's does): a failure above must not hang here.
      if (redisDown) await redis().restart();
      await api.close();
    }
  }, 60_000);
});
