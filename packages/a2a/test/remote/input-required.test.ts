import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { AgentTool, LlmAgent, ParallelAgent, Runner, getFunctionResponses } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { SqliteSessionService } from '@troupe/sqlite';
import { RemoteA2aAgent } from '../../src/remote/index.js';
import { runnerFor, scriptedServer } from './helpers.js';
import type { Turn } from './scripted-executor.js';

/** Asks for the city, then answers with the weather there. */
async function cityWeather(turn: Turn): Promise<void> {
  turn.open();
  if (!turn.followUp) {
    turn.ask('Which city?');
    return;
  }
  turn.chunk(`Sunny in ${turn.text}.`);
  turn.complete();
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('a remote input-required', () => {
  it('pauses the run with an input interrupt; the answer continues the same remote task', async () => {
    const server = await scriptedServer(cityWeather);
    const { runner, sessionId, events } = await runnerFor(
      new RemoteA2aAgent({ name: 'Weather', agentCard: server.url }),
    );

    const paused = await runner.run({ userId: 'u', sessionId, newMessage: 'Weather please' });
    expect(paused.status).toBe('interrupted');
    const [interrupt] = paused.interrupts;
    const taskId = server.executor.received[0]!.taskId;
    expect(interrupt).toMatchObject({
      kind: 'input',
      message: 'Which city?',
      toolName: 'Weather',
      toolCallId: taskId,
      agentPath: 'Weather',
    });

    const done = await runner.resume({ userId: 'u', sessionId, responses: { [interrupt!.id]: 'Lyon' } });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('Sunny in Lyon.');
    expect(server.executor.received.map((r) => [r.taskId, r.text, r.followUp])).toEqual([
      [taskId, 'Weather please', false],
      [taskId, 'Lyon', true],
    ]);
    expect((await events()).filter((e) => e.author === 'Weather' && e.content)).toHaveLength(1);
  });

  it('a second question on the same task is a new interrupt', async () => {
    const server = await scriptedServer(async (turn) => {
      turn.open();
      if (!turn.followUp) return turn.ask('Which city?');
      if (turn.text === 'Lyon') return turn.ask('Celsius or Fahrenheit?');
      turn.complete(`Weather in ${turn.text}.`);
    });
    const { runner, sessionId } = await runnerFor(new RemoteA2aAgent({ name: 'Weather', agentCard: server.url }));
    const first = await runner.run({ userId: 'u', sessionId, newMessage: 'Weather please' });
    const second = await runner.resume({ userId: 'u', sessionId, responses: { [first.interrupts[0]!.id]: 'Lyon' } });
    expect(second.status).toBe('interrupted');
    expect(second.interrupts[0]!.message).toBe('Celsius or Fahrenheit?');
    expect(second.interrupts[0]!.id).not.toBe(first.interrupts[0]!.id);
    const done = await runner.resume({ userId: 'u', sessionId, responses: { [second.interrupts[0]!.id]: 'Celsius' } });
    expect(done.output).toBe('Weather in Celsius.');
    expect(new Set(server.executor.received.map((r) => r.taskId)).size).toBe(1);
  });

  it('is resumed by another runner and agent instance over the same store (as a new process would)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-remote-'));
    dirs.push(dir);
    const server = await scriptedServer(cityWeather);
    const make = () => {
      const sessionService = new SqliteSessionService({ path: join(dir, 's.db') });
      return {
        sessionService,
        runner: new Runner({
          appName: 'app',
          agent: new RemoteA2aAgent({ name: 'Weather', agentCard: server.url }),
          sessionService,
        }),
      };
    };
    const one = make();
    const session = await one.sessionService.createSession({ appName: 'app', userId: 'u' });
    const paused = await one.runner.run({ userId: 'u', sessionId: session.id, newMessage: 'Weather please' });
    await one.sessionService.close();

    const two = make();
    const done = await two.runner.resume({
      userId: 'u',
      sessionId: session.id,
      responses: { [paused.interrupts[0]!.id]: 'Nice' },
    });
    await two.sessionService.close();
    expect(done.output).toBe('Sunny in Nice.');
    expect(server.executor.received.map((r) => r.taskId)).toEqual([
      server.executor.received[0]!.taskId,
      server.executor.received[0]!.taskId,
    ]);
  });

  it('inside an AgentTool, the tool call pauses and resumes with the remote answer as its result', async () => {
    const server = await scriptedServer(cityWeather);
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'Weather', args: { request: 'weather?' }, id: 'c1' }] },
      'It is sunny in Lyon.',
    ]);
    const tool = new AgentTool({ agent: new RemoteA2aAgent({ name: 'Weather', agentCard: server.url }) });
    const { runner, sessionId, events } = await runnerFor(new LlmAgent({ name: 'Assistant', model, tools: [tool] }));
    const paused = await runner.run({ userId: 'u', sessionId, newMessage: 'How is the weather?' });
    expect(paused.status).toBe('interrupted');
    expect(paused.interrupts[0]!.agentPath).toBe('Assistant/Weather');
    const done = await runner.resume({ userId: 'u', sessionId, responses: { [paused.interrupts[0]!.id]: 'Lyon' } });
    expect(done.output).toBe('It is sunny in Lyon.');
    const responses = (await events()).flatMap((e) => getFunctionResponses(e));
    expect(responses.map((r) => r.response)).toEqual([{ result: 'Sunny in Lyon.' }]);
    expect(server.executor.received.map((r) => r.text)).toEqual(['weather?', 'Lyon']);
  });

  it('keeps a question open when a resume answers only another interrupt of the run', async () => {
    const server = await scriptedServer(cityWeather);
    const both = new ParallelAgent({
      name: 'Both',
      subAgents: [
        new RemoteA2aAgent({ name: 'A', agentCard: server.url }),
        new RemoteA2aAgent({ name: 'B', agentCard: server.url }),
      ],
    });
    const { runner, sessionId } = await runnerFor(both);
    const paused = await runner.run({ userId: 'u', sessionId, newMessage: 'Weather please' });
    expect(paused.interrupts.map((i) => i.agentPath).sort()).toEqual(['Both/A', 'Both/B']);
    const forA = paused.interrupts.find((i) => i.agentPath === 'Both/A')!;
    const forB = paused.interrupts.find((i) => i.agentPath === 'Both/B')!;
    const half = await runner.resume({ userId: 'u', sessionId, responses: { [forA.id]: 'Lyon' } });
    expect(half.status).toBe('interrupted');
    expect(half.interrupts.map((i) => i.id)).toEqual([forB.id]);
    const done = await runner.resume({ userId: 'u', sessionId, responses: { [forB.id]: 'Nice' } });
    expect(done.status).toBe('completed');
    expect(done.output).toEqual({ A: 'Sunny in Lyon.', B: 'Sunny in Nice.' });
    expect(
      server.executor.received
        .filter((r) => r.followUp)
        .map((r) => r.text)
        .sort(),
    ).toEqual(['Lyon', 'Nice']);
  });

  it('does not send an answer twice: if the remote already moved on (the answer went out before a crash), it follows the task', async () => {
    const server = await scriptedServer(cityWeather);
    const { runner, sessionId } = await runnerFor(new RemoteA2aAgent({ name: 'Weather', agentCard: server.url }));
    const paused = await runner.run({ userId: 'u', sessionId, newMessage: 'Weather please' });
    const taskId = server.executor.received[0]!.taskId;
    // What a process that crashed right after answering left behind: the answer delivered, nothing stored.
    const client = await new ClientFactory().createFromUrl(server.url);
    await client.sendMessage({
      tenant: '',
      message: {
        messageId: 'm-crashed',
        taskId,
        contextId: server.executor.received[0]!.contextId,
        role: 1,
        parts: [
          { content: { $case: 'text', value: 'Brest' }, metadata: undefined, filename: '', mediaType: 'text/plain' },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    });
    const done = await runner.resume({ userId: 'u', sessionId, responses: { [paused.interrupts[0]!.id]: 'Brest' } });
    expect(done.output).toBe('Sunny in Brest.');
    expect(server.executor.received).toHaveLength(2);
  });

  it('regression: a server that rebuilds its status message on every read (a new message id) still gets the answer, once', async () => {
    const server = await scriptedServer(cityWeather);
    // What a2aApp does: the task read back from its store carries a status message with a new id.
    const rebuilding: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!String(init?.body ?? '').includes('"GetTask"')) return response;
      const body = (await response.json()) as { result?: { status?: { message?: { messageId?: string } } } };
      if (body.result?.status?.message) body.result.status.message.messageId = `rebuilt-${Math.random()}`;
      return Response.json(body);
    };
    const { runner, sessionId } = await runnerFor(
      new RemoteA2aAgent({ name: 'Weather', agentCard: server.url, fetch: rebuilding }),
    );
    const paused = await runner.run({ userId: 'u', sessionId, newMessage: 'Weather please' });
    const done = await runner.resume({ userId: 'u', sessionId, responses: { [paused.interrupts[0]!.id]: 'Lyon' } });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('Sunny in Lyon.');
    expect(server.executor.received.map((r) => r.text)).toEqual(['Weather please', 'Lyon']);
  });
});
