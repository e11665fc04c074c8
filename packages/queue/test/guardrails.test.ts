import { InMemorySessionService, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { RunQueue, type RunWorker, type StreamEntry } from '@troupe/queue';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeRedis, useRedis } from './redis-server.js';
import { startWorker } from './start-worker.js';

// A background run a guardrail blocks: run records keep their own status list, so the record ends
// 'failed' with the GUARDRAIL_TRIPPED code and message, and the stream ends with the stored event.

const APP = 'tutor';

describeRedis('a background run blocked by a guardrail', () => {
  const redis = useRedis();
  let store: InMemorySessionService;
  let queue: RunQueue;
  let worker: RunWorker;

  beforeEach(async () => {
    store = new InMemorySessionService();
    const prefix = `g${Math.random().toString(36).slice(2, 8)}`;
    const agent = new LlmAgent({
      name: 'Tutor',
      model: new ScriptedModel([]),
      inputGuardrails: [{ name: 'no_homework', blocking: true, check: () => ({ tripwire: true }) }],
    });
    queue = new RunQueue({ redis: redis().url, sessionService: store, prefix });
    worker = await startWorker({
      apps: { [APP]: agent },
      sessionService: store,
      redis: redis().url,
      prefix,
    });
  });
  afterEach(async () => {
    await worker.close({ gracePeriodMs: 0 });
    await queue.close();
  });

  it('ends failed with error code GUARDRAIL_TRIPPED; the stream ends with the stored tripwire event', async () => {
    const session = await store.createSession({ appName: APP, userId: 'u1' });
    const run = await queue.enqueue({
      appName: APP,
      userId: 'u1',
      sessionId: session.id,
      newMessage: 'do my homework',
    });
    const entries: StreamEntry[] = [];
    for await (const entry of queue.join(run.runId)) entries.push(entry);
    expect(entries.map((e) => e.event.errorCode)).toEqual(['GUARDRAIL_TRIPPED']);
    const status = await queue.status(run.runId);
    expect(status).toMatchObject({
      status: 'failed',
      error: { code: 'GUARDRAIL_TRIPPED', message: expect.stringMatching(/^Guardrail 'no_homework' tripped/) },
    });
  });
});
