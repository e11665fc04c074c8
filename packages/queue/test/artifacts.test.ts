import { FunctionAgent, InMemoryArtifactService, InMemorySessionService } from '@troupe/core';
import { RunQueue } from '@troupe/queue';
import { afterEach, expect, it } from 'vitest';
import { describeRedis, useRedis } from './redis-server.js';
import { startWorker } from './start-worker.js';

// A worker given an artifact service runs the apps with it: what a background run's agent saves is
// in the store the API replicas serve artifacts from, and its event records the version.

describeRedis('RunWorker({ artifactService })', () => {
  const redis = useRedis();
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  it("a background run's saves land in the shared artifact store, with artifactDelta on the stored event", async () => {
    const sessionService = new InMemorySessionService();
    const artifactService = new InMemoryArtifactService();
    const prefix = `a${Math.random().toString(36).slice(2, 8)}`;
    const agent = new FunctionAgent({
      name: 'Scribe',
      run: async (_input, ctx) => `saved version ${await ctx.saveArtifact('minutes.md', { text: '# Minutes' })}`,
    });
    const queue = new RunQueue({ redis: redis().url, sessionService, prefix });
    const worker = await startWorker({
      apps: { scribe: agent },
      sessionService,
      artifactService,
      redis: redis().url,
      prefix,
    });
    closers.push(
      () => queue.close(),
      () => worker.close({ gracePeriodMs: 0 }),
    );

    const session = await sessionService.createSession({ appName: 'scribe', userId: 'u1' });
    const run = await queue.enqueue({
      appName: 'scribe',
      userId: 'u1',
      sessionId: session.id,
      newMessage: 'Take the minutes.',
    });
    for await (const _ of queue.join(run.runId)) {
      // Drained to the run's end.
    }
    expect(await queue.status(run.runId)).toMatchObject({ status: 'completed' });
    expect(
      await artifactService.loadArtifact({
        appName: 'scribe',
        userId: 'u1',
        sessionId: session.id,
        filename: 'minutes.md',
      }),
    ).toEqual({ text: '# Minutes' });
    const stored = await sessionService.getSession({ appName: 'scribe', userId: 'u1', sessionId: session.id });
    expect(stored!.events.at(-1)).toMatchObject({
      output: 'saved version 0',
      actions: { artifactDelta: { 'minutes.md': 0 } },
    });
  });
});
