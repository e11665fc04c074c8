import { SendMessageRequest, TaskState, type StreamResponse } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FunctionAgent, InMemorySessionService, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { a2aApp, type A2aApp } from '@troupe/a2a';
import { inProcessClient } from './helpers/sdk-client.js';

// The views of a task besides the stream that started it: an immediate answer, a second stream,
// a limited history, structured input, and what shutting down does. In process, through the SDK client.

const clientOf = (app: A2aApp): Promise<Client> => inProcessClient(app, 'http://views.example');

const send = (text: string, extra: Record<string, unknown> = {}) =>
  SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
    ...extra,
  });
const stateOf = (update: StreamResponse) =>
  update.payload?.$case === 'statusUpdate' ? TaskState[update.payload.value.status!.state] : update.payload?.$case;

describe('task views', () => {
  it('returnImmediately answers with the working task; tasks/resubscribe follows it to the end; historyLength limits the history', async () => {
    const model = new ScriptedModel([{ delayMs: 300, reply: { chunks: ['slow ', 'answer'] } }]);
    const app = a2aApp(new LlmAgent({ name: 'Slow', model }), { baseUrl: 'http://views.example' });
    const client = await clientOf(app);

    const started = await client.sendMessage(send('hi', { configuration: { returnImmediately: true } }));
    expect('status' in started && started.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const taskId = 'id' in started ? started.id : '';

    const follow: string[] = [];
    let text = '';
    for await (const update of client.resubscribeTask({ tenant: '', id: taskId })) {
      follow.push(String(stateOf(update)));
      if (update.payload?.$case === 'artifactUpdate')
        for (const p of update.payload.value.artifact!.parts) if (p.content?.$case === 'text') text += p.content.value;
    }
    expect(follow[0]).toBe('task');
    expect(follow.at(-1)).toBe('TASK_STATE_COMPLETED');
    expect(text).toBe('slow answer');

    const done = await client.getTask({ tenant: '', id: taskId, historyLength: 0 });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.history).toEqual([]);
    expect((await client.getTask({ tenant: '', id: taskId, historyLength: undefined })).history).toHaveLength(1);
    await expect(async () => {
      for await (const _ of client.resubscribeTask({ tenant: '', id: taskId })) void _;
    }).rejects.toThrow(`Task '${taskId}' is completed; there is nothing to follow. Read it with tasks/get.`);
  });

  it('a message that is one JSON object is the structured input of the agent, checked against its inputSchema', async () => {
    const adder = new FunctionAgent({
      name: 'Adder',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      run: ({ a, b }) => ({ sum: a + b }),
    });
    const client = await clientOf(a2aApp(adder, { baseUrl: 'http://views.example' }));
    const task = await client.sendMessage(
      SendMessageRequest.fromJSON({
        message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ data: { a: 2, b: 3 } }] },
      }),
    );
    expect('status' in task && task.status?.message?.parts.map((p) => p.content)).toEqual([
      { $case: 'data', value: { sum: 5 } },
    ]);
    const wrong = client.sendMessage(
      SendMessageRequest.fromJSON({ message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ data: { a: 'two' } }] } }),
    );
    await expect(wrong).rejects.toThrow(/The input for agent 'Adder' does not match its inputSchema/);
  });

  it('shutdown lets running tasks finish for the grace period, then cancels them; new ones are refused', async () => {
    const model = new ScriptedModel([{ delayMs: 10_000, reply: 'never' }]);
    const sessionService = new InMemorySessionService();
    const app = a2aApp(new LlmAgent({ name: 'Sleepy', model }), { baseUrl: 'http://views.example', sessionService });
    const client = await clientOf(app);
    const started = await client.sendMessage(send('hi', { configuration: { returnImmediately: true } }));
    const taskId = 'id' in started ? started.id : '';
    const began = Date.now();
    await app.shutdown({ gracePeriodMs: 100 });
    expect(Date.now() - began).toBeLessThan(5_000);
    const task = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(task.status?.message?.parts[0]?.content).toEqual({
      $case: 'text',
      value: 'The server shut down; the task was cancelled after a grace period of 100 ms.',
    });
    await expect(client.sendMessage(send('again'))).rejects.toThrow(
      'This server is shutting down and starts no new tasks.',
    );
    // The conversation made for the refused message is gone again.
    expect((await sessionService.listSessions({ appName: 'Sleepy', userId: 'a2a' })).sessions.map((s) => s.id)).toEqual(
      [task.contextId],
    );
  });
});
