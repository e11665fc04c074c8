import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { FunctionTool, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { openAiClient, serveOpenAi, sessionsOf, type Served } from './helpers.js';

/** Serves one app 'chat' whose model must not be called unless the test scripts it. */
async function chatApp(replies: ConstructorParameters<typeof ScriptedModel>[0] = []) {
  const model = new ScriptedModel(replies);
  const served = await serveOpenAi({ chat: new LlmAgent({ name: 'assistant', model }) });
  return { model, served };
}

/** POSTs a raw body to /v1/chat/completions. */
async function post(served: Served, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${served.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { error: Record<string, unknown> } };
}

const hi = [{ role: 'user', content: 'hi' }];

describe('OpenAI-compatible API: errors in OpenAI’s shape', () => {
  it('an unknown model is 404 model_not_found, naming the models there are; nothing is stored', async () => {
    const { served, model } = await chatApp();
    const error = await openAiClient(served)
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const notFound = error as InstanceType<typeof OpenAI.NotFoundError>;
    expect(notFound.code).toBe('model_not_found');
    expect(notFound.type).toBe('invalid_request_error');
    expect(notFound.message).toContain("The model 'gpt-4o' does not exist: this server's models are its apps ('chat')");
    expect(await sessionsOf(served, 'chat')).toEqual([]);
    expect(model.requests).toHaveLength(0);
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['no messages', { model: 'chat' }, 'messages', 'expected a non-empty array of messages'],
    ['empty messages', { model: 'chat', messages: [] }, 'messages', 'got an empty array'],
    ['no model', { messages: hi }, 'model', 'expected the name of an app'],
    [
      'the last message is not the user’s',
      {
        model: 'chat',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
        ],
      },
      'messages[1].role',
      'must be the user',
    ],
    [
      'an unknown role',
      { model: 'chat', messages: [{ role: 'robot', content: 'hi' }] },
      'messages[0].role',
      "expected 'system'",
    ],
    [
      'a tool message',
      { model: 'chat', messages: [{ role: 'tool', content: '{}', tool_call_id: 'x' }, ...hi] },
      'messages[0].role',
      'run their own tools on the server',
    ],
    [
      'content of the wrong type',
      { model: 'chat', messages: [{ role: 'user', content: 42 }] },
      'messages[0].content',
      'a number 42',
    ],
    [
      'a part of an unknown type',
      { model: 'chat', messages: [{ role: 'user', content: [{ type: 'video', video: 'x' }] }] },
      'messages[0].content[0].type',
      "expected 'text', 'image_url', 'input_audio' or 'file'",
    ],
    [
      'an image by web URL',
      {
        model: 'chat',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }],
      },
      'messages[0].content[0].image_url.url',
      'a web URL, which this server does not fetch',
    ],
    ['n above 1', { model: 'chat', messages: hi, n: 2 }, 'n', 'Leave n out or send 1'],
    [
      'client tools',
      { model: 'chat', messages: hi, tools: [{ type: 'function', function: { name: 'f' } }] },
      'tools',
      'Leave tools out',
    ],
    [
      'stream that is not a boolean',
      { model: 'chat', messages: hi, stream: 'yes' },
      'stream',
      'expected true or false',
    ],
    [
      'stream_options without stream',
      { model: 'chat', messages: hi, stream_options: { include_usage: true } },
      'stream_options',
      'send it with stream: true',
    ],
    [
      'a JSON response format',
      { model: 'chat', messages: hi, response_format: { type: 'json_object' } },
      'response_format',
      "an agent's outputSchema",
    ],
    [
      'assistant tool calls in the history',
      {
        model: 'chat',
        messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function' }] }, ...hi],
      },
      'messages[0].tool_calls',
      "Send the assistant's text only",
    ],
    ['a user that is not a string', { model: 'chat', messages: hi, user: 7 }, 'user', 'expected a string'],
  ])('%s is a 400 naming the parameter and the fix, and stores nothing', async (_what, body, param, words) => {
    const { served, model } = await chatApp();
    const { status, body: answer } = await post(served, body);
    expect(status).toBe(400);
    expect(answer.error).toMatchObject({ type: 'invalid_request_error', param, code: 'invalid_request' });
    expect(answer.error.message).toContain(`field '${param}'`);
    expect(answer.error.message).toContain(words);
    expect(await sessionsOf(served, 'chat')).toEqual([]);
    expect(model.requests).toHaveLength(0);
  });

  it('malformed JSON, a body that is not an object and an unknown /v1 route are answered in the same shape', async () => {
    const { served } = await chatApp();
    expect(await post(served, '{"model": ')).toMatchObject({
      status: 400,
      body: { error: { type: 'invalid_request_error', code: 'invalid_json', param: null } },
    });
    expect(await post(served, '[1]')).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    const res = await fetch(`${served.url}/v1/embeddings`, { method: 'POST' });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { message: string; code: string } };
    expect(body.error.code).toBe('not_found');
    expect(body.error.message).toContain('POST /v1/chat/completions');
  });

  it('the OpenAI client raises them as its own error classes, with status, param and code', async () => {
    const { served } = await chatApp();
    const error = await openAiClient(served)
      .chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], n: 3 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, param: 'n', code: 'invalid_request' });
  });

  it('a failed run is a 500 with the run’s own message, and its session (which keeps the failure) in X-Session-Id', async () => {
    const { served } = await chatApp([{ error: 'the provider is down', status: 503 }]);
    const res = await fetch(`${served.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'chat', messages: hi }),
    });
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: { message: string; type: string; code: string } };
    expect(body.error.type).toBe('server_error');
    expect(body.error.code).toBe('model');
    expect(body.error.message).toContain('the provider is down');
    const [session] = await sessionsOf(served, 'chat');
    expect(res.headers.get('x-session-id')).toBe(session!.id);
    expect(session!.events.at(-1)!.errorCode).toBe('MODEL');
  });

  it('a run that fails after streaming text ends the stream with an error the client raises', async () => {
    const model = new ScriptedModel([
      { text: 'Checking.', functionCalls: [{ name: 'missing_tool' }] },
      { error: 'the provider is down' },
    ]);
    const served = await serveOpenAi({ chat: new LlmAgent({ name: 'assistant', model }) });
    const stream = await openAiClient(served).chat.completions.create({
      model: 'chat',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const texts: string[] = [];
    const error = await (async () => {
      for await (const chunk of stream) texts.push(chunk.choices[0]?.delta.content ?? '');
    })().catch((e: unknown) => e);
    expect(texts.join('')).toBe('Checking.');
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain('the provider is down');
  });

  it('a tripped output guardrail ends the answer with finish_reason content_filter, the blocked text unsent', async () => {
    const model = new ScriptedModel(['The secret is 42.']);
    const agent = new LlmAgent({
      name: 'assistant',
      model,
      outputGuardrails: [
        { name: 'no_secrets', check: (_ctx, output) => ({ tripwire: String(output).includes('secret') }) },
      ],
    });
    const served = await serveOpenAi({ chat: agent });
    const completion = await openAiClient(served).chat.completions.create({
      model: 'chat',
      messages: [{ role: 'user', content: 'tell me' }],
    });
    expect(completion.choices[0]!.finish_reason).toBe('content_filter');
    expect(completion.choices[0]!.message.content).toBe('');
    const [session] = await sessionsOf(served, 'chat');
    expect(session!.events.at(-1)!.errorCode).toBe('GUARDRAIL_TRIPPED');
  });

  it('a second turn while the session is running is 409 session_busy, and runs nothing', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let started: () => void = () => {};
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    const wait = new FunctionTool({
      name: 'wait',
      description: 'Waits.',
      execute: async () => {
        started();
        await held;
        return { ok: true };
      },
    });
    const model = new ScriptedModel(['Ready.', { functionCalls: [{ name: 'wait' }] }, 'Done.']);
    const served = await serveOpenAi({ chat: new LlmAgent({ name: 'assistant', model, tools: [wait] }) });
    const client = openAiClient(served);
    const first = await client.chat.completions
      .create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    const session = { headers: { 'X-Session-Id': first.response.headers.get('x-session-id')! } };
    const running = client.chat.completions.create(
      { model: 'chat', messages: [{ role: 'user', content: 'wait' }] },
      session,
    );
    await toolStarted;
    const busy = await client.chat.completions
      .create({ model: 'chat', messages: [{ role: 'user', content: 'hurry' }] }, session)
      .catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(OpenAI.ConflictError);
    expect((busy as InstanceType<typeof OpenAI.ConflictError>).code).toBe('session_busy');
    release();
    expect((await running).choices[0]!.message.content).toBe('Done.');
    expect(model.requests).toHaveLength(3);
  });
});
