import { describe, expect, it } from 'vitest';
import { FunctionTool, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { eventually } from '../helpers.js';
import { openAiClient, serveOpenAi, sessionsOf } from './helpers.js';

/** An agent whose `wait` tool runs until the run is cancelled; `toolStarted` resolves once it runs. */
function waitingAgent() {
  let started: () => void = () => {};
  const toolStarted = new Promise<void>((resolve) => (started = resolve));
  const wait = new FunctionTool({
    name: 'wait',
    description: 'Waits.',
    execute: async (_args, ctx) => {
      started();
      await new Promise((resolve) => ctx.abortSignal?.addEventListener('abort', resolve, { once: true }));
      return { waited: true };
    },
  });
  const model = new ScriptedModel([{ text: 'Waiting.', functionCalls: [{ name: 'wait' }] }]);
  return { agent: new LlmAgent({ name: 'assistant', model, tools: [wait] }), toolStarted };
}

describe('OpenAI-compatible API: a client that goes away', () => {
  it.each([false, true])('cancels its run (stream: %s), which stores its cancellation', async (stream) => {
    const { agent, toolStarted } = waitingAgent();
    const served = await serveOpenAi({ chat: agent });
    const controller = new AbortController();
    const request = openAiClient(served)
      .chat.completions.create(
        { model: 'chat', messages: [{ role: 'user', content: 'wait' }], stream },
        { signal: controller.signal },
      )
      .then(async (answer) => {
        // A stream has answered with its first text: read on until the abort ends it.
        if (Symbol.asyncIterator in answer) for await (const chunk of answer) void chunk;
      })
      .catch(() => undefined);
    await toolStarted;
    controller.abort();
    await request;
    await eventually(async () => {
      const [session] = await sessionsOf(served, 'chat');
      expect(session!.events.at(-1)!.errorCode).toBe('CANCELLED');
    });
  });
});
