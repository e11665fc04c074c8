import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEvent, FunctionTool, LlmAgent, node, RequestInput, Workflow } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { bankAgent, readSse } from '../helpers.js';
import { openAiClient, serveOpenAi, sessionsOf } from './helpers.js';

const user = (content: string) => [{ role: 'user' as const, content }];
const TRANSFER = { functionCalls: [{ name: 'transfer_money', args: { amount: 5 }, id: 'call-1' }] };

/** The error a request was refused with. */
async function refusal(request: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const error = await request.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OpenAI.APIError);
  return error as InstanceType<typeof OpenAI.APIError>;
}

describe('OpenAI-compatible API: a turn that pauses for a person', () => {
  it('ends with the question and X-Troupe-Interrupt-Id; "maybe" is refused with nothing stored, "yes" runs the tool once', async () => {
    const { agent, sent } = bankAgent([TRANSFER, 'Sent 5.']);
    const served = await serveOpenAi({ bank: agent });
    const client = openAiClient(served);
    const paused = await client.chat.completions.create({ model: 'bank', messages: user('send 5') }).withResponse();
    expect(paused.data.choices[0]!.message.content).toBe(
      `Allow tool 'transfer_money' to run with {"amount":5}? Answer yes or no.`,
    );
    expect(paused.data.choices[0]!.finish_reason).toBe('stop');
    const sessionId = paused.response.headers.get('x-session-id')!;
    const [session] = await sessionsOf(served, 'bank');
    const interrupt = session!.events.at(-1)!.interrupt!;
    expect(paused.response.headers.get('x-troupe-interrupt-id')).toBe(interrupt.id);
    expect(sent).toEqual([]);

    const continued = { headers: { 'X-Session-Id': sessionId } };
    const unclear = await refusal(
      client.chat.completions.create({ model: 'bank', messages: user('maybe later') }, continued),
    );
    expect(unclear.status).toBe(400);
    expect(unclear.param).toBe('messages[0].content');
    expect(unclear.message).toContain("tool 'transfer_money'");
    expect(unclear.message).toContain('Answer yes or no');
    expect((await sessionsOf(served, 'bank'))[0]!.events).toHaveLength(session!.events.length);

    const approved = await client.chat.completions.create({ model: 'bank', messages: user('Yes!') }, continued);
    expect(approved.choices[0]!.message.content).toBe('Sent 5.');
    expect(sent).toEqual([5]);
  });

  it('"no" rejects the call: the tool never runs and the model is told', async () => {
    const { agent, sent, model } = bankAgent([TRANSFER, 'Cancelled.']);
    const served = await serveOpenAi({ bank: agent });
    const client = openAiClient(served);
    const paused = await client.chat.completions.create({ model: 'bank', messages: user('send 5') }).withResponse();
    const answer = await client.chat.completions.create(
      { model: 'bank', messages: user('no') },
      { headers: { 'X-Session-Id': paused.response.headers.get('x-session-id')! } },
    );
    expect(answer.choices[0]!.message.content).toBe('Cancelled.');
    expect(sent).toEqual([]);
    expect(JSON.stringify(model.requests[1]!.contents.at(-1))).toContain('reject');
  });

  it('streamed: a turn that pauses before writing anything names its question in the header too', async () => {
    const { agent, sent } = bankAgent([TRANSFER, { chunks: ['Se', 'nt.'] }]);
    const served = await serveOpenAi({ bank: agent });
    const client = openAiClient(served);
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'bank', messages: user('send 5'), stream: true })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(`Allow tool 'transfer_money' to run with {"amount":5}? Answer yes or no.`);
    const [session] = await sessionsOf(served, 'bank');
    expect(response.headers.get('x-troupe-interrupt-id')).toBe(session!.events.at(-1)!.interrupt!.id);

    const answer = await client.chat.completions.create(
      { model: 'bank', messages: user('yes'), stream: true },
      { headers: { 'X-Session-Id': session!.id } },
    );
    const deltas: string[] = [];
    for await (const chunk of answer) deltas.push(chunk.choices[0]?.delta.content ?? '');
    expect(deltas.join('')).toBe('Sent.');
    expect(sent).toEqual([5]);
  });

  it('POST .../resume answers it as for any session, and the chat goes on', async () => {
    const { agent, sent } = bankAgent([TRANSFER, 'Sent 5.', 'Anything else?']);
    const served = await serveOpenAi({ bank: agent });
    const client = openAiClient(served);
    const paused = await client.chat.completions.create({ model: 'bank', messages: user('send 5') }).withResponse();
    const sessionId = paused.response.headers.get('x-session-id')!;
    const interruptId = paused.response.headers.get('x-troupe-interrupt-id')!;
    const resumed = await fetch(`${served.url}/apps/bank/users/openai/sessions/${sessionId}/resume`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ responses: { [interruptId]: true } }),
    });
    expect(resumed.status).toBe(200);
    const { events } = await readSse(resumed);
    expect(events.at(-1)!.content!.parts).toEqual([{ text: 'Sent 5.' }]);
    expect(sent).toEqual([5]);
    const next = await client.chat.completions.create(
      { model: 'bank', messages: user('thanks') },
      { headers: { 'X-Session-Id': sessionId } },
    );
    expect(next.choices[0]!.message.content).toBe('Anything else?');
  });

  it("the text that came before the question stays in the message; a tool's request for input takes a JSON answer", async () => {
    const booked: unknown[] = [];
    const book = new FunctionTool({
      name: 'book_trip',
      description: 'Books a trip.',
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        const answer = await ctx.requestInput<{ date: string }>({
          message: 'Which date?',
          responseSchema: { type: 'object', properties: { date: { type: 'string' } }, required: ['date'] },
        });
        booked.push(answer);
        return { booked: answer.date };
      },
    });
    const model = new ScriptedModel([
      { text: 'Booking now.', functionCalls: [{ name: 'book_trip', id: 'b1' }] },
      'Booked for May 1st.',
    ]);
    const served = await serveOpenAi({ trips: new LlmAgent({ name: 'desk', model, tools: [book] }) });
    const client = openAiClient(served);
    const paused = await client.chat.completions.create({ model: 'trips', messages: user('book') }).withResponse();
    expect(paused.data.choices[0]!.message.content).toBe(
      'Booking now.\n\nWhich date? (Answer with JSON: { date: string }.)',
    );
    const continued = { headers: { 'X-Session-Id': paused.response.headers.get('x-session-id')! } };
    const wrong = await refusal(
      client.chat.completions.create({ model: 'trips', messages: user('{"day": 1}') }, continued),
    );
    expect(wrong.status).toBe(400);
    expect(wrong.code).toBe('interrupt_response');
    const done = await client.chat.completions.create(
      { model: 'trips', messages: user('{"date": "2026-05-01"}') },
      continued,
    );
    expect(done.choices[0]!.message.content).toBe('Booked for May 1st.');
    expect(booked).toEqual([{ date: '2026-05-01' }]);
  });

  it("a workflow's RequestInput takes the message's text, as SPEC §17.1 answers", async () => {
    const greet = node(
      (_ctx, text: string) => createEvent({ output: text, content: { role: 'model', parts: [{ text: 'Hi!' }] } }),
      { name: 'greet' },
    );
    const ask = node(() => new RequestInput({ message: 'What is your name?' }), { name: 'ask' });
    const welcome = node((_ctx, name: string) => `Welcome, ${name}!`, { name: 'welcome' });
    const served = await serveOpenAi({
      intake: new Workflow({ name: 'intake', edges: [['START', greet, ask, welcome]] }),
    });
    const client = openAiClient(served);
    const paused = await client.chat.completions.create({ model: 'intake', messages: user('hello') }).withResponse();
    expect(paused.data.choices[0]!.message.content).toBe('Hi!\n\nWhat is your name?');
    const answered = await client.chat.completions.create(
      { model: 'intake', messages: user('Ada') },
      { headers: { 'X-Session-Id': paused.response.headers.get('x-session-id')! } },
    );
    expect(answered.choices[0]!.message.content).toBe('Welcome, Ada!');
    const [session] = await sessionsOf(served, 'intake');
    // The runner keeps the user's answer as their message.
    expect(session!.events.filter((e) => e.author === 'user').map((e) => e.content?.parts)).toContainEqual([
      { text: 'Ada' },
    ]);
  });

  it("a workflow's RequestInput with a responseSchema says a message answers with text, and an object goes by the resume route", async () => {
    const ask = node(
      () =>
        new RequestInput({
          message: 'How many nights?',
          responseSchema: { type: 'object', properties: { nights: { type: 'integer' } }, required: ['nights'] },
        }),
      { name: 'ask' },
    );
    const use = node((_ctx, answer: unknown) => `got ${JSON.stringify(answer)}`, { name: 'use' });
    const served = await serveOpenAi({ book: new Workflow({ name: 'book', edges: [['START', ask, use]] }) });
    const client = openAiClient(served);
    const paused = await client.chat.completions.create({ model: 'book', messages: user('book a room') });
    const prompt = paused.choices[0]!.message.content!;
    expect(prompt).toContain('How many nights?');
    expect(prompt).not.toContain('or JSON');
    expect(prompt).toContain('{ nights: integer }');
    expect(prompt).toContain('/resume');
  });

  it('with several questions open, a message is refused (409): the resume route answers them by id', async () => {
    const { agent, sent } = bankAgent([
      {
        functionCalls: [
          { name: 'transfer_money', args: { amount: 1 }, id: 'c1' },
          { name: 'transfer_money', args: { amount: 2 }, id: 'c2' },
        ],
      },
    ]);
    const served = await serveOpenAi({ bank: agent });
    const client = openAiClient(served);
    const paused = await client.chat.completions
      .create({ model: 'bank', messages: user('send 1 and 2') })
      .withResponse();
    const ids = paused.response.headers.get('x-troupe-interrupt-id')!.split(', ');
    expect(ids).toHaveLength(2);
    expect(paused.data.choices[0]!.message.content).toContain('These 2 questions are answered together');
    const error = await refusal(
      client.chat.completions.create(
        { model: 'bank', messages: user('yes') },
        { headers: { 'X-Session-Id': paused.response.headers.get('x-session-id')! } },
      ),
    );
    expect(error.status).toBe(409);
    expect(error.code).toBe('pending_interrupt');
    expect(error.message).toContain('/resume');
    expect(sent).toEqual([]);
  });
});
