import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FunctionTool, node, Workflow, type NodeContext } from '@troupe/core';
import { session } from './harness.js';

// A tool as a workflow node (docs/workflows.md, Nodes): a tool that asks for approval or input
// pauses the workflow, and on resume it runs again with the answer; its result is the node's output.
describe('a tool node that pauses', () => {
  const parse = () => node((_ctx: NodeContext, text: string) => ({ amount: Number(text) }), { name: 'parse' });
  const after = () => node((_ctx: NodeContext, result: unknown) => result, { name: 'after' });

  it('runs once approved, and its result goes on; rejected, it does not run and the node fails', async () => {
    for (const approved of [true, false]) {
      const sent: number[] = [];
      const transfer = new FunctionTool({
        name: 'transfer_money',
        description: 'Sends money.',
        parameters: z.object({ amount: z.number() }),
        requireConfirmation: true,
        execute: ({ amount }) => {
          sent.push(amount);
          return { status: 'sent', amount };
        },
      });
      const s = await session(new Workflow({ name: 'wf', edges: [['START', parse(), transfer, after()]] }));
      const paused = await s.send('500');
      expect(paused.interrupts.map((i) => i.kind)).toEqual(['confirmation']);
      const resumed = await s.resume({ [paused.interrupts[0]!.id]: approved });
      if (approved) {
        expect(resumed.status).toBe('completed');
        expect(sent).toEqual([500]);
        expect(resumed.output).toEqual({ status: 'sent', amount: 500 });
      } else {
        // Refused: the tool does not run, and the node fails naming itself (its successor gets nothing).
        expect(sent).toEqual([]);
        expect(resumed.status).toBe('failed');
        expect(resumed.error).toMatchObject({ code: 'NODE_FAILED', node: 'wf.transfer_money' });
        expect(resumed.error!.message).toContain('rejected');
      }
    }
  });

  it("gets its input request's answer inside the tool", async () => {
    const asked: unknown[] = [];
    const askNights = new FunctionTool({
      name: 'ask_nights',
      description: 'Asks how many nights.',
      execute: async (_args, ctx) => {
        const nights = await ctx.requestInput({ message: 'How many nights?' });
        asked.push(nights);
        return { nights };
      },
    });
    const s = await session(new Workflow({ name: 'wf', edges: [['START', askNights, after()]] }));
    const paused = await s.send('book');
    const resumed = await s.resume({ [paused.interrupts[0]!.id]: '3' });
    expect(asked).toEqual(['3']);
    expect(resumed.output).toEqual({ nights: '3' });
  });
});
