import { isToolUIPart } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FunctionTool, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { chatPath, inProcess, overHttp, send, typesOf, userMessage } from './helpers.js';

function guide(replies: ConstructorParameters<typeof ScriptedModel>[0]) {
  const lookUp = new FunctionTool({
    name: 'look_up',
    description: 'Looks a city up.',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }, ctx) => {
      await ctx.emit('progress', { searched: city });
      return { city, country: 'France' };
    },
  });
  const fail = new FunctionTool({
    name: 'broken',
    description: 'Always fails.',
    execute: () => {
      throw new Error('the map server is down');
    },
  });
  return new LlmAgent({ name: 'Guide', model: new ScriptedModel(replies), tools: [lookUp, fail] });
}

describe('AI SDK chat: text, tools and custom data parts', () => {
  it('streams text deltas, tool input and output, and data parts in the order they happened', async () => {
    const server = inProcess({
      guide: guide([
        { functionCalls: [{ name: 'look_up', args: { city: 'Paris' }, id: 'c1' }] },
        { chunks: ['Paris is ', 'in France.'] },
      ]),
    });
    const reply = await send(server, chatPath('guide', 'alice', 'chat-1'), [userMessage('Where is Paris?')]);
    expect(typesOf(reply)).toEqual([
      'start',
      'tool-input-available',
      'data-progress',
      'tool-output-available',
      'text-start',
      'text-delta',
      'text-delta',
      'text-end',
      'finish',
    ]);
    const start = reply.chunks[0] as { messageId: string };
    expect(start.messageId).toMatch(/^chat-/);
    expect(reply.chunks.filter((c) => c.type === 'text-delta').map((c) => c.delta)).toEqual([
      'Paris is ',
      'in France.',
    ]);
    expect(reply.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });

    // The message useChat would show: one assistant message, its id the invocation's.
    const { message } = reply;
    expect(message.id).toBe(start.messageId);
    expect(message.parts.map((p) => p.type)).toEqual(['tool-look_up', 'data-progress', 'text']);
    expect(message.parts[0]).toMatchObject({
      toolCallId: 'Guide:c1',
      state: 'output-available',
      input: { city: 'Paris' },
      output: { city: 'Paris', country: 'France' },
    });
    expect(message.parts[1]).toMatchObject({ data: { searched: 'Paris' } });
    expect(message.parts[2]).toMatchObject({
      text: 'Paris is in France.',
      state: 'done',
      providerMetadata: { troupe: { author: 'Guide', path: 'Guide' } },
    });

    // The session is the chat: created with the path's id, the invocation the message's id.
    const session = await server.sessionService.getSession({ appName: 'guide', userId: 'alice', sessionId: 'chat-1' });
    expect(new Set(session!.events.map((e) => e.invocationId))).toEqual(new Set([start.messageId]));
  });

  it('a second request in the chat is a new turn on the same session, with only the last user message new', async () => {
    const model = new ScriptedModel(['Hello.', 'You said hello before.']);
    const server = inProcess({ echo: new LlmAgent({ name: 'Echo', model }) });
    const path = chatPath('echo', 'bob', 'chat-2');
    const first = await send(server, path, [userMessage('Hi')]);
    const second = await send(server, path, [userMessage('Hi'), first.message, userMessage('Again?')]);
    expect(second.message.parts).toMatchObject([{ type: 'text', text: 'You said hello before.' }]);
    expect(second.message.id).not.toBe(first.message.id);
    // The model saw the history from the session: each user message once.
    const texts = model.requests[1]!.contents.map((c) => c.parts.map((p) => ('text' in p ? p.text : '')).join(''));
    expect(texts).toEqual(['Hi', 'Hello.', 'Again?']);
  });

  it('thought parts become a reasoning part before the text', async () => {
    const server = inProcess({
      thinker: new LlmAgent({ name: 'Thinker', model: new ScriptedModel([{ text: '42.', thought: 'Add it up.' }]) }),
    });
    const reply = await send(server, chatPath('thinker', 'u', 'c'), [userMessage('Sum?')]);
    expect(typesOf(reply)).toEqual([
      'start',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-end',
      'text-start',
      'text-delta',
      'text-end',
      'finish',
    ]);
    expect(reply.message.parts).toMatchObject([
      { type: 'reasoning', text: 'Add it up.', state: 'done' },
      { type: 'text', text: '42.' },
    ]);
  });

  it('a tool that fails ends its part in output-error; the run goes on', async () => {
    const server = inProcess({
      guide: guide([{ functionCalls: [{ name: 'broken', id: 'b1' }] }, 'The map is unavailable.']),
    });
    const reply = await send(server, chatPath('guide', 'u', 'c'), [userMessage('Map?')]);
    const tool = reply.message.parts.find(isToolUIPart)!;
    expect(tool).toMatchObject({ type: 'tool-broken', state: 'output-error', errorText: 'the map server is down' });
    expect(reply.message.parts.at(-1)).toMatchObject({ type: 'text', text: 'The map is unavailable.' });
  });

  it('serves the same over a real HTTP server, with the protocol header and the [DONE] end', async () => {
    const server = await overHttp({ guide: guide([{ chunks: ['Bon', 'jour'] }]) });
    const path = chatPath('guide', 'u', 'over-http');
    const response = await server.fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'over-http', messages: [userMessage('Hello')], trigger: 'submit-message' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = (await response.text()).split('\n\n').filter(Boolean);
    expect(frames.at(-1)).toBe('data: [DONE]');
    expect(frames.slice(0, -1).map((f) => (JSON.parse(f.slice('data: '.length)) as { type: string }).type)).toEqual([
      'start',
      'text-start',
      'text-delta',
      'text-delta',
      'text-end',
      'finish',
    ]);
  });
});
