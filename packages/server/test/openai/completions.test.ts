import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FunctionTool, LlmAgent, node, ParallelAgent, Workflow } from '@troupe/core';
import { ScriptedModel, type ScriptedReply } from '@troupe/core/testing';
import { OPENAI_USER } from '../../src/index.js';
import { progressAgent } from '../helpers.js';
import { openAiClient, serveOpenAi, sessionsOf } from './helpers.js';

/** An app whose agent 'assistant' answers with the scripted replies. */
function assistant(replies: ScriptedReply[]) {
  const model = new ScriptedModel(replies);
  return { model, agent: new LlmAgent({ name: 'assistant', model, instruction: 'Help.' }) };
}

describe('OpenAI-compatible API: models', () => {
  it('GET /v1/models lists every app as a model, and GET /v1/models/{model} describes one', async () => {
    const served = await serveOpenAi({ chat: assistant([]).agent, support: assistant([]).agent });
    const client = openAiClient(served);
    const models = await client.models.list();
    expect(models.data.map((m) => [m.id, m.object, m.owned_by])).toEqual([
      ['chat', 'model', 'troupe'],
      ['support', 'model', 'troupe'],
    ]);
    expect(Number.isInteger(models.data[0]!.created)).toBe(true);
    expect(await client.models.retrieve('support')).toEqual(models.data[1]);
    const unknown = await client.models.retrieve('nope').catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect((unknown as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  });
});

describe('OpenAI-compatible API: one completion', () => {
  it("answers with the app's reply, usage from the run, and the new session's id in X-Session-Id", async () => {
    const { agent, model } = assistant(['Hello there.']);
    const served = await serveOpenAi({ chat: agent });
    const { data, response } = await openAiClient(served)
      .chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], user: 'end-user-7' })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.id).toMatch(/^chatcmpl-/);
    expect(data.model).toBe('chat');
    expect(data.choices).toHaveLength(1);
    expect(data.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'Hello there.' });
    expect(data.choices[0]!.finish_reason).toBe('stop');

    // The session is the server's record, of the user 'openai' (no auth), not of the request's end user.
    const sessionId = response.headers.get('x-session-id');
    expect(sessionId).toBeTruthy();
    expect(await sessionsOf(served, 'chat', 'end-user-7')).toEqual([]);
    const [session] = await sessionsOf(served, 'chat', OPENAI_USER);
    expect(session!.id).toBe(sessionId);
    expect(session!.events.map((e) => [e.author, e.content?.parts])).toEqual([
      ['user', [{ text: 'hi' }]],
      ['assistant', [{ text: 'Hello there.' }]],
    ]);
    const usage = session!.events[1]!.usage!;
    expect(data.usage).toMatchObject({
      prompt_tokens: usage.inputTokens,
      completion_tokens: usage.outputTokens,
      total_tokens: usage.inputTokens + usage.outputTokens,
    });
    expect(model.requests).toHaveLength(1);
  });

  it('a turn of several model calls answers with all they said, a blank line apart, and their usage summed', async () => {
    const lookups: string[] = [];
    const lookup = new FunctionTool({
      name: 'lookup',
      description: 'Looks up a fact.',
      parameters: z.object({ topic: z.string() }),
      execute: ({ topic }) => {
        lookups.push(topic);
        return { answer: 42 };
      },
    });
    const model = new ScriptedModel([
      { text: 'Let me look that up.', functionCalls: [{ name: 'lookup', args: { topic: 'life' } }] },
      'It is 42.',
    ]);
    const served = await serveOpenAi({ chat: new LlmAgent({ name: 'assistant', model, tools: [lookup] }) });
    const completion = await openAiClient(served).chat.completions.create({
      model: 'chat',
      messages: [{ role: 'user', content: 'What is the answer?' }],
    });
    expect(completion.choices[0]!.message.content).toBe('Let me look that up.\n\nIt is 42.');
    expect(lookups).toEqual(['life']);
    const [session] = await sessionsOf(served, 'chat');
    const calls = session!.events.filter((e) => e.usage);
    expect(calls).toHaveLength(2);
    expect(completion.usage!.prompt_tokens).toBe(calls.reduce((sum, e) => sum + e.usage!.inputTokens, 0));
    expect(completion.usage!.completion_tokens).toBe(calls.reduce((sum, e) => sum + e.usage!.outputTokens, 0));
  });

  it('custom events (ctx.emit) are progress, never part of the assistant message', async () => {
    const served = await serveOpenAi({ fetch: progressAgent().agent });
    const client = openAiClient(served);
    const completion = await client.chat.completions.create({
      model: 'fetch',
      messages: [{ role: 'user', content: 'go' }],
    });
    expect(completion.choices[0]!.message.content).toBe('Fetched 2.');
    const [session] = await sessionsOf(served, 'fetch');
    expect(session!.events.filter((e) => e.customEvent)).toHaveLength(2);
  });

  it('a workflow whose nodes say nothing answers with its output', async () => {
    const shout = node((_ctx, text: string) => ({ shouted: text.toUpperCase() }), { name: 'shout' });
    const served = await serveOpenAi({ loud: new Workflow({ name: 'loud', edges: [['START', shout]] }) });
    const completion = await openAiClient(served).chat.completions.create({
      model: 'loud',
      messages: [{ role: 'user', content: 'hey' }],
    });
    expect(completion.choices[0]!.message.content).toBe('{"shouted":"HEY"}');
    expect(completion.usage).toMatchObject({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });
});

describe('OpenAI-compatible API: streaming', () => {
  it('streams the role, the text as the model writes it, the finish reason, and with include_usage the usage chunk', async () => {
    const { agent } = assistant([{ chunks: ['Hel', 'lo ', 'there.'] }]);
    const served = await serveOpenAi({ chat: agent });
    const { data: stream, response } = await openAiClient(served)
      .chat.completions.create({
        model: 'chat',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'chat')).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta ?? 'usage')).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Hel' },
      { content: 'lo ' },
      { content: 'there.' },
      {},
      'usage',
    ]);
    expect(chunks.map((c) => c.choices[0]?.finish_reason ?? null)).toEqual([null, null, null, null, 'stop', null]);
    // As OpenAI sends them: usage null on every chunk but the last, which has no choices.
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    const [session] = await sessionsOf(served, 'chat');
    expect(session!.id).toBe(response.headers.get('x-session-id'));
    const usage = session!.events.at(-1)!.usage!;
    expect(last.usage).toMatchObject({
      prompt_tokens: usage.inputTokens,
      completion_tokens: usage.outputTokens,
      total_tokens: usage.inputTokens + usage.outputTokens,
    });
    expect(session!.events.at(-1)!.content!.parts).toEqual([{ text: 'Hello there.' }]);
  });

  it('agents on parallel branches never interleave: each text is whole, a blank line apart', async () => {
    const writer = (name: string, chunks: string[]) =>
      new LlmAgent({ name, model: new ScriptedModel([{ chunks }]), instruction: 'Write.' });
    const both = new ParallelAgent({
      name: 'both',
      subAgents: [writer('left', ['L1 ', 'L2 ', 'L3']), writer('right', ['R1 ', 'R2 ', 'R3'])],
    });
    const served = await serveOpenAi({ both });
    const stream = await openAiClient(served).chat.completions.create({
      model: 'both',
      messages: [{ role: 'user', content: 'go' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(['L1 L2 L3\n\nR1 R2 R3', 'R1 R2 R3\n\nL1 L2 L3']).toContain(text);
  });

  it('without include_usage the chunks carry no usage, and the stream ends with data: [DONE]', async () => {
    const { agent } = assistant([{ chunks: ['A', 'B'] }]);
    const served = await serveOpenAi({ chat: agent });
    const res = await fetch(`${served.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    expect(res.status).toBe(200);
    const frames = (await res.text()).split('\n\n').filter((f) => f !== '');
    expect(frames.every((f) => f.startsWith('data: ') && !f.includes('\n'))).toBe(true);
    expect(frames.at(-1)).toBe('data: [DONE]');
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.slice('data: '.length)) as Record<string, unknown>);
    expect(chunks.some((c) => 'usage' in c)).toBe(false);
    expect(chunks.map((c) => (c.choices as { delta: unknown }[])[0]!.delta)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'A' },
      { content: 'B' },
      {},
    ]);
  });
});
