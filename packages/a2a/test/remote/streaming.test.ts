import { describe, expect, it } from 'vitest';
import { FunctionAgent, SequentialAgent, textOf } from '@troupe/core';
import { RemoteA2aAgent } from '../../src/remote/index.js';
import { collect, runnerFor, scriptedServer, sse } from './helpers.js';

const dataPart = (value: unknown) => ({
  content: { $case: 'data' as const, value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

describe('RemoteA2aAgent against an official-SDK A2A server', () => {
  it('streams the remote output as partial events, then stores one final event with the whole text', async () => {
    const server = await scriptedServer(async (turn) => {
      turn.open('Looking it up');
      turn.chunk('Sunny, ');
      turn.chunk('21 degrees.');
      turn.complete();
    });
    const remote = new RemoteA2aAgent({ name: 'Weather', agentCard: server.url });
    const { runner, sessionId, events } = await runnerFor(remote);

    const { events: seen, result } = await collect(
      runner.runAsync({ userId: 'u', sessionId, newMessage: 'Weather in Paris?', runConfig: sse }),
    );

    expect(result.status).toBe('completed');
    expect(result.output).toBe('Sunny, 21 degrees.');
    expect(seen.filter((e) => e.partial).map((e) => e.content!.parts[0])).toEqual([
      { text: 'Looking it up', thought: true },
      { text: 'Sunny, ' },
      { text: '21 degrees.' },
    ]);
    const finals = (await events()).filter((e) => e.author === 'Weather' && e.content);
    expect(finals).toHaveLength(1);
    expect(textOf(finals[0]!)).toBe('Sunny, 21 degrees.');
    expect(finals[0]!.actions.agentState).toMatchObject({
      remoteTask: { state: 'completed', taskId: server.executor.received[0]!.taskId },
    });
    expect(server.executor.received.map((r) => r.text)).toEqual(['Weather in Paris?']);
  });

  it('without streaming in the run config, yields no partial events but the same final answer', async () => {
    const server = await scriptedServer(async (turn) => {
      turn.open();
      turn.chunk('Hello');
      turn.complete();
    });
    const { runner, sessionId } = await runnerFor(new RemoteA2aAgent({ name: 'Greeter', agentCard: server.url }));
    const { events, result } = await collect(runner.runAsync({ userId: 'u', sessionId, newMessage: 'hi' }));
    expect(events.some((e) => e.partial)).toBe(false);
    expect(result.output).toBe('Hello');
  });

  it('uses message/send when the card does not stream, and reads the answer from the final status message', async () => {
    const server = await scriptedServer(
      async (turn) => {
        turn.open();
        turn.complete('Blocking answer.');
      },
      { streaming: false },
    );
    const { runner, sessionId } = await runnerFor(new RemoteA2aAgent({ name: 'Plain', agentCard: server.url }));
    const { events, result } = await collect(
      runner.runAsync({ userId: 'u', sessionId, newMessage: 'hi', runConfig: sse }),
    );
    expect(result.output).toBe('Blocking answer.');
    expect(events.some((e) => e.partial)).toBe(false);
    expect(server.requests.map((r) => r.method)).toEqual(['SendMessage']);
  });

  it('gives data-only answers as the output, and their JSON as the text', async () => {
    const server = await scriptedServer(async (turn) => {
      turn.open();
      turn.artifact([dataPart({ city: 'Paris', celsius: 21 })]);
      turn.complete();
    });
    const { runner, sessionId } = await runnerFor(
      new RemoteA2aAgent({ name: 'Data', agentCard: server.url, outputKey: 'weather' }),
    );
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'Paris' });
    expect(result.output).toEqual({ city: 'Paris', celsius: 21 });
    expect(result.state.weather).toEqual({ city: 'Paris', celsius: 21 });
    expect(textOf(result.events.at(-1)!)).toBe('{"city":"Paris","celsius":21}');
  });

  it('continues the remote conversation on the next turn (same contextId, new task)', async () => {
    const server = await scriptedServer(async (turn) => {
      turn.open();
      turn.chunk(`You said: ${turn.text}`);
      turn.complete();
    });
    const { runner, sessionId } = await runnerFor(new RemoteA2aAgent({ name: 'Echo', agentCard: server.url }));
    await runner.run({ userId: 'u', sessionId, newMessage: 'one' });
    const second = await runner.run({ userId: 'u', sessionId, newMessage: 'two' });
    expect(second.output).toBe('You said: two');
    const [a, b] = server.executor.received;
    expect(b!.contextId).toBe(a!.contextId);
    expect(b!.taskId).not.toBe(a!.taskId);
    expect(b!.text).toBe('two');
  });

  it('as a workflow step, sends what earlier steps said as context, then the request', async () => {
    const server = await scriptedServer(async (turn) => {
      turn.open();
      turn.chunk('Summary done.');
      turn.complete();
    });
    const research = new FunctionAgent({ name: 'Research', run: () => 'Paris has 2.1 million people.' });
    const pipeline = new SequentialAgent({
      name: 'Pipeline',
      subAgents: [research, new RemoteA2aAgent({ name: 'Summarizer', agentCard: server.url })],
    });
    const { runner, sessionId } = await runnerFor(pipeline);
    const result = await runner.run({
      userId: 'u',
      sessionId,
      newMessage: 'Tell me about Paris',
      input: { request: 'Tell me about Paris' },
    });
    expect(result.output).toBe('Summary done.');
    expect(server.executor.received[0]!.text).toBe(
      'For context: [Research] said: Paris has 2.1 million people.\nTell me about Paris',
    );
  });

  it('takes its description from the card once loaded, and sends the configured headers everywhere', async () => {
    const server = await scriptedServer(
      async (turn) => {
        turn.open();
        turn.complete('ok');
      },
      { description: 'Knows the weather.' },
    );
    let calls = 0;
    const remote = new RemoteA2aAgent({
      name: 'Weather',
      agentCard: `${server.url}/.well-known/agent-card.json`,
      headers: () => ({ authorization: `Bearer t${++calls}` }),
    });
    expect(remote.description).toBe('');
    expect((await remote.loadCard()).name).toBe('Scripted');
    expect(remote.description).toBe('Knows the weather.');
    expect(new RemoteA2aAgent({ name: 'Given', agentCard: server.card }).description).toBe('Knows the weather.');
    expect(new RemoteA2aAgent({ name: 'Own', description: 'Mine.', agentCard: server.card }).description).toBe('Mine.');
    const { runner, sessionId } = await runnerFor(remote);
    await runner.run({ userId: 'u', sessionId, newMessage: 'hi' });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer t2']);
  });
});
