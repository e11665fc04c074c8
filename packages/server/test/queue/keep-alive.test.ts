import { createEvent } from '@troupe/core';
import { expect, it } from 'vitest';
import { deferred } from '../../../core/test/wait.js';
import type { BackgroundRuns, BackgroundStreamEntry } from '../../src/index.js';
import { queuedRunStream } from '../../src/queued-run-stream.js';
import { RunTracker } from '../../src/run-tracker.js';

// A background run can stay silent for a long time (waiting for a worker, a long tool): the stream
// sends comment lines meanwhile, so proxies with idle timeouts do not cut it.

it('a silent background-run stream sends keep-alive comments, then the frame the run produced', async () => {
  const event = createEvent({
    invocationId: 'r1',
    author: 'slow',
    content: { role: 'model', parts: [{ text: 'late' }] },
  });
  // The run stays silent until the client has read two keep-alive comments.
  const twoKeepAlives = deferred();
  async function* join(): AsyncGenerator<BackgroundStreamEntry> {
    await twoKeepAlives.promise;
    yield { id: '1-0', event };
  }
  const queue = { join, status: async () => ({ runId: 'r1', status: 'completed' }) } as unknown as BackgroundRuns;
  const tracked = new RunTracker().begin('key', undefined);
  const res = queuedRunStream({
    queue,
    runId: 'r1',
    session: { appName: 'a', userId: 'u', sessionId: 's' },
    tracked,
    onFailure: () => undefined,
    keepAliveMs: 25,
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
    if (text.split(': keep-alive\n\n').length > 2) twoKeepAlives.resolve();
  }
  const frames = text.split('\n\n').filter((frame) => frame !== '');
  expect(frames.length).toBeGreaterThanOrEqual(3);
  expect(frames.slice(0, -1).every((frame) => frame === ': keep-alive')).toBe(true);
  expect(frames.at(-1)).toBe(`id: 1-0\ndata: ${JSON.stringify({ ...event, timestamp: event.timestamp / 1000 })}`);
});
