import { describe, expect, it } from 'vitest';
import {
  createEvent,
  InMemorySessionService,
  JoinNode,
  node,
  RequestInput,
  Runner,
  Workflow,
  type AppendEventParams,
  type Event,
  type NodeContext,
} from '@troupe/core';
import { nodeRuns, session } from './harness.js';

/** The node records of the events, as `<record> <path>` in stored order (node events as `event <path>`). */
function records(events: readonly Event[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (!e.nodeInfo?.runId) continue;
    const state = e.actions.agentState as { node?: string; alone?: boolean } | undefined;
    const kind = state?.node ? `${state.node}${state.alone ? ' alone' : ''}` : 'event';
    out.push(`${kind} ${e.nodeInfo.path}`);
  }
  return out;
}

describe('node records: a start record once a run takes time or leaves a trace', () => {
  it('a node that returns at once stores one record, its end, alone and with its input; one that awaits stores its start first', async () => {
    const now = node((_ctx, text: string) => text.toUpperCase(), { name: 'now' });
    const later = node(
      async (_ctx, text: string) => {
        await Promise.resolve();
        return `${text}!`;
      },
      { name: 'later' },
    );
    const s = await session(new Workflow({ name: 'w', edges: [['START', now, later]] }));
    const result = await s.send('hi');
    expect(result.output).toBe('HI!');
    const events = await s.events();
    expect(records(events)).toEqual(['ended alone w.now', 'started w.later', 'ended w.later']);
    const nowEnd = events.find((e) => e.nodeInfo?.path === 'w.now')!;
    expect(nowEnd.actions.agentState).toEqual({ node: 'ended', alone: true, input: 'hi' });
    expect(nowEnd.output).toBe('HI');
    expect(events.find((e) => e.nodeInfo?.path === 'w.later')!.actions.agentState).toEqual({
      node: 'started',
      input: 'HI',
    });
    expect(nodeRuns(events).map((r) => r.path)).toEqual(['w.now', 'w.later']);
  });

  it('a JoinNode stores one record, its end, alone with the joined input', async () => {
    const a = node(() => 1, { name: 'a' });
    const b = node(() => 2, { name: 'b' });
    const join = new JoinNode({ name: 'join' });
    const s = await session(new Workflow({ name: 'w', edges: [['START', [a, b], join]] }));
    const result = await s.send('go');
    expect(result.output).toEqual({ a: 1, b: 2 });
    const events = await s.events();
    expect(records(events)).toEqual(['ended alone w.a', 'ended alone w.b', 'ended alone w.join']);
    expect(events.find((e) => e.nodeInfo?.path === 'w.join')!.actions.agentState).toEqual({
      node: 'ended',
      alone: true,
      input: { a: 1, b: 2 },
    });
  });

  it('an event emitted without awaiting comes after the start record, in the order emitted', async () => {
    const chatty = node(
      (ctx: NodeContext) => {
        void ctx.emit(createEvent({ content: { role: 'model', parts: [{ text: 'one' }] } }));
        void ctx.emit(createEvent({ content: { role: 'model', parts: [{ text: 'two' }] } }));
        return 'done';
      },
      { name: 'chatty' },
    );
    const s = await session(new Workflow({ name: 'w', edges: [['START', chatty]] }));
    await s.send('go');
    const events = await s.events();
    expect(records(events)).toEqual(['started w.chatty', 'event w.chatty', 'event w.chatty', 'ended w.chatty']);
    const texts = events.filter((e) => e.content?.role === 'model').map((e) => e.content!.parts[0]);
    expect(texts).toEqual([{ text: 'one' }, { text: 'two' }]);
  });

  it("a node's start record comes before its children's records, and a resumed run skips what ended alone", async () => {
    const calls: string[] = [];
    const double = node(
      (_ctx, text: string) => {
        calls.push(`double ${text}`);
        return text + text;
      },
      { name: 'double' },
    );
    const parent = node(
      async (ctx: NodeContext, text: string) => {
        calls.push('parent');
        const { output } = await ctx.runNode(double, text);
        return output;
      },
      { name: 'parent' },
    );
    const ask = node((_ctx, text: string) => new RequestInput({ message: `Keep ${text}?` }), { name: 'ask' });
    const s = await session(new Workflow({ name: 'w', edges: [['START', parent, ask]] }));
    const paused = await s.send('ab');
    expect(paused.status).toBe('interrupted');
    expect(records(await s.events())).toEqual([
      'started w.parent',
      'ended alone w.parent.double@1',
      'ended w.parent',
      'started w.ask',
      'event w.ask',
    ]);
    const resumed = await s.send('yes');
    expect(resumed.output).toBe('yes');
    // Nothing that ended ran again: parent and its child ran once.
    expect(calls).toEqual(['parent', 'double ab']);
  });

  it('a node that throws at once stores its start record before its failed try', async () => {
    let tries = 0;
    const flaky = node(
      () => {
        tries += 1;
        if (tries === 1) throw new Error('not yet');
        return 'ok';
      },
      { name: 'flaky', retryConfig: { maxAttempts: 2, initialDelayMs: 1, jitter: 0 } },
    );
    const s = await session(new Workflow({ name: 'w', edges: [['START', flaky]] }));
    const result = await s.send('go');
    expect(result.output).toBe('ok');
    expect(records(await s.events())).toEqual([
      'started w.flaky',
      'failed w.flaky',
      'started w.flaky',
      'ended w.flaky',
    ]);
  });
});

describe('a try that ended', () => {
  it('refuses what a node that threw at once emits later, and stores nothing of it', async () => {
    let late: Promise<void> | undefined;
    const hasty = node(
      (ctx) => {
        late = Promise.resolve().then(() =>
          ctx.emit(createEvent({ content: { role: 'model', parts: [{ text: 'late' }] } })),
        );
        throw new Error('gave up');
      },
      { name: 'hasty' },
    );
    const s = await session(new Workflow({ name: 'w', edges: [['START', hasty]] }));
    const result = await s.send('go');
    expect(result.status).toBe('failed');
    await expect(late).rejects.toThrow('no longer taken');
    const events = await s.events();
    expect(events.some((e) => e.content?.parts.some((p) => 'text' in p && p.text === 'late'))).toBe(false);
    // Its start, then the run's failure, stored as the node's error event.
    expect(records(events)).toEqual(['started w.hasty', 'event w.hasty']);
    expect(events.at(-1)).toMatchObject({ errorCode: 'NODE_FAILED', nodeInfo: { path: 'w.hasty', attempt: 1 } });
  });
});

describe('a node that fails while its start record is being stored', () => {
  it('fails the run with its error, and no rejection goes unhandled', async () => {
    /** A store whose writes take a while, as a database's do. */
    class SlowStore extends InMemorySessionService {
      override async appendEvent(params: AppendEventParams): Promise<Event> {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return super.appendEvent(params);
      }
    }
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const broken = node(() => Promise.reject(new Error('backend down')), { name: 'broken' });
      const runner = new Runner({
        appName: 'app',
        agent: new Workflow({ name: 'w', edges: [['START', broken]] }),
        sessionService: new SlowStore(),
      });
      const { id } = await runner.sessionService.createSession({ appName: 'app', userId: 'u' });
      const result = await runner.run({ userId: 'u', sessionId: id, newMessage: 'go' });
      expect(result.status).toBe('failed');
      expect(result.error?.message).toMatch(/backend down/);
      // Node reports an unhandled rejection as the turn it happened in ends: long before the run did.
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
