import OpenAI from 'openai';
import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';
import { FunctionTool, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { describeRedis, useRedis } from '../../../queue/test/redis-server.js';
import { serve, type ServerHandle } from '../../src/index.js';
import { bankAgent } from '../helpers.js';
import { queuedApp, scriptedAgent } from '../queue/queued-app.js';

// createApp({ queue, openai: true }): the chat turns run on a worker (here one in this process, on a
// private Redis) and the endpoint follows them, with the same answers as in process.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Serves a queued API with the OpenAI routes on 127.0.0.1 and returns OpenAI's client for it. */
async function servedQueue(redisUrl: string, apps: Parameters<typeof queuedApp>[1]) {
  const api = await queuedApp(redisUrl, apps, { openai: true });
  closers.push(() => api.close());
  const server: ServerHandle = await serve(api.app, { port: 0 });
  closers.push(() => server.close());
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 20_000 });
  return { api, client };
}

describeRedis('OpenAI-compatible API on a queue', () => {
  const redis = useRedis();

  it('a completion and a streamed turn run on the worker, in the session X-Session-Id names', async () => {
    const { api, client } = await servedQueue(redis().url, {
      chat: scriptedAgent(['Hello.', { chunks: ['Go', 'od', 'bye.'] }]),
    });
    const first = await client.chat.completions
      .create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(first.data.choices[0]!.message.content).toBe('Hello.');
    const sessionId = first.response.headers.get('x-session-id')!;
    const runs = await api.queue.list({ appName: 'chat', userId: 'openai', sessionId });
    expect(runs.map((r) => r.status)).toEqual(['completed']);

    const stream = await client.chat.completions.create(
      {
        model: 'chat',
        messages: [{ role: 'user', content: 'bye' }],
        stream: true,
        stream_options: { include_usage: true },
      },
      { headers: { 'X-Session-Id': sessionId } },
    );
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '')).toEqual(['', 'Go', 'od', 'bye.', '', '']);
    expect(chunks.at(-1)!.usage!.total_tokens).toBeGreaterThan(0);
    const session = await api.sessionService.getSession({ appName: 'chat', userId: 'openai', sessionId });
    expect(session!.events.map((e) => e.author)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('a pause for approval ends the turn with the question; "yes" puts the run back on the queue and the tool runs once', async () => {
    const { agent, sent } = bankAgent([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 5 }, id: 'c1' }] },
      'Sent 5.',
    ]);
    const { api, client } = await servedQueue(redis().url, { bank: agent });
    const paused = await client.chat.completions
      .create({ model: 'bank', messages: [{ role: 'user', content: 'send 5' }] })
      .withResponse();
    expect(paused.data.choices[0]!.message.content).toContain('Answer yes or no.');
    expect(paused.response.headers.get('x-troupe-interrupt-id')).toBeTruthy();
    const sessionId = paused.response.headers.get('x-session-id')!;

    const answered = await client.chat.completions.create(
      { model: 'bank', messages: [{ role: 'user', content: 'yes' }] },
      { headers: { 'X-Session-Id': sessionId } },
    );
    expect(answered.choices[0]!.message.content).toBe('Sent 5.');
    expect(sent).toEqual([5]);
    const runs = await api.queue.list({ appName: 'bank', userId: 'openai', sessionId });
    expect(runs.map((r) => r.status)).toEqual(['completed']);
  });

  it("an answer the worker's runner refuses is the 400 it is in process, not a failed completion", async () => {
    const book = new FunctionTool({
      name: 'book_trip',
      description: 'Books a trip.',
      parameters: z.object({}),
      execute: (_args, ctx) =>
        ctx.requestInput({
          message: 'Which date?',
          responseSchema: { type: 'object', properties: { date: { type: 'string' } }, required: ['date'] },
        }),
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'book_trip', id: 'b1' }] }]);
    const { client } = await servedQueue(redis().url, { trips: new LlmAgent({ name: 'desk', model, tools: [book] }) });
    const paused = await client.chat.completions
      .create({ model: 'trips', messages: [{ role: 'user', content: 'book' }] })
      .withResponse();
    const wrong = await client.chat.completions
      .create(
        { model: 'trips', messages: [{ role: 'user', content: '{"day": 1}' }] },
        { headers: { 'X-Session-Id': paused.response.headers.get('x-session-id')! } },
      )
      .catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(OpenAI.BadRequestError);
    expect(wrong).toMatchObject({ status: 400, code: 'interrupt_response' });
    expect((wrong as Error).message).toContain("must have required property 'date'");
  });
});
