import { fileURLToPath } from 'node:url';
import { Role, TaskState } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../src/index.js';
import { startServing } from './helpers.js';

// `troupe api --a2a` serves each app over A2A at /a2a/{app} beside the HTTP API.

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

const start = (...argv: string[]) => startServing(fixtures, ...argv);

async function client(baseUrl: string, token?: string) {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    if (token) headers.set('Authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    }),
  );
  return factory.createFromUrl(`${baseUrl}/`);
}

const hello = {
  tenant: '',
  message: {
    messageId: 'm1',
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text' as const, value: 'hello' }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: undefined,
  metadata: undefined,
};

describe('troupe api --a2a', () => {
  it('serves each app of the directory over A2A beside the HTTP API, and stops on Ctrl-C', async () => {
    const { io, url, exit } = await start('api', 'serve-apps', '--port', '0', '--memory', '--a2a');
    expect(io.out()).toContain(
      `A2A: ${url}/a2a/{app} for each app, e.g. agent card ${url}/a2a/broken/.well-known/agent-card.json\n`,
    );

    const card = (await (
      await fetch(`${url}/a2a/echo/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
    ).json()) as { name: string; supportedInterfaces: { url: string }[] };
    expect(card.name).toBe('Echo');
    expect(card.supportedInterfaces[0]!.url).toBe(`${url}/a2a/echo`);
    const echo = await client(`${url}/a2a/echo`);
    const task = await echo.sendMessage(hello);
    expect('status' in task && task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect('status' in task && task.status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: 'HELLO' });
    // The task's session is the API's too.
    const session = (await (
      await fetch(`${url}/apps/echo/users/a2a/sessions/${'contextId' in task ? task.contextId : ''}`)
    ).json()) as { events: unknown[] };
    expect(session.events).toHaveLength(2);

    const missing = await fetch(`${url}/a2a/nope/.well-known/agent-card.json`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'APP_NOT_FOUND',
      message: "There is no app 'nope' to serve over A2A. GET /list-apps lists the apps; each is at /a2a/{app}.",
    });

    io.interrupt();
    expect(await exit).toBe(ExitCode.ok);
  });

  it('with --token, A2A requests need it too; the card stays public', async () => {
    const { io, url, exit } = await start(
      'api',
      'serve-apps/echo/agent.js',
      '--port',
      '0',
      '--memory',
      '--a2a',
      '--token',
      's3cret',
    );
    expect(io.out()).toContain(`agent card ${url}/a2a/echo/.well-known/agent-card.json`);
    expect((await fetch(`${url}/a2a/echo/.well-known/agent-card.json`)).status).toBe(200);
    const refused = await fetch(`${url}/a2a/echo`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    });
    expect(refused.status).toBe(401);
    const task = await (await client(`${url}/a2a/echo`, 's3cret')).sendMessage(hello);
    expect('status' in task && task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    io.interrupt();
    expect(await exit).toBe(ExitCode.ok);
  });
});
