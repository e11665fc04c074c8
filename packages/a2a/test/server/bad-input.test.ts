import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FunctionTool, InMemorySessionService, LlmAgent, Runner } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { a2aApp, type A2aApp } from '@troupe/a2a';

// What a client that sends something wrong is told: a JSON-RPC error that names the field, the
// value and how to fix it. In process (app.request); the other suites use a real server.

const BASE = 'http://127.0.0.1:8000/a2a/helper';

function makeApp(replies: ConstructorParameters<typeof ScriptedModel>[0] = []): A2aApp {
  const approve = new FunctionTool({
    name: 'approve',
    description: 'Needs a yes.',
    parameters: z.object({}),
    requireConfirmation: true,
    execute: () => ({ ok: true }),
  });
  const ask = new FunctionTool({
    name: 'ask_age',
    description: 'Asks for an age.',
    parameters: z.object({}),
    execute: async (_args, ctx) => ({
      age: await ctx.requestInput({ message: 'How old are you?', responseSchema: { type: 'integer' } }),
    }),
  });
  const agent = new LlmAgent({ name: 'Helper', model: new ScriptedModel(replies), tools: [approve, ask] });
  return a2aApp(agent, { baseUrl: BASE, allowRemoteApprovals: true });
}

interface RpcAnswer {
  status: number;
  error?: { code: number; message: string };
  result?: Record<string, unknown>;
}

async function rpc(app: A2aApp, body: unknown, headers: Record<string, string> = {}): Promise<RpcAnswer> {
  const response = await app.request('/', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const json = (await response.json()) as Omit<RpcAnswer, 'status'>;
  return { status: response.status, ...json };
}

const text = (value: string) => ({ text: value });
const send = (message: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [text('hi')], ...message } },
});

describe('bad JSON-RPC requests', () => {
  it.each([
    [
      'a body that is not JSON',
      '{"jsonrpc": ',
      400,
      -32700,
      /^The request body is not JSON \(.+\)\. Send a JSON-RPC 2\.0 request, e\.g\. \{"jsonrpc": "2\.0"/,
    ],
    ['a batch', [], 200, -32600, /is an array \(batches are not supported\); send one JSON-RPC 2\.0 request object/],
    [
      'a wrong version',
      { jsonrpc: '1.0', id: 1, method: 'GetTask', params: {} },
      200,
      -32600,
      /^The request's jsonrpc is "1\.0"; it must be "2\.0"\.$/,
    ],
    [
      'an unknown method',
      { jsonrpc: '2.0', id: 1, method: 'tasks/list', params: {} },
      200,
      -32601,
      /^There is no method "tasks\/list"\. Use one of A2A 1\.0: SendMessage, .* A2A 0\.3: message\/send, /,
    ],
    [
      'no params',
      { jsonrpc: '2.0', id: 1, method: 'SendMessage' },
      200,
      -32602,
      /^SendMessage needs params, an object \(got none\)/,
    ],
    ['an empty message', send({ parts: [] }), 200, -32602, /^message\.parts is empty; send at least one part/],
    // Found by the A2A fuzzer: the SDK's decoder read a null part and the answer was an internal error.
    [
      'a null part',
      send({ parts: [{ text: 'hi' }, null] }),
      200,
      -32602,
      /^Invalid request: field 'params\.message\.parts\[1\]' is null; each part is an object, e.g\. \{ text: 'Hello' \}/,
    ],
    // Found by the A2A fuzzer (seed 572142170): a v0.3 file part without its file was an internal error.
    [
      'a v0.3 file part without its file',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'file' }] } },
      },
      200,
      -32602,
      /^Invalid request: field 'params\.message\.parts\[0\]\.file' is missing; a file part needs/,
    ],
    [
      'parts that are not a list',
      send({ parts: 'hi' }),
      200,
      -32602,
      /^Invalid request: field 'params\.message\.parts' is a string; send a list of parts/,
    ],
    [
      'no messageId',
      send({ messageId: '' }),
      200,
      -32602,
      /^message\.messageId is empty; give each message a unique id/,
    ],
    [
      'an agent role',
      send({ role: 'ROLE_AGENT' }),
      200,
      -32602,
      /^message\.role is "ROLE_AGENT"; a client's message has role ROLE_USER/,
    ],
    [
      'a file by URL',
      send({ parts: [{ url: 'https://example.com/a.pdf' }] }),
      200,
      -32005,
      /^message\.parts\[0\] is a file by URL \("https:\/\/example\.com\/a\.pdf"\), which this agent does not fetch/,
    ],
    [
      'an unknown task',
      send({ taskId: 'nope' }),
      200,
      -32001,
      /^There is no task 'nope' for you\. Use the id of a task this agent returned to you/,
    ],
    [
      'an unusable contextId',
      send({ contextId: 'a b' }),
      200,
      -32602,
      /^message\.contextId "a b" cannot name a conversation here: use 1 to 100 characters/,
    ],
    [
      'push notifications',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tasks/pushNotificationConfig/set',
        params: { taskId: 't', pushNotificationConfig: { url: 'https://x' } },
      },
      200,
      -32003,
      /does not send push notifications/,
    ],
  ])('%s', async (_what, body, status, code, message) => {
    const answer = await rpc(makeApp(), body);
    expect(answer.status).toBe(status);
    expect(answer.error?.code).toBe(code);
    expect(answer.error?.message).toMatch(message);
  });

  it('a body that is not JSON by its Content-Type', async () => {
    const response = await makeApp().request('/', {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: 'hi',
    });
    expect(response.status).toBe(415);
    expect(((await response.json()) as RpcAnswer).error?.message).toMatch(
      /^The request's Content-Type is 'text\/plain'; A2A's JSON-RPC binding takes 'application\/json'/,
    );
  });

  it('an A2A version the endpoint does not speak', async () => {
    const answer = await rpc(
      makeApp(),
      { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } },
      { 'A2A-Version': '2.0' },
    );
    expect(answer.error).toMatchObject({
      code: -32009,
      message: expect.stringContaining("'2.0' is not supported. Supported versions: 1.0, 0.3"),
    });
  });

  it('a message to a task that has ended, and answers that do not fit the open interrupts', async () => {
    const app = makeApp([
      'Hello.',
      { functionCalls: [{ name: 'approve', id: 'c1' }] },
      'Not approved, fine.',
      { functionCalls: [{ name: 'ask_age', id: 'c2' }] },
    ]);
    const done = (await rpc(app, send({}))).result!.task as { id: string; contextId: string };
    expect((await rpc(app, send({ taskId: done.id }))).error?.message).toBe(
      `Task '${done.id}' is completed and takes no more messages. Send the message without taskId and with contextId '${done.contextId}' to start a new task in the same conversation.`,
    );

    const paused = (await rpc(app, send({ messageId: 'm2', parts: [text('approve it')] }))).result!.task as {
      id: string;
      contextId: string;
    };
    const none = await rpc(app, send({ messageId: 'm3', taskId: paused.id, parts: [text('yes please')] }));
    expect(none.error?.code).toBe(-32602);
    expect(none.error?.message).toContain(
      `Task '${paused.id}' waits for answers to 'Helper:c1' (confirmation), and this message answers none of them. Send a data part per answer: {"interruptId": "<id>", "confirmed": true}`,
    );
    const wrongId = await rpc(
      app,
      send({ messageId: 'm4', taskId: paused.id, parts: [{ data: { interruptId: 'other', confirmed: true } }] }),
    );
    expect(wrongId.error?.message).toBe(
      "There is no open interrupt 'other' in this session. Open interrupts: Helper:c1. Use the ids from RunResult.interrupts.",
    );
    const wrongShape = await rpc(
      app,
      send({ messageId: 'm5', taskId: paused.id, parts: [{ data: { interruptId: 'Helper:c1', confirmed: 'yes' } }] }),
    );
    expect(wrongShape.error?.message).toBe(
      'The answer to confirmation \'Helper:c1\' must be true, false or { confirmed: boolean, payload? }; got {"confirmed":"yes"}.',
    );
    // A rejection is an answer like any other; the next task asks for an age, and a text answer must fit its schema.
    await rpc(app, send({ messageId: 'm6', taskId: paused.id, parts: [{ data: { confirmed: false } }] }));
    const asking = (await rpc(app, send({ messageId: 'm7', contextId: paused.contextId, parts: [text('my age?')] })))
      .result!.task as { id: string; status: { state: string } };
    expect(asking.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const notAnInteger = await rpc(app, send({ messageId: 'm8', taskId: asking.id, parts: [text('forty')] }));
    expect(notAnInteger.error?.message).toMatch(
      /^The answer to input request 'Helper:c2' does not match its responseSchema: /,
    );
  });

  it('a GET on the endpoint says where to POST and where the card is', async () => {
    const response = await makeApp().request('/');
    expect(response.status).toBe(405);
    expect(((await response.json()) as { error: string }).error).toBe(
      `This is the A2A JSON-RPC endpoint of Helper: POST JSON-RPC requests here. The agent card is at ${BASE}/.well-known/agent-card.json.`,
    );
  });
});

describe('a2aApp options', () => {
  const agent = new LlmAgent({ name: 'Opt', model: new ScriptedModel([]) });
  it.each([
    [
      'no baseUrl',
      {},
      "a2aApp needs baseUrl, the public URL it is served at (e.g. 'http://127.0.0.1:8000/a2a/Opt'); got undefined.",
    ],
    [
      'a baseUrl without scheme',
      { baseUrl: 'localhost:8000' },
      `a2aApp's baseUrl "localhost:8000" is not an http(s) URL; A2A's JSON-RPC binding runs over HTTP, e.g. 'http://127.0.0.1:8000/a2a/Opt'.`,
    ],
    [
      'a relative baseUrl',
      { baseUrl: '/a2a/opt' },
      `a2aApp's baseUrl "/a2a/opt" is not an absolute URL; give scheme, host and path, e.g. 'http://127.0.0.1:8000/a2a/Opt'.`,
    ],
    [
      'allowRemoteApprovals not a boolean',
      { baseUrl: BASE, allowRemoteApprovals: 'yes' },
      `a2aApp's allowRemoteApprovals is "yes"; use true or false.`,
    ],
    [
      'auth without tokens',
      { baseUrl: BASE, auth: { tokens: {} } },
      "a2aApp's auth.tokens must map at least one token to a user id (or '*' for admin), e.g. { tokens: { 'secret': 'alice' } }; got {}.",
    ],
    [
      'an empty defaultUserId',
      { baseUrl: BASE, defaultUserId: '' },
      `a2aApp's defaultUserId is ""; it must be a non-empty string or left out.`,
    ],
    [
      'a runner of another agent',
      {
        baseUrl: BASE,
        runner: new Runner({
          appName: 'x',
          agent: new LlmAgent({ name: 'Other' }),
          sessionService: new InMemorySessionService(),
        }),
      },
      "a2aApp's runner runs agent 'Other', not 'Opt' that the card describes. Pass the runner of Opt, or leave runner out.",
    ],
  ])('%s is refused', (_what, options, message) => {
    expect(() => a2aApp(agent, options as never)).toThrow(message);
  });

  it('a runner and a sessionService that is not its own are refused', () => {
    const runner = new Runner({ appName: 'x', agent, sessionService: new InMemorySessionService() });
    expect(() => a2aApp(agent, { baseUrl: BASE, runner, sessionService: new InMemorySessionService() })).toThrow(
      "a2aApp got both a runner and a sessionService that is not the runner's. Give one of them: the runner's store is where its sessions live.",
    );
  });
});
