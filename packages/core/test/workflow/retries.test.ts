import { describe, expect, it } from 'vitest';
import { node, RequestInput, Workflow, type NodeContext } from '@troupe/core';
import { session } from './harness.js';

// retryConfig (SPEC §17, §17.1): exactly maxAttempts tries, each a fresh try. A node's children
// (a nested workflow's nodes, ctx.runNode's children) failing is the node's failure, so its retries
// apply; and a try resumed after a pause works from its own children, not an earlier try's.

const FAST = { initialDelayMs: 1, jitter: 0 };

/** A node function that throws on its first call only, and says which call succeeded. */
function failsOnce(label: string) {
  let calls = 0;
  return {
    fn: (): string => {
      calls += 1;
      if (calls === 1) throw new Error(`${label} failed once`);
      return `${label} ok on call ${calls}`;
    },
    calls: () => calls,
  };
}

describe('a node whose children fail', () => {
  it('a nested workflow node with retryConfig is tried again when an inner node fails', async () => {
    const flaky = failsOnce('inner');
    const inner = new Workflow({ name: 'inner', edges: [['START', node(flaky.fn, { name: 'flaky' })]] });
    const s = await session(
      new Workflow({ name: 'outer', edges: [['START', node(inner, { retryConfig: { maxAttempts: 3, ...FAST } })]] }),
    );
    const result = await s.send('go');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('inner ok on call 2');
    expect(flaky.calls()).toBe(2);
    const failedTries = (await s.events()).filter(
      (e) => e.actions.agentState?.node === 'failed' && e.nodeInfo?.path === 'outer.inner',
    );
    expect(failedTries).toHaveLength(1);
  });

  it('a node with retryConfig is tried again when a ctx.runNode child fails', async () => {
    const flaky = failsOnce('child');
    const child = node(flaky.fn, { name: 'child' });
    const parent = node(async (ctx: NodeContext) => (await ctx.runNode(child)).output, {
      name: 'parent',
      retryConfig: { maxAttempts: 2, ...FAST },
    });
    const result = await (await session(new Workflow({ name: 'w', edges: [['START', parent]] }))).send('go');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('child ok on call 2');
  });

  it('without retryConfig the child failure ends the run, naming the child', async () => {
    const flaky = failsOnce('child');
    const child = node(flaky.fn, { name: 'child' });
    const parent = node(async (ctx: NodeContext) => (await ctx.runNode(child)).output, { name: 'parent' });
    const result = await (await session(new Workflow({ name: 'w', edges: [['START', parent]] }))).send('go');
    expect(result.error).toMatchObject({ code: 'NODE_FAILED', node: 'w.parent.child@1' });
    expect(flaky.calls()).toBe(1);
  });
});

describe('a try that pauses after an earlier try failed', () => {
  it('resumes with its own children, not the failed try’s', async () => {
    let childCalls = 0;
    const seen: string[] = [];
    const child = node(() => `child#${(childCalls += 1)}`, { name: 'child' });
    const ask = node(() => new RequestInput({ message: 'ok?' }), { name: 'ask' });
    const parent = node(
      async (ctx: NodeContext) => {
        const got = await ctx.runNode(child);
        seen.push(`try ${ctx.attemptCount} got ${String(got.output)}`);
        if (ctx.attemptCount === 1) throw new Error('transient');
        const answer = await ctx.runNode(ask);
        if (answer.interruptIds.length > 0) return undefined;
        return `${String(got.output)} + ${String(answer.output)}`;
      },
      { name: 'parent', retryConfig: { maxAttempts: 2, ...FAST } },
    );
    const s = await session(new Workflow({ name: 'w', edges: [['START', parent]] }));
    expect((await s.send('go')).status).toBe('interrupted');
    const resumed = await s.send('yes');
    expect(resumed.output).toBe('child#2 + yes');
    expect(seen).toEqual(['try 1 got child#1', 'try 2 got child#2', 'try 2 got child#2']);
    expect(childCalls).toBe(2);
  });
});
