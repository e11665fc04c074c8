import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerProcesses, freePort, requireBuilt, scratch, type ServerProcess } from './helpers/server-process.js';
import { asTask, data, message, sdkClient, textsOf } from './helpers/sdk-client.js';

// Bearer tokens stand for users, as in the HTTP API: a user's token reaches that user's contexts and
// tasks only, and another user's task id is answered exactly like an id that does not exist.

const tokens = { 'alice-token': 'alice', 'bob-token': 'bob', 'admin-token': '*' };
const processes = new ServerProcesses();
const files = scratch();
let server: ServerProcess;

beforeAll(async () => {
  requireBuilt();
  server = await processes.start({ db: files.db, port: await freePort(), toolLog: files.toolLog, tokens });
}, 30_000); // above the 20 s that start() gives the server, whose own error says why it did not start
afterAll(async () => {
  await processes.killAll();
  files.remove();
});

/** The error a call fails with, its task id replaced, so two answers can be compared. */
async function failure(call: Promise<unknown>, taskId: string): Promise<{ name: string; message: string }> {
  try {
    await call;
  } catch (error) {
    return { name: (error as Error).name, message: (error as Error).message.replaceAll(taskId, '<id>') };
  }
  throw new Error('The call succeeded; it should have failed.');
}

describe('per-user isolation', () => {
  it('needs a token for JSON-RPC (not for the card)', async () => {
    expect((await fetch(`${server.baseUrl}/.well-known/agent-card.json`)).status).toBe(200);
    const response = await fetch(server.baseUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      "This A2A endpoint requires a token: send the header 'Authorization: Bearer <token>'.",
    );
    const wrong = await fetch(server.baseUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer nope' },
      body: '{}',
    });
    expect(wrong.status).toBe(401);
    const card = (await (
      await fetch(`${server.baseUrl}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
    ).json()) as { securitySchemes: unknown };
    expect(card.securitySchemes).toEqual({
      bearer: { httpAuthSecurityScheme: expect.objectContaining({ scheme: 'Bearer' }) },
    });
  });

  it("another user cannot get, cancel or answer a user's task, and is told the same as for an unknown task", async () => {
    const alice = await sdkClient(server.baseUrl, 'alice-token');
    const bob = await sdkClient(server.baseUrl, 'bob-token');
    const task = asTask(await alice.sendMessage(message('send 7')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const unknown = `${task.contextId}.AAAAAAAAAAAAAAAA`;

    const notFound = await failure(bob.getTask({ tenant: '', id: unknown, historyLength: undefined }), unknown);
    expect(notFound.message).toMatch(/^There is no task '<id>' for you\./);
    expect(await failure(bob.getTask({ tenant: '', id: task.id, historyLength: undefined }), task.id)).toEqual(
      notFound,
    );
    expect(await failure(bob.cancelTask({ tenant: '', id: task.id, metadata: undefined }), task.id)).toEqual(
      await failure(bob.cancelTask({ tenant: '', id: unknown, metadata: undefined }), unknown),
    );
    const answer = (id: string) =>
      bob.sendMessage(message([data({ interruptId: 'x', confirmed: true })], { taskId: id }));
    expect(await failure(answer(task.id), task.id)).toEqual(await failure(answer(unknown), unknown));
    // The admin token acts as the default user, not as Alice.
    const admin = await sdkClient(server.baseUrl, 'admin-token');
    expect(await failure(admin.getTask({ tenant: '', id: task.id, historyLength: undefined }), task.id)).toEqual(
      notFound,
    );

    // Alice's task is untouched.
    expect((await alice.getTask({ tenant: '', id: task.id, historyLength: undefined })).status?.state).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );
  });

  it("a contextId is per user: Bob using Alice's starts his own conversation and sees none of hers", async () => {
    const alice = await sdkClient(server.baseUrl, 'alice-token');
    const bob = await sdkClient(server.baseUrl, 'bob-token');
    const first = asTask(await alice.sendMessage(message('secret plan')));
    const second = asTask(await alice.sendMessage(message('more', { contextId: first.contextId })));
    expect(textsOf(second.status?.message?.parts)).toEqual(['You said: more (turn 2)']);
    const bobs = asTask(await bob.sendMessage(message('hi', { contextId: first.contextId })));
    expect(bobs.contextId).toBe(first.contextId);
    expect(textsOf(bobs.status?.message?.parts)).toEqual(['You said: hi (turn 1)']);
    const list = await bob.listTasks({
      tenant: '',
      contextId: first.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: undefined,
      pageToken: '',
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: undefined,
    });
    expect(list.tasks.map((t) => t.id)).toEqual([bobs.id]);
  });
});
