import { describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { RunDrainedError, textOf, type Event, type Runner } from '@troupe/core';
import { RemoteA2aAgent } from '../../src/remote/index.js';
import { eventually, runnerFor, scriptedServer } from './helpers.js';
import { gate, twoHalves } from './scripted-executor.js';

async function remoteState(url: string, taskId: string): Promise<TaskState | undefined> {
  const client = await new ClientFactory().createFromUrl(url);
  return (await client.getTask({ tenant: '', id: taskId })).status?.state;
}

/** Runs a turn with streaming on and aborts it (with `reason`) at the first streamed text. */
async function abortAtFirstText(
  runner: Runner,
  sessionId: string,
  reason?: unknown,
): Promise<{ events: Event[]; invocationId: string }> {
  const controller = new AbortController();
  const events: Event[] = [];
  try {
    for await (const event of runner.runAsync({
      userId: 'u',
      sessionId,
      newMessage: 'go',
      abortSignal: controller.signal,
      runConfig: { streaming: 'sse' },
    })) {
      events.push(event);
      if (event.partial && textOf(event)) controller.abort(reason);
    }
  } catch {
    // The run ends by throwing its cancellation.
  }
  return { events, invocationId: events[0]!.invocationId };
}

describe('stopping a run that waits for a remote agent', () => {
  it('a cancelled run cancels the remote task (tasks/cancel) and stores nothing of it', async () => {
    const server = await scriptedServer(async (turn) => {
      turn.open();
      turn.chunk('Half of ');
      await turn.until(new Promise(() => undefined));
    });
    const { runner, sessionId, events } = await runnerFor(new RemoteA2aAgent({ name: 'Slow', agentCard: server.url }));

    const { events: seen } = await abortAtFirstText(runner, sessionId);

    expect(seen.at(-1)!.errorCode).toBe('CANCELLED');
    const taskId = server.executor.received[0]!.taskId;
    await eventually(() => server.executor.canceled.includes(taskId), 5_000, 'the remote cancel');
    await eventually(
      async () => (await remoteState(server.url, taskId)) === TaskState.TASK_STATE_CANCELED,
      5_000,
      'the remote task to be canceled',
    );
    const stored = await events();
    expect(stored.filter((e) => e.errorCode === 'CANCELLED')).toHaveLength(1);
    expect(stored.some((e) => e.author === 'Slow' && e.content)).toBe(false);
  });

  it('a drained run leaves the remote task running; the resume follows it and stores its answer once', async () => {
    const release = gate();
    const server = await scriptedServer(twoHalves(release.promise));
    const { runner, sessionId, events } = await runnerFor(new RemoteA2aAgent({ name: 'Slow', agentCard: server.url }));
    const drained = await abortAtFirstText(runner, sessionId, new RunDrainedError('shutting down'));
    expect((await events()).some((e) => e.errorCode)).toBe(false);
    release.open();

    const resumed = await runner.resume({ userId: 'u', sessionId, invocationId: drained.invocationId });
    expect(resumed.status).toBe('completed');
    expect(resumed.output).toBe('First half, second half.');
    expect(server.executor.canceled).toEqual([]);
    expect(server.executor.received).toHaveLength(1);
    expect((await events()).filter((e) => e.author === 'Slow' && e.content)).toHaveLength(1);
  });

  it('a resume while the remote still works resubscribes to the task and streams the rest', async () => {
    const release = gate();
    const server = await scriptedServer(twoHalves(release.promise));
    const { runner, sessionId, events } = await runnerFor(new RemoteA2aAgent({ name: 'Slow', agentCard: server.url }));
    const drained = await abortAtFirstText(runner, sessionId, new RunDrainedError('shutting down'));
    const resuming = runner.resume({ userId: 'u', sessionId, invocationId: drained.invocationId });
    await eventually(() => server.requests.some((r) => r.method === 'SubscribeToTask'), 5_000, 'the resubscribe');
    release.open();
    const resumed = await resuming;
    expect(resumed.output).toBe('First half, second half.');
    expect(server.executor.received).toHaveLength(1);
    expect((await events()).filter((e) => e.author === 'Slow' && e.content)).toHaveLength(1);
  });

  it('a remote silent for longer than timeoutMs fails the run with A2A_TIMEOUT and is canceled', async () => {
    const server = await scriptedServer(async (turn) => {
      turn.open();
      await turn.until(new Promise(() => undefined));
    });
    const { runner, sessionId } = await runnerFor(
      new RemoteA2aAgent({ name: 'Silent', agentCard: server.url, timeoutMs: 300 }),
    );
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'go' });
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'A2A_TIMEOUT' });
    expect(result.error!.message).toContain('timeoutMs (300 ms)');
    await eventually(() => server.executor.canceled.length === 1, 5_000, 'the remote cancel');
  });
});
