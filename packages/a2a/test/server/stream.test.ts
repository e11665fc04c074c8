import { AgentCard, TaskState } from '@a2a-js/sdk';
import { isLegacyAgentCard, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerProcesses, freePort, requireBuilt, scratch, type ServerProcess } from './helpers/server-process.js';
import { asTask, collect, describe as line, message, sdkClient, textsOf } from './helpers/sdk-client.js';

// A real server process on 127.0.0.1 (SQLite store), driven by the official A2A SDK's client.

const processes = new ServerProcesses();
const files = scratch();
let server: ServerProcess;

beforeAll(async () => {
  requireBuilt();
  server = await processes.start({ db: files.db, port: await freePort(), toolLog: files.toolLog });
}, 30_000); // above the 20 s that start() gives the server, whose own error says why it did not start
afterAll(async () => {
  await processes.killAll();
  files.remove();
});

describe('a2aApp served in a real process', () => {
  it('serves a card that the SDK client reads: the tree as skills, streaming, the JSON-RPC url', async () => {
    const client = await sdkClient(server.baseUrl);
    const card = await client.getAgentCard();
    expect(card).toMatchObject({
      name: 'Banker',
      description: 'Moves money between accounts.',
      capabilities: { streaming: true, pushNotifications: false },
    });
    expect(card.supportedInterfaces.map((i) => [i.url, i.protocolBinding, i.protocolVersion])).toEqual([
      [server.baseUrl, 'JSONRPC', '1.0'],
      [server.baseUrl, 'JSONRPC', '0.3'],
    ]);
    expect(card.skills.map((s) => s.id)).toEqual(['Banker', 'Banker.transfer_money', 'Banker.slow_step']);
    expect(card.skills[1]).toMatchObject({
      name: 'transfer_money',
      description: 'Sends money to Bob.',
      tags: ['tool', 'Banker'],
    });
    // The JSON the server sent is a valid 1.0 card as the SDK's codec reads it.
    const raw = await (
      await fetch(`${server.baseUrl}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
    ).json();
    expect(AgentCard.fromJSON(raw)).toMatchObject({ name: 'Banker', skills: expect.any(Array) });
  });

  it('gives A2A 0.3 clients (no version header) a 0.3 card with the 1.0 interfaces beside it', async () => {
    const response = await fetch(`${server.baseUrl}/.well-known/agent-card.json`);
    expect(response.headers.get('vary')).toContain('A2A-Version');
    const raw = (await response.json()) as Record<string, unknown>;
    expect(raw).toMatchObject({
      name: 'Banker',
      url: server.baseUrl,
      preferredTransport: 'JSONRPC',
      protocolVersion: '0.3.0',
      capabilities: { streaming: true },
    });
    // A 0.3 reader finds everything it needs in the 0.3 fields alone...
    const { supportedInterfaces, ...legacyFields } = raw;
    expect(isLegacyAgentCard(legacyFields)).toBe(true);
    const parsed = parseLegacyAgentCard(legacyFields);
    expect(parsed.name).toBe('Banker');
    expect(parsed.supportedInterfaces[0]).toMatchObject({
      url: server.baseUrl,
      protocolBinding: 'JSONRPC',
      protocolVersion: '0.3.0',
    });
    // ...and a 1.0 reader of the same document takes the 1.0 interfaces (the SDK's rule for such cards).
    expect(isLegacyAgentCard(raw)).toBe(false);
    expect(AgentCard.fromJSON({ ...raw, supportedInterfaces }).supportedInterfaces).toHaveLength(2);
  });

  it('message/stream: the task, working, the streamed text as artifact updates, then completed with the output', async () => {
    const client = await sdkClient(server.baseUrl);
    const events = await collect(client.sendMessageStream(message('hello there')));
    // Chunks a slow reader has not taken yet are merged, so how many arrive varies; their order does not.
    expect(events.map(line).join(' ')).toMatch(
      /^task:submitted status:working artifact:response-1( artifact:response-1\+)* artifact:response-1\+! status:completed$/,
    );
    // The chunks add up to the text, once; the last one closes the artifact.
    const chunks = events.flatMap((e) =>
      e.payload?.$case === 'artifactUpdate' ? textsOf(e.payload.value.artifact?.parts) : [],
    );
    expect(chunks.join('')).toBe('You said: hello there (turn 1)');
    const final = events.at(-1)!.payload;
    expect(final?.$case === 'statusUpdate' && textsOf(final.value.status?.message?.parts)).toEqual([
      'You said: hello there (turn 1)',
    ]);

    // Task id and context id are the run's invocation and session; the store answers tasks/get.
    const first = events[0]!.payload!;
    const task = first.$case === 'task' ? first.value : undefined;
    expect(task?.id.startsWith(`${task.contextId}.`)).toBe(true);
    const stored = await client.getTask({ tenant: '', id: task!.id, historyLength: undefined });
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(stored.status).toEqual(final?.$case === 'statusUpdate' ? final.value.status : undefined);
    expect(stored.artifacts.map((a) => [a.artifactId, textsOf(a.parts).join('')])).toEqual([
      ['response-1', 'You said: hello there (turn 1)'],
    ]);
    expect(textsOf(stored.history[0]?.parts)).toEqual(['hello there']);
    const apiSession = (await (
      await fetch(`${server.apiUrl}/apps/bank/users/a2a/sessions/${task!.contextId}`)
    ).json()) as { events: { invocationId: string }[] };
    expect(new Set(apiSession.events.map((e) => e.invocationId))).toEqual(new Set([task!.id]));
  });

  it('message/send: a message with the contextId continues the conversation; without it, a new one starts', async () => {
    const client = await sdkClient(server.baseUrl);
    const first = asTask(await client.sendMessage(message('one')));
    const second = asTask(await client.sendMessage(message('two', { contextId: first.contextId })));
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textsOf(second.status?.message?.parts)).toEqual(['You said: two (turn 2)']);
    const fresh = asTask(await client.sendMessage(message('three')));
    expect(fresh.contextId).not.toBe(first.contextId);
    expect(textsOf(fresh.status?.message?.parts)).toEqual(['You said: three (turn 1)']);
  });

  it('speaks A2A 0.3 on the same endpoint: message/stream frames with kind and final, then tasks/get', async () => {
    const request = {
      jsonrpc: '2.0',
      id: 7,
      method: 'message/stream',
      params: {
        message: { kind: 'message', messageId: 'm-03', role: 'user', parts: [{ kind: 'text', text: 'old client' }] },
      },
    };
    const response = await fetch(server.baseUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(20_000),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const frames = (await response.text())
      .split('\n\n')
      .filter((f) => f.startsWith('data: '))
      .map(
        (f) =>
          JSON.parse(f.slice(6)) as {
            id: number;
            result: { kind: string; final?: boolean; status?: { state: string } };
          },
      );
    expect(frames.every((f) => f.id === 7)).toBe(true);
    expect(frames[0]!.result.kind).toBe('task');
    expect(frames.map((f) => f.result.kind)).toContain('artifact-update');
    expect(frames.at(-1)!.result).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    const taskId = (frames[0]!.result as unknown as { id: string }).id;
    const get = await fetch(server.baseUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tasks/get', params: { id: taskId } }),
    });
    expect(((await get.json()) as { result: unknown }).result).toMatchObject({
      kind: 'task',
      id: taskId,
      status: { state: 'completed' },
    });
  });
});
