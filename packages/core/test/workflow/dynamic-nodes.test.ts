import { describe, expect, it } from 'vitest';
import {
  InMemoryRunner,
  InMemorySessionService,
  node,
  RequestInput,
  Workflow,
  type Event,
  type NodeContext,
} from '@troupe/core';
import { deferred } from '../wait.js';
import { session } from './harness.js';

// ctx.runNode (SPEC §17 "Dynamic nodes", "Durability"): a child's run id names the run, so a resumed
// parent gets back each call's own recorded result, and a run id is never run twice.

/** A child that says which item and which run it was. */
const labelled = () => node((ctx: NodeContext, item: unknown) => `${String(item)}@${ctx.runId}`, { name: 'child' });
/** A child that pauses until answered; its answer is its output. */
const ask = () => node(() => new RequestInput({ message: 'go on?' }), { name: 'ask' });

describe('ctx.runNode', () => {
  for (const store of ['memory', 'async'] as const)
    it(`numbers runs in call order, so a resumed parent gets each call its own result (${store} appends)`, async () => {
      await callOrderSurvivesResume(store);
    });

  it('a second call with a run id already used in this run gets that run back: the child runs once', async () => {
    let runs = 0;
    const child = node(
      (_ctx: NodeContext, item: unknown) => {
        runs += 1;
        return item;
      },
      { name: 'child' },
    );
    const pause = ask();
    const parent = node(
      async (ctx: NodeContext) => {
        const a = await ctx.runNode(child, 'A', { runId: 'same' });
        const b = await ctx.runNode(child, 'B', { runId: 'same' });
        const answer = await ctx.runNode(pause);
        if (answer.interruptIds.length > 0) return undefined;
        return `${String(a.output)},${String(b.output)}`;
      },
      { name: 'parent' },
    );
    const s = await session(new Workflow({ name: 'w', edges: [['START', parent]] }));
    expect((await s.send('go')).status).toBe('interrupted');
    const resumed = await s.send('yes');
    expect(resumed.output).toBe('A,A');
    expect(runs).toBe(1);
  });

  it('counts toward maxSteps, in a dynamic workflow and in a graph node', async () => {
    const child = labelled();
    const loop = async (ctx: NodeContext) => {
      for (let i = 0; i < 50; i++) await ctx.runNode(child, i);
      return 'done';
    };
    for (const workflow of [
      new Workflow({ name: 'dyn', maxSteps: 5, dynamicEntry: loop }),
      new Workflow({ name: 'graph', maxSteps: 5, edges: [['START', node(loop, { name: 'loop' })]] }),
    ]) {
      const s = await session(workflow);
      const result = await s.send('go');
      expect(result.status, workflow.name).toBe('limit');
      expect(result.stopReason).toBe('maxSteps');
      const childRuns = (await s.events()).filter(
        (e) => e.actions.agentState?.node === 'ended' && e.nodeInfo?.path.includes('.child@'),
      );
      // The graph's own node is one of the five runs; a dynamic workflow's entry is the workflow itself.
      expect(childRuns).toHaveLength(workflow.name === 'dyn' ? 5 : 4);
    }
  });

  it('starts no child once the run is cancelled', async () => {
    for (const shape of ['dynamic', 'graph'] as const) {
      const entered = deferred();
      const release = deferred();
      const finished = deferred();
      let childRuns = 0;
      let refusal: unknown;
      const child = node(() => (childRuns += 1), { name: 'child' });
      // Work that does not watch the signal, then a child: the child must not start after the abort.
      const body = async (ctx: NodeContext) => {
        entered.resolve();
        await release.promise;
        try {
          await ctx.runNode(child);
        } catch (error) {
          refusal = error;
        } finally {
          finished.resolve();
        }
        return 'end';
      };
      const workflow =
        shape === 'dynamic'
          ? new Workflow({ name: 'w', dynamicEntry: body })
          : new Workflow({ name: 'w', edges: [['START', node(body, { name: 'work' })]] });
      const runner = new InMemoryRunner({ agent: workflow });
      const { id } = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
      const controller = new AbortController();
      const run = runner.run({ userId: 'u', sessionId: id, newMessage: 'go', abortSignal: controller.signal });
      await entered.promise;
      controller.abort();
      expect((await run).status, shape).toBe('cancelled');
      // The body goes on after the run ended (it ignores the signal): its runNode refuses to start the child.
      release.resolve();
      await finished.promise;
      expect(childRuns, shape).toBe(0);
      expect(refusal, shape).toBeDefined();
    }
  });
});

/** Appends that finish a turn later (a store with I/O): the runner takes the asynchronous path. */
class SlowAppends extends InMemorySessionService {
  override async appendEvent(params: Parameters<InMemorySessionService['appendEvent']>[0]): Promise<Event> {
    await new Promise((resolve) => setImmediate(resolve));
    return super.appendEvent(params);
  }
}

async function callOrderSurvivesResume(store: 'memory' | 'async'): Promise<void> {
  const child = labelled();
  const pause = ask();
  const seen: string[] = [];
  const parent = node(
    async (ctx: NodeContext) => {
      // The first call is made while the parent's start record is still being stored.
      const results = await Promise.all(['first', 'second', 'third'].map((item) => ctx.runNode(child, item)));
      const outputs = results.map((r) => r.output).join(' ');
      seen.push(outputs);
      const answer = await ctx.runNode(pause);
      if (answer.interruptIds.length > 0) return undefined;
      return outputs;
    },
    { name: 'parent' },
  );
  const s = await session(
    new Workflow({ name: 'w', edges: [['START', parent]] }),
    store === 'async' ? new SlowAppends() : undefined,
  );
  const paused = await s.send('go');
  expect(paused.status).toBe('interrupted');
  // The children ran in call order too: their records are stored in run id order.
  expect((await s.ended()).filter((path) => path.includes('.child@'))).toEqual([
    'w.parent.child@1@1',
    'w.parent.child@2@2',
    'w.parent.child@3@3',
  ]);
  const resumed = await s.send('yes');
  expect(resumed.status).toBe('completed');
  expect(seen).toEqual(['first@1 second@2 third@3', 'first@1 second@2 third@3']);
  expect(resumed.output).toBe('first@1 second@2 third@3');
}
