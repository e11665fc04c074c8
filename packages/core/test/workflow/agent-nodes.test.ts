import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  FunctionAgent,
  FunctionTool,
  JoinNode,
  LlmAgent,
  node,
  SequentialAgent,
  TeamAgent,
  Workflow,
  WorkflowAgent,
  type NodeContext,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { session } from './harness.js';

describe('agents as workflow nodes', () => {
  it('an LlmAgent node that pauses for a tool approval resumes where it stopped; finished nodes do not run again', async () => {
    let refunds = 0;
    let prepared = 0;
    const refund = new FunctionTool({
      name: 'refund',
      description: 'Refunds an order.',
      parameters: z.object({ order: z.string() }),
      requireConfirmation: true,
      execute: ({ order }) => {
        refunds += 1;
        return { refunded: order };
      },
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'refund', args: { order: 'A1' } }] }, 'Refunded A1.']);
    const desk = new LlmAgent({ name: 'desk', model, instruction: 'Refund what is asked.', tools: [refund] });
    const prepare = node(
      (_c: NodeContext, text: string) => {
        prepared += 1;
        return `please refund ${text}`;
      },
      { name: 'prepare' },
    );
    const close = node((_c: NodeContext, answer: string) => `closed: ${answer}`, { name: 'close' });
    const s = await session(new Workflow({ name: 'support', edges: [['START', prepare, desk, close]] }));
    const paused = await s.send('A1');
    expect(paused.status).toBe('interrupted');
    expect(paused.interrupts[0]).toMatchObject({ kind: 'confirmation', toolName: 'refund' });
    const done = await s.resume({ [paused.interrupts[0]!.id]: true });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('closed: Refunded A1.');
    expect(refunds).toBe(1);
    expect(prepared).toBe(1);
    // The model was asked twice in all: the call, then the answer after the approved result.
    expect(model.requests).toHaveLength(2);
    // The agent's events carry the node's nodeInfo.
    const deskEvents = (await s.events()).filter((e) => e.author === 'desk');
    expect(deskEvents.every((e) => e.nodeInfo?.path === 'support.desk')).toBe(true);
  });

  it('SequentialAgent and TeamAgent nodes run on the node input; outputs flow on', async () => {
    const upper = new FunctionAgent({ name: 'upper', run: (input) => String(input.request).toUpperCase() });
    const exclaim = new FunctionAgent({ name: 'exclaim', run: (input) => `${String(input.request)}!` });
    const seq = new SequentialAgent({ name: 'seq', subAgents: [upper, exclaim] });
    const team = new TeamAgent({
      name: 'team',
      skills: [new FunctionAgent({ name: 'len', run: (input) => ({ length: String(input.text).length }) })],
    });
    const toTeam = node((_c: NodeContext, text: string) => ({ text }), { name: 'toTeam' });
    const join = new JoinNode({ name: 'join' });
    const s = await session(
      new Workflow({
        name: 'w',
        edges: [
          ['START', [seq, toTeam]],
          [toTeam, team],
          [[seq, team], join],
        ],
      }),
    );
    const result = await s.send('hey');
    expect(result.status).toBe('completed');
    expect(result.output).toEqual({ seq: 'hey!', team: { length: 3 } });
  });

  it('waitForOutput: a run without output or route leaves the node waiting for its next trigger', async () => {
    const a = node(() => 'a', { name: 'a' });
    const b = node(() => 'b', { name: 'b' });
    let calls = 0;
    const gather = node(
      (ctx: NodeContext, value: string) => {
        calls += 1;
        const seen = [...ctx.state.get<string[]>('seen', []), value];
        ctx.state.set('seen', seen);
        return seen.length === 2 ? seen.sort().join('+') : undefined;
      },
      { name: 'gather', waitForOutput: true },
    );
    const after = node((_c: NodeContext, x: string) => `after ${x}`, { name: 'after' });
    const s = await session(new Workflow({ name: 'w', edges: [['START', [a, b], gather, after]] }));
    const result = await s.send('go');
    expect(result.output).toBe('after a+b');
    expect(calls).toBe(2);
    expect((await s.starts()).get('w.after')).toBe(1);
  });

  it('WorkflowAgent: from a config, or taking the place of a Workflow', async () => {
    const shout = node((_c: NodeContext, x: string) => x.toUpperCase(), { name: 'shout' });
    const agent = new WorkflowAgent({ name: 'wa', edges: [['START', shout]] });
    expect((await (await session(agent)).send('hi')).output).toBe('HI');

    const inner = new LlmAgent({ name: 'inner', model: new ScriptedModel(['ok']) });
    const wf = new Workflow({ name: 'wf', edges: [['START', inner]] });
    const wrapped = new WorkflowAgent(wf);
    expect(inner.parentAgent).toBe(wrapped);
    expect((await (await session(wrapped)).send('go')).output).toBe('ok');
  });

  it('a dynamicEntry workflow runs nodes from code, durable across a pause', async () => {
    let looked = 0;
    const lookup = node(
      (_c: NodeContext, id: string) => {
        looked += 1;
        return { id, tier: 'gold' };
      },
      { name: 'lookup' },
    );
    const { RequestInput } = await import('@troupe/core');
    const confirm = node((_c: NodeContext, tier: string) => new RequestInput({ message: `Confirm ${tier}?` }), {
      name: 'confirm',
    });
    const wf = new Workflow({
      name: 'dyn',
      dynamicEntry: async (ctx, input) => {
        const customer = (await ctx.runNode(lookup, input)).output as { tier: string };
        const answer = await ctx.runNode(confirm, customer.tier);
        if (answer.interruptIds.length > 0) return undefined;
        return `${customer.tier}: ${String(answer.output)}`;
      },
    });
    const s = await session(wf);
    expect((await s.send('c1')).status).toBe('interrupted');
    expect((await s.send('yes')).output).toBe('gold: yes');
    expect(looked).toBe(1);
  });

  it("a nested workflow's output is its terminal node's: none when that node gave none, not an earlier node's", async () => {
    const inner = (name: string, last: () => unknown) =>
      new Workflow({
        name,
        edges: [['START', node(() => 'from a', { name: 'a' }), node(last, { name: 'b' })]],
      });
    const show = node((_ctx: NodeContext, input: unknown) => `got ${JSON.stringify(input)}`, { name: 'show' });
    const s = await session(
      new Workflow({ name: 'outer', edges: [['START', inner('silent', () => undefined), show]] }),
    );
    expect((await s.send('go')).output).toBe('got undefined');
    const show2 = node((_ctx: NodeContext, input: unknown) => `got ${JSON.stringify(input)}`, { name: 'show' });
    const s2 = await session(
      new Workflow({ name: 'outer2', edges: [['START', inner('loud', () => 'from b'), show2]] }),
    );
    expect((await s2.send('go')).output).toBe('got "from b"');
  });
});
