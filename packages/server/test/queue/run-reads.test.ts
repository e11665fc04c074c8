import { InMemorySessionService } from '@troupe/core';
import { RunQueue, RunWorker } from '@troupe/queue';
import { expect, it } from 'vitest';
import { describeRedis, useRedis } from '../../../queue/test/redis-server.js';
import { createApp, type WireEvent } from '../../src/index.js';
import { call, createSession, runBody } from '../helpers.js';
import { readIdFrames, scriptedAgent } from './queued-app.js';

// What `/run` and `/run_sse` on a queue read from the store (issue #34): each read
// is a round trip on every request. The session is read once for the checks before the run is
// queued; the run's record is written at enqueue and its ending is in the stream's end marker, so a
// run that completes needs no read of its record; one that failed without streaming its error event
// still ends with one, read from the record.

describeRedis('/run on a queue: reads of the session and the run record', () => {
  const redis = useRedis();

  async function setup(workerApps: string[]) {
    const store = new InMemorySessionService();
    const reads: string[] = [];
    // The API's handle on the store counts its reads of run records; the worker has its own.
    const api = Object.create(store) as InMemorySessionService;
    api.getRun = (key) => {
      reads.push(key);
      return store.getRun(key);
    };
    const sessionReads: string[] = [];
    api.getSession = (params) => {
      sessionReads.push(params.sessionId);
      return store.getSession(params);
    };
    const prefix = `s${Math.random().toString(36).slice(2, 10)}`;
    const apps = { chat: scriptedAgent(['Hello.', 'Again.']), other: scriptedAgent(['Other.']) };
    const queue = new RunQueue({ redis: redis().url, sessionService: api, prefix });
    const worker = new RunWorker({
      apps: Object.fromEntries(Object.entries(apps).filter(([name]) => workerApps.includes(name))),
      sessionService: store,
      redis: redis().url,
      prefix,
      sweepIntervalMs: 0,
    });
    await worker.start();
    const app = createApp({ apps, sessionService: api, queue });
    return {
      app,
      reads,
      sessionReads,
      async close() {
        await worker.close({ gracePeriodMs: 0 });
        await queue.close();
      },
    };
  }

  it('reads the session once and no run record for a run that completed, on /run and on /run_sse', async () => {
    const api = await setup(['chat']);
    try {
      const s = await createSession(api.app, 'chat', 'alice');
      const res = await call(api.app, 'POST', '/run', runBody(s, 'hi'));
      expect(res.status).toBe(200);
      expect(((await res.json()) as WireEvent[]).map((e) => e.content?.parts)).toEqual([[{ text: 'Hello.' }]]);
      const streamed = await readIdFrames(await call(api.app, 'POST', '/run_sse', runBody(s, 'again')));
      expect(streamed.frames.map((f) => f.event.content?.parts)).toEqual([[{ text: 'Again.' }]]);
      expect(api.reads).toEqual([]);
      // One read of the session per request, shared by its checks (does the text answer a paused
      // run? does the session wait for answers?).
      expect(api.sessionReads.filter((id) => id === s.id)).toHaveLength(2);
    } finally {
      await api.close();
    }
  });

  it('still ends a run that failed without streaming its error event with one, from the record', async () => {
    // The worker does not serve the app: it records the run failed and streams no event.
    const api = await setup(['other']);
    try {
      const s = await createSession(api.app, 'chat', 'alice');
      const events = (await (await call(api.app, 'POST', '/run', runBody(s, 'hi'))).json()) as WireEvent[];
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        errorCode: 'APP_NOT_FOUND',
        errorMessage: expect.stringMatching(/No app 'chat'/),
      });
      expect(api.reads.length).toBeGreaterThan(0);
    } finally {
      await api.close();
    }
  });
});
