import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySessionService, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { createApp, serve, type ServerHandle } from '@troupe/server';
import { a2aApp, type A2aApp } from '@troupe/a2a';

// Regression (issue #28 item 12): A2A skipped the HTTP API's input limits. A 7 MiB text part,
// 50,000 parts and a 2-million-character messageId were accepted, and a data part nested 5,000
// levels deep crashed the handler (-32603 "Maximum call stack size exceeded"). The A2A endpoint,
// served beside the API as `troupe api --a2a` serves it, now refuses them as the API does: a body
// over 1 MiB is a 413, the rest a -32602 naming the limit; and nothing is stored.

const sessionService = new InMemorySessionService();
let handle: ServerHandle;
let a2a: A2aApp;
let endpoint: string;

beforeAll(async () => {
  const agent = new LlmAgent({ name: 'Bank', model: new ScriptedModel(['Noted.']) });
  const api = createApp({ apps: { bank: agent }, sessionService });
  // The port is known once listening; the card's URL is not used by these requests.
  a2a = a2aApp(agent, { baseUrl: 'http://127.0.0.1/a2a/bank', sessionService, appName: 'bank' });
  api.route('/a2a/bank', a2a);
  handle = await serve(api, { port: 0 });
  endpoint = `${handle.url}/a2a/bank`;
});

afterAll(async () => {
  await a2a.shutdown({ gracePeriodMs: 0 });
  await handle.close({ gracePeriodMs: 0 });
});

interface RpcAnswer {
  status: number;
  error?: { code: number; message: string };
  result?: { task?: { status: { state: string } } };
}

async function post(body: string): Promise<RpcAnswer> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body,
  });
  return { status: response.status, ...((await response.json()) as Omit<RpcAnswer, 'status'>) };
}

function sendMessage(message: Record<string, unknown>): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'SendMessage',
    params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }], ...message } },
  });
}

async function storedSessions(): Promise<number> {
  return (await sessionService.listSessions({ appName: 'bank', userId: 'a2a' })).sessions.length;
}

describe('the A2A endpoint applies the HTTP API input limits', () => {
  it('a 7 MiB text part is refused with 413, naming the byte limit', async () => {
    const answer = await post(sendMessage({ parts: [{ text: 'x'.repeat(7 * 1024 * 1024) }] }));
    expect(answer.status).toBe(413);
    expect(answer.error?.message).toMatch(/larger than the limit of 1048576 bytes.*bodyLimit/);
  });

  it('a 2-million-character messageId is over the byte limit too: 413', async () => {
    const answer = await post(sendMessage({ messageId: 'm'.repeat(2_000_000) }));
    expect(answer.status).toBe(413);
    expect(answer.error?.message).toMatch(/larger than the limit of 1048576 bytes/);
  });

  it('a long messageId within the byte limit is refused with -32602, naming the id limit', async () => {
    const answer = await post(sendMessage({ messageId: 'm'.repeat(5000) }));
    expect(answer.status).toBe(200);
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toBe(
      'params.message.messageId has 5000 characters, over the limit of 256 for an id. Use a short unique id, e.g. a UUID.',
    );
  });

  it('50,000 parts are refused with -32602, naming maxItems', async () => {
    const answer = await post(sendMessage({ parts: Array.from({ length: 50_000 }, () => ({ text: 'a' })) }));
    expect(answer.status).toBe(200);
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toBe(
      "Invalid request: field 'params.message.parts' has 50000 elements, over the limit of 10000. Send less, or raise a2aApp's jsonLimits.maxItems.",
    );
  });

  it('a data part nested 5,000 levels deep is refused with -32602, naming maxDepth, not a crash', async () => {
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    const body = sendMessage({ parts: [{ data: '__DEEP__' }] }).replace('"__DEEP__"', deep);
    const answer = await post(body);
    expect(answer.status).toBe(200);
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toMatch(
      /^Invalid request: field 'params\.message\.parts\.0\.data(\.a)+' is nested deeper than 64 levels\. Send less, or raise a2aApp's jsonLimits\.maxDepth\.$/,
    );
  });

  it('a task request without an id is a -32602 naming params.id, not an internal error (found by the fuzz suite)', async () => {
    for (const method of ['tasks/get', 'tasks/cancel', 'GetTask']) {
      const answer = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} }));
      expect(answer.error?.code, method).toBe(-32602);
      expect(answer.error?.message, method).toMatch(/^params\.id is (missing|empty); give the id of a task/);
    }
  });

  it('nothing was stored for the refused requests, and a message within the limits still runs', async () => {
    expect(await storedSessions()).toBe(0);
    const answer = await post(sendMessage({ parts: [{ text: 'y'.repeat(500_000) }] }));
    expect(answer.error).toBeUndefined();
    expect(answer.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(await storedSessions()).toBe(1);
  });
});

describe("a2aApp's limits are options, checked when the app is made", () => {
  const agent = new LlmAgent({ name: 'Opt', model: new ScriptedModel([]) });
  it.each([
    [{ bodyLimit: 0 }, "a2aApp's bodyLimit is 0; it must be a whole number of at least 1, e.g. 1048576, or left out."],
    [
      { jsonLimits: { maxItems: 1.5 } },
      "a2aApp's jsonLimits.maxItems is 1.5; it must be a whole number of at least 1, e.g. 10000, or left out.",
    ],
    [
      { jsonLimits: 'deep' },
      `a2aApp's jsonLimits is "deep"; give an object such as { maxDepth: 64, maxItems: 10000 }, or leave it out.`,
    ],
  ])('%o is refused', (options, message) => {
    expect(() => a2aApp(agent, { baseUrl: 'http://127.0.0.1/a2a/opt', ...options } as never)).toThrow(message);
  });

  it('the limits given apply instead of the defaults', async () => {
    const app = a2aApp(agent, { baseUrl: 'http://127.0.0.1/a2a/opt', jsonLimits: { maxItems: 4 } });
    const response = await app.request('/', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: sendMessage({ parts: ['a', 'b', 'c', 'd', 'e'].map((text) => ({ text })) }),
    });
    expect(((await response.json()) as RpcAnswer).error?.message).toBe(
      "Invalid request: field 'params.message.parts' has 5 elements, over the limit of 4. Send less, or raise a2aApp's jsonLimits.maxItems.",
    );
  });
});
