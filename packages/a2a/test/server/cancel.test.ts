import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerProcesses, freePort, requireBuilt, scratch, type ServerProcess } from './helpers/server-process.js';
import { asTask, collect, describe as line, message, sdkClient, textsOf } from './helpers/sdk-client.js';

// tasks/cancel ends a task as `canceled` with the run's CANCELLED event stored (SPEC §12): a task
// running here is stopped through its run; a task waiting for input, or one whose process died, gets
// the event stored under the conversation's lease.

const processes = new ServerProcesses();
const files = scratch();
let port: number;
let server: ServerProcess;

beforeAll(async () => {
  requireBuilt();
  port = await freePort();
  server = await processes.start({ db: files.db, port, toolLog: files.toolLog, leaseTtlMs: 1_000 });
}, 30_000); // above the 20 s that start() gives the server, whose own error says why it did not start
afterAll(async () => {
  await processes.killAll();
  files.remove();
});

interface WireEvent {
  invocationId: string;
  errorCode?: string;
  errorMessage?: string;
}

async function storedEvents(apiUrl: string, sessionId: string): Promise<WireEvent[]> {
  return (
    (await (await fetch(`${apiUrl}/apps/bank/users/a2a/sessions/${sessionId}`)).json()) as { events: WireEvent[] }
  ).events;
}

/** Resolves with the task of a stream once its run is busy in the slow tool. */
async function startSlowTask(
  server: ServerProcess,
): Promise<{ taskId: string; contextId: string; rest: Promise<StreamResponse[]> }> {
  const client = await sdkClient(server.baseUrl);
  const stream = client.sendMessageStream(message('slow please'));
  const first = await stream.next();
  const task = !first.done && first.value.payload?.$case === 'task' ? first.value.payload.value : undefined;
  if (!task) throw new Error('The stream did not start with the task.');
  // The user's message, then the model's call of the tool: from then on the tool is running.
  const deadline = Date.now() + 10_000;
  while ((await storedEvents(server.apiUrl, task.contextId)).filter((e) => e.invocationId === task.id).length < 2) {
    if (Date.now() > deadline) throw new Error('The slow task did not start within 10 s.');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { taskId: task.id, contextId: task.contextId, rest: collect(stream) };
}

describe('tasks/cancel', () => {
  it('stops a running task: its stream ends canceled, the CANCELLED event is stored, the conversation is free', async () => {
    const client = await sdkClient(server.baseUrl);
    const { taskId, contextId, rest } = await startSlowTask(server);
    const cancelled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(textsOf(cancelled.status?.message?.parts)).toEqual([
      'The task was cancelled by its A2A client (tasks/cancel).',
    ]);
    expect((await rest).map(line).at(-1)).toBe('status:canceled');
    const events = (await storedEvents(server.apiUrl, contextId)).filter((e) => e.invocationId === taskId);
    expect(events.filter((e) => e.errorCode === 'CANCELLED')).toHaveLength(1);
    expect((await client.getTask({ tenant: '', id: taskId, historyLength: undefined })).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
    // Cancelling again answers the same; the conversation takes the next task at once.
    expect((await client.cancelTask({ tenant: '', id: taskId, metadata: undefined })).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
    expect(asTask(await client.sendMessage(message('next', { contextId }))).status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
  });

  it('cancels a task waiting for input: stored, it takes no answer, and the conversation goes on', async () => {
    const client = await sdkClient(server.baseUrl);
    const paused = asTask(await client.sendMessage(message('send 9')));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const cancelled = await client.cancelTask({ tenant: '', id: paused.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await storedEvents(server.apiUrl, paused.contextId)).at(-1)).toMatchObject({
      invocationId: paused.id,
      errorCode: 'CANCELLED',
    });
    await expect(client.sendMessage(message('yes', { taskId: paused.id }))).rejects.toThrow(
      /is canceled and takes no more messages/,
    );
    const next = asTask(await client.sendMessage(message('hello again', { contextId: paused.contextId })));
    expect(next.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('refuses to cancel a completed task', async () => {
    const client = await sdkClient(server.baseUrl);
    const done = asTask(await client.sendMessage(message('hi')));
    await expect(client.cancelTask({ tenant: '', id: done.id, metadata: undefined })).rejects.toThrow(
      /already completed; only a working task or one waiting for input can be cancelled/,
    );
  });

  it('cancels a task whose server process died mid-run, once its lease has expired', async () => {
    const { taskId, rest } = await startSlowTask(server);
    // The stream is cut with the process (watched from now on, so its failure is expected).
    const cut = expect(rest).rejects.toThrow();
    await server.kill();
    await cut;
    server = await processes.start({ db: files.db, port, toolLog: files.toolLog, leaseTtlMs: 1_000 });
    const client = await sdkClient(server.baseUrl);
    expect((await client.getTask({ tenant: '', id: taskId, historyLength: undefined })).status?.state).toBe(
      TaskState.TASK_STATE_WORKING,
    );
    // Until the dead process's lease expires, its run may still be alive for all this one knows.
    let cancelled;
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        cancelled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
        break;
      } catch (error) {
        expect((error as Error).message).toMatch(/is running in another server process/);
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});
