import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { AgentTool, ConfigurationError, LlmAgent, getFunctionResponses } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { RemoteA2aAgent, RemoteA2aError } from '../../src/remote/index.js';
import { runnerFor, scriptedServer } from './helpers.js';
import type { Turn } from './scripted-executor.js';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A script that ends its task in `state` with a message. */
const endsIn = (state: TaskState, text: string) => async (turn: Turn) => {
  turn.open();
  turn.status(state, text);
};

async function failure(agent: RemoteA2aAgent): Promise<RemoteA2aError> {
  const { runner, sessionId } = await runnerFor(agent);
  const result = await runner.run({ userId: 'u', sessionId, newMessage: 'hi' });
  expect(result.status).toBe('failed');
  expect(result.events.at(-1)!.errorCode).toBe((result.error as RemoteA2aError).code);
  return result.error as RemoteA2aError;
}

describe('RemoteA2aAgent failures name the agent, the URL and the fix', () => {
  it('an unreachable card', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const error = await failure(new RemoteA2aAgent({ name: 'Gone', agentCard: url }));
    expect(error).toBeInstanceOf(RemoteA2aError);
    expect(error.code).toBe('A2A_CARD');
    expect(error.message).toContain(`Remote agent 'Gone' at ${url}/.well-known/agent-card.json`);
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).toContain('Check that the A2A server is running');
  });

  it('a card behind authentication', async () => {
    const server = await scriptedServer(async () => undefined, { status: 401 });
    const error = await failure(new RemoteA2aAgent({ name: 'Private', agentCard: server.url }));
    expect(error.code).toBe('A2A_CARD');
    expect(error.message).toContain('HTTP 401');
    expect(error.message).toContain('`headers` option');
  });

  it('an HTTP error from the JSON-RPC endpoint', async () => {
    const server = await scriptedServer(endsIn(TaskState.TASK_STATE_COMPLETED, 'never reached'));
    const overloaded: typeof fetch = async (input, init) =>
      init?.method === 'POST'
        ? new Response('busy', { status: 503, statusText: 'Service Unavailable' })
        : fetch(input, init);
    const error = await failure(new RemoteA2aAgent({ name: 'Busy', agentCard: server.url, fetch: overloaded }));
    expect(error.code).toBe('A2A_REQUEST');
    expect(error.message).toContain(
      `Remote agent 'Busy' at ${server.url}/.well-known/agent-card.json: message/stream failed:`,
    );
    expect(error.message).toContain('503');
    expect(error.message).toContain("Check the remote agent's logs");
  });

  it('a failed remote task, with the remote message', async () => {
    const server = await scriptedServer(endsIn(TaskState.TASK_STATE_FAILED, 'The weather service is down.'));
    const error = await failure(new RemoteA2aAgent({ name: 'Weather', agentCard: server.url }));
    expect(error.code).toBe('A2A_TASK_FAILED');
    expect(error.taskId).toBe(server.executor.received[0]!.taskId);
    expect(error.message).toMatch(
      /^Remote agent 'Weather' at http:\/\/127\.0\.0\.1:\d+\/\.well-known\/agent-card\.json \(task [\w-]+\): its task failed: "The weather service is down\."/,
    );
  });

  it('a rejected task', async () => {
    const server = await scriptedServer(endsIn(TaskState.TASK_STATE_REJECTED, 'I only talk about weather.'));
    const error = await failure(new RemoteA2aAgent({ name: 'Weather', agentCard: server.url }));
    expect(error.code).toBe('A2A_TASK_REJECTED');
    expect(error.message).toContain('"I only talk about weather."');
  });

  it('inside an AgentTool, a remote failure is an error tool response, not a crash', async () => {
    const server = await scriptedServer(endsIn(TaskState.TASK_STATE_FAILED, 'Out of order.'));
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'Weather', args: { request: 'weather?' } }] },
      'Sorry, the weather agent is out of order.',
    ]);
    const tool = new AgentTool({ agent: new RemoteA2aAgent({ name: 'Weather', agentCard: server.url }) });
    const { runner, sessionId } = await runnerFor(new LlmAgent({ name: 'Assistant', model, tools: [tool] }));
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'weather?' });
    expect(result.status).toBe('completed');
    const [response] = result.events.flatMap((e) => getFunctionResponses(e));
    expect(String(response!.response.error)).toContain('Out of order.');
  });

  it('bad options are refused in the constructor', () => {
    expect(() => new RemoteA2aAgent({ name: 'X', agentCard: 'not a url' })).toThrow(ConfigurationError);
    expect(() => new RemoteA2aAgent({ name: 'X', agentCard: 'ftp://host/card.json' })).toThrow(/not an http\(s\) URL/);
    expect(() => new RemoteA2aAgent({ name: 'X', agentCard: 'http://h', timeoutMs: 0 })).toThrow(/timeoutMs 0/);
    expect(() => new RemoteA2aAgent({ name: 'X', agentCard: 'http://h', headers: { a: 1 } as never })).toThrow(
      /headers/,
    );
    const child = new LlmAgent({ name: 'Child', model: new ScriptedModel([]) });
    expect(() => new RemoteA2aAgent({ name: 'X', agentCard: 'http://h', subAgents: [child] } as never)).toThrow(
      /its own tree/,
    );
  });
});
