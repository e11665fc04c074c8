import { describe, expect, it } from 'vitest';
import { FunctionTool, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce } from '../helpers.js';

// Bug: the calls of one model turn started together, so a sibling call without a guardrail (or
// whose guardrail passed first) ran its side effect while another call's guardrail was still
// deciding, and ran it even when that guardrail then tripped.
describe('a tool guardrail that trips blocks every call of its turn', () => {
  it('the sibling call of the same model turn does not run, even when its own guardrail passes sooner', async () => {
    const runs: string[] = [];
    const charge = new FunctionTool({
      name: 'charge_card',
      description: 'Charges the card.',
      guardrails: [{ name: 'always_ok', check: () => ({ tripwire: false }) }],
      execute: () => {
        runs.push('charge_card');
        return { charged: true };
      },
    });
    const email = new FunctionTool({
      name: 'send_receipt',
      description: 'Emails a receipt.',
      execute: () => {
        runs.push('send_receipt');
        return { sent: true };
      },
    });
    const wire = new FunctionTool({
      name: 'wire_money',
      description: 'Wires money.',
      guardrails: [
        {
          name: 'fraud_check',
          // Decides later than the siblings would have started.
          check: async () => {
            await new Promise((resolve) => setTimeout(resolve, 30));
            return { tripwire: true, info: 'looks like fraud' };
          },
        },
      ],
      execute: () => {
        runs.push('wire_money');
        return { wired: true };
      },
    });
    const model = new ScriptedModel([
      {
        functionCalls: [
          { name: 'charge_card', args: {}, id: 'c1' },
          { name: 'wire_money', args: {}, id: 'c2' },
          { name: 'send_receipt', args: {}, id: 'c3' },
        ],
      },
      'Done.',
    ]);
    const agent = new LlmAgent({ name: 'Cashier', model, tools: [charge, wire, email] });
    const result = await runOnce(agent, 'Pay and wire it.');
    expect(result.status).toBe('blocked');
    expect(runs).toEqual([]);
    expect(result.events.filter((e) => e.errorCode === 'GUARDRAIL_TRIPPED')).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
  });
});
