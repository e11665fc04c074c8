import { setTimeout as sleep } from 'node:timers/promises';
import { type BaseAgent, FunctionTool, InMemorySessionService, LlmAgent } from '@troupe/core';
import { ScriptedModel, type ScriptedReply } from '@troupe/core/testing';
import { RunQueue, RunWorker } from '@troupe/queue';
import { expect } from 'vitest';
import { z } from 'zod';
import { createApp, type CreateAppOptions, type WireEvent } from '../../src/index.js';
import { readSseChunks } from '../helpers.js';

/**
 * An API with `createApp({ queue })` and one RunWorker in this process (unless `worker: false`),
 * sharing an in-memory store and a test Redis (under a key prefix of its own, so tests do not see
 * each other's jobs).
 */
export async function queuedApp(
  redisUrl: string,
  apps: Record<string, BaseAgent>,
  options: Partial<CreateAppOptions> & { worker?: boolean; streamTtlMs?: number } = {},
) {
  const { worker: withWorker = true, streamTtlMs, ...appOptions } = options;
  const sessionService = new InMemorySessionService();
  const prefix = `s${Math.random().toString(36).slice(2, 10)}`;
  const queue = new RunQueue({ redis: redisUrl, sessionService, prefix });
  const worker = withWorker
    ? new RunWorker({
        apps,
        sessionService,
        redis: redisUrl,
        prefix,
        // The default lock (10 s), not a short one: these tests do not test takeovers, and under CI
        // load a 2 s lock renewed every second lapsed now and then, so the stalled check (every 0.5 s)
        // took a busy run over mid-test (a /run then collected no events).
        sweepIntervalMs: 0,
        ...(streamTtlMs ? { streamTtlMs } : {}),
      })
    : undefined;
  await worker?.start();
  const app = createApp({ apps, sessionService, queue, ...appOptions });
  return {
    app,
    queue,
    sessionService,
    async close() {
      await worker?.close({ gracePeriodMs: 0 });
      await queue.close();
    },
  };
}

/** An LlmAgent 'assistant' answering with the scripted replies. */
export function scriptedAgent(replies: ScriptedReply[]): BaseAgent {
  return new LlmAgent({ name: 'assistant', model: new ScriptedModel(replies), instruction: 'Help.' });
}

/** An agent that calls a `wait` tool `calls` times (each sleeps `ms`, honouring cancellation), then answers `text`; scripted for `turns` turns. */
export function slowAgent(ms: number, text = 'done', calls = 1, turns = 1): BaseAgent {
  const wait = new FunctionTool({
    name: 'wait',
    description: 'Waits.',
    parameters: z.object({}),
    execute: async (_args, ctx) => {
      await sleep(ms, undefined, { signal: ctx.abortSignal });
      return { waited: ms };
    },
  });
  const replies: ScriptedReply[] = [];
  for (let turn = 0; turn < turns; turn++) {
    for (let i = 0; i < calls; i++) replies.push({ functionCalls: [{ name: 'wait', id: `w${turn}-${i}` }] });
    replies.push(text);
  }
  return new LlmAgent({ name: 'slow', model: new ScriptedModel(replies), tools: [wait] });
}

/** One SSE frame of a background run: its `id:` and its event. */
export interface IdFrame {
  id: string;
  event: WireEvent;
}

/** Splits SSE text into frames, checking each is exactly an `id:` line and one `data:` line. */
export function parseIdFrames(text: string): IdFrame[] {
  expect(text.endsWith('\n\n') || text === '').toBe(true);
  return text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      expect(frame).toMatch(/^id: [^\n]+\ndata: [^\n]+$/);
      const [idLine, dataLine] = frame.split('\n') as [string, string];
      return { id: idLine.slice('id: '.length), event: JSON.parse(dataLine.slice('data: '.length)) as WireEvent };
    });
}

/** Reads an SSE response to its end: the chunks as written, and the frames. */
export async function readIdFrames(res: Response): Promise<{ chunks: string[]; frames: IdFrame[] }> {
  const chunks = await readSseChunks(res);
  return { chunks, frames: parseIdFrames(chunks.join('')) };
}
