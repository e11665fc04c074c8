import { existsSync, readFileSync } from 'node:fs';
import { TaskState } from '@a2a-js/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  PG_URL,
  describePostgres,
  dropSchema,
  requirePostgres,
  uniqueSchema,
} from '../../../postgres/test/pg-test-env.js';
import { ServerProcesses, freePort, requireBuilt, scratch, type ServerConfig } from './helpers/server-process.js';
import { asTask, collect, data, dataOf, describe as line, message, sdkClient, textsOf } from './helpers/sdk-client.js';

// A tool that needs approval pauses the task (input-required, the interrupt as a data part); the
// server process is killed and a new one started on the same store (SQLite, PostgreSQL); the answer on the
// task resumes the same invocation there, and the tool runs exactly once.

const processes = new ServerProcesses();
const dirs: (() => void)[] = [];
beforeAll(() => requireBuilt());
afterEach(async () => {
  await processes.killAll();
  for (const remove of dirs.splice(0)) remove();
});

function toolRuns(toolLog: string): string[] {
  return existsSync(toolLog) ? readFileSync(toolLog, 'utf8').trim().split('\n').filter(Boolean) : [];
}

/** Pauses a task for approval, kills the server, answers on a new process over the same store. */
async function pauseRestartResume(pg?: { url: string; schema: string }): Promise<void> {
  const files = scratch();
  dirs.push(() => files.remove());
  const config: ServerConfig = {
    db: files.db,
    port: await freePort(),
    toolLog: files.toolLog,
    allowRemoteApprovals: true,
    ...(pg ? { pg } : {}),
  };
  const first = await processes.start(config);
  const client = await sdkClient(first.baseUrl);

  const paused = asTask(await client.sendMessage(message('Please send 500 to Bob')));
  expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const [ask] = dataOf(paused.status?.message?.parts) as {
    interruptId: string;
    kind: string;
    toolName: string;
    args: unknown;
  }[];
  expect(ask).toMatchObject({ kind: 'confirmation', toolName: 'transfer_money', args: { amount: 500 } });
  expect(textsOf(paused.status?.message?.parts)[0]).toContain(ask!.interruptId);
  expect(toolRuns(files.toolLog)).toEqual([]);

  await first.kill();
  const second = await processes.start(config);
  expect(second.pid).not.toBe(first.pid);
  const again = await sdkClient(second.baseUrl);
  // The new process knows the task from the store alone.
  const stored = await again.getTask({ tenant: '', id: paused.id, historyLength: undefined });
  expect(stored.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  expect(dataOf(stored.status?.message?.parts)).toEqual([ask]);
  // The same status, message id included, as the first process gave it live.
  expect(stored.status).toEqual(paused.status);

  const events = await collect(
    again.sendMessageStream(
      message([data({ interruptId: ask!.interruptId, confirmed: true })], {
        taskId: paused.id,
        contextId: paused.contextId,
      }),
    ),
  );
  expect(events.map(line).join(' ')).toMatch(
    /^task:working status:working artifact:response-1( artifact:response-1\+)* artifact:response-1\+! status:completed$/,
  );
  const final = events.at(-1)!.payload;
  expect(final?.$case === 'statusUpdate' && textsOf(final.value.status?.message?.parts)).toEqual([
    'Done: transfer_money returned {"status":"sent","amount":500}.',
  ]);
  expect(toolRuns(files.toolLog)).toEqual([`sent 500 by ${second.pid}`]);

  const done = await again.getTask({ tenant: '', id: paused.id, historyLength: undefined });
  expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  // One invocation: the pause and the answer belong to the same task.
  const session = (await (await fetch(`${second.apiUrl}/apps/bank/users/a2a/sessions/${paused.contextId}`)).json()) as {
    events: { invocationId: string }[];
  };
  expect(new Set(session.events.map((e) => e.invocationId))).toEqual(new Set([paused.id]));
  // The task is over: answering again is refused, and the tool still ran once.
  await expect(
    again.sendMessage(message([data({ interruptId: ask!.interruptId, confirmed: true })], { taskId: paused.id })),
  ).rejects.toThrow(/is completed and takes no more messages/);
  expect(toolRuns(files.toolLog)).toHaveLength(1);
}

describe('human in the loop over A2A', () => {
  it('pauses for approval, survives a restart of the server (SQLite), and resumes the same task: the tool runs once', async () => {
    await pauseRestartResume();
  });

  it('refuses approvals from A2A clients unless allowRemoteApprovals is set, naming the option; the task keeps waiting', async () => {
    const files = scratch();
    dirs.push(() => files.remove());
    const server = await processes.start({ db: files.db, port: await freePort(), toolLog: files.toolLog });
    const client = await sdkClient(server.baseUrl);
    const paused = asTask(await client.sendMessage(message('send 20')));
    const [ask] = dataOf(paused.status?.message?.parts) as { interruptId: string }[];

    // SPEC §14.1: the answer is not an error; the task stays input-required and its status says why.
    const refused = asTask(
      await client.sendMessage(
        message([data({ interruptId: ask!.interruptId, confirmed: true })], { taskId: paused.id }),
      ),
    );
    expect(refused.id).toBe(paused.id);
    expect(refused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const why = (refused.status?.message?.parts ?? [])
      .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
      .join(' ');
    expect(why).toMatch(/allowRemoteApprovals is false/);
    expect(why).toMatch(/a2aApp\(agent, \{ allowRemoteApprovals: true \}\)/);
    expect(dataOf(refused.status?.message?.parts)).toEqual([
      expect.objectContaining({ interruptId: ask!.interruptId }),
    ]);
    expect(toolRuns(files.toolLog)).toEqual([]);
    expect((await client.getTask({ tenant: '', id: paused.id, historyLength: undefined })).status?.state).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );

    // A new task in that conversation waits for the answer first; one elsewhere is fine.
    await expect(client.sendMessage(message('hello', { contextId: paused.contextId }))).rejects.toThrow(
      new RegExp(`Task '${paused.id.replace('.', '\\.')}' of this conversation waits for input`),
    );
    expect(asTask(await client.sendMessage(message('hello'))).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});

describePostgres('human in the loop over A2A on PostgreSQL', () => {
  const schema = uniqueSchema('a2a_restart');
  beforeAll(() => requirePostgres());
  afterAll(async () => {
    if (PG_URL !== '') await dropSchema(schema);
  });

  it('survives a restart of the server on the same PostgreSQL schema: the tool runs once', async () => {
    await pauseRestartResume({ url: PG_URL, schema });
  });
});
