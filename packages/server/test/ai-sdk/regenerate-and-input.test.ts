import { isToolUIPart, type UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { FunctionTool, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { chatPath, inProcess, send, typesOf, userMessage } from './helpers.js';

const textsOf = (model: ScriptedModel, call: number) =>
  model.requests[call]!.contents.map((c) => c.parts.map((p) => ('text' in p ? p.text : '')).join(''));

describe('AI SDK chat: regenerate, and requests for input', () => {
  it('regenerate-message answers the last user message again, with the earlier answer rewound', async () => {
    const model = new ScriptedModel(['Hello.', 'Hi there!']);
    const server = inProcess({ echo: new LlmAgent({ name: 'Echo', model }) });
    const path = chatPath('echo', 'u', 'c1');
    const ask = userMessage('Hi');
    const first = await send(server, path, [ask]);
    const again = await send(server, path, [ask], { trigger: 'regenerate-message', messageId: first.message.id });
    expect(again.message.parts).toMatchObject([{ type: 'text', text: 'Hi there!' }]);
    expect(again.message.id).not.toBe(first.message.id);
    // The model saw the question once, without the answer it replaces.
    expect(textsOf(model, 1)).toEqual(['Hi']);
  });

  it('a tool’s request for input: the part waits with a data part saying what is asked; its output answers it', async () => {
    const askPin = new FunctionTool({
      name: 'ask_pin',
      description: 'Asks the user for their PIN.',
      execute: async (_args, ctx) => ({
        pin: await ctx.requestInput<string>({
          message: 'Your 4-digit PIN?',
          responseSchema: { type: 'string', pattern: '^[0-9]{4}$' },
        }),
      }),
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'ask_pin', id: 'p1' }] }, 'PIN accepted.']);
    const server = inProcess({ bank: new LlmAgent({ name: 'Banker', model, tools: [askPin] }) });
    const path = chatPath('bank', 'u', 'c1');
    const ask = userMessage('Log me in');
    const paused = await send(server, path, [ask]);
    expect(typesOf(paused)).toEqual(['start', 'tool-input-available', 'data-troupe-input-request', 'finish']);
    expect(paused.message.parts).toMatchObject([
      { type: 'tool-ask_pin', toolCallId: 'Banker:p1', state: 'input-available' },
      {
        type: 'data-troupe-input-request',
        id: 'Banker:p1',
        data: {
          interruptId: 'Banker:p1',
          toolCallId: 'Banker:p1',
          message: 'Your 4-digit PIN?',
          responseSchema: { type: 'string', pattern: '^[0-9]{4}$' },
        },
      },
    ]);

    // What addToolOutput does to the part.
    const answer = (output: unknown): UIMessage => ({
      ...paused.message,
      parts: paused.message.parts.map((part) =>
        isToolUIPart(part) ? { ...part, state: 'output-available', output } : part,
      ) as UIMessage['parts'],
    });
    const wrong = await server.fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ messages: [ask, answer('12')] }),
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: { code: 'INTERRUPT_RESPONSE' } });

    const right = answer('1234');
    const resumed = await send(server, path, [ask, right], { continues: right });
    expect(resumed.chunks[0]).toEqual({ type: 'start', messageId: paused.message.id });
    expect(resumed.message.parts[0]).toMatchObject({ state: 'output-available', output: { pin: '1234' } });
    expect(resumed.message.parts.at(-1)).toMatchObject({ type: 'text', text: 'PIN accepted.' });
  });
});
