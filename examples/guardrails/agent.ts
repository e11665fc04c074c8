/**
 * Guardrails: checks that block a run instead of changing a step (the OpenAI Agents SDK's
 * tripwires; see docs/guardrails.md).
 *
 * `Support` answers customers and can refund them. Three guardrails stand around it:
 * - `no_homework` (input): runs concurrently with the first model call; a homework request blocks
 *   the run and the model's held response (even a refund it asked for) is never used.
 * - `no_card_numbers` (output): an answer holding a card number is not stored.
 * - `max_refund` (on the `issue_refund` tool): a refund above 100 never runs.
 *
 * A blocked run ends with status 'blocked' and one stored GUARDRAIL_TRIPPED event naming the guardrail.
 *
 * Try: npx troupe run examples/guardrails --input "Can you do my math homework?"   (exits with 5)
 */
import { z } from 'zod';
import { FunctionTool, LlmAgent, type InputGuardrail, type OutputGuardrail } from '@troupe/core';

/** Refunds issued, by order id (a stand-in for the payment system the tool would call). */
export const refundsIssued: { orderId: string; amount: number }[] = [];

export const noHomework: InputGuardrail = {
  name: 'no_homework',
  // A real check might ask a small, cheap model; it runs while the agent's own model is called.
  check: (_ctx, input) => {
    const text = JSON.stringify(input).toLowerCase();
    return { tripwire: /\bhomework\b|\bassignment\b/.test(text), info: 'The support agent does not do homework.' };
  },
};

export const noCardNumbers: OutputGuardrail = {
  name: 'no_card_numbers',
  check: (_ctx, output) => ({
    tripwire: /\b(?:\d[ -]?){13,16}\b/.test(String(output)),
    info: 'The answer held a card number.',
  }),
};

export const issueRefund = new FunctionTool({
  name: 'issue_refund',
  description: 'Refunds an order (at most 100 EUR without a manager).',
  parameters: z.object({ orderId: z.string(), amount: z.number().positive() }),
  guardrails: [
    { name: 'max_refund', check: (_ctx, { amount }) => ({ tripwire: amount > 100, info: { amount, limit: 100 } }) },
  ],
  execute: ({ orderId, amount }) => {
    refundsIssued.push({ orderId, amount });
    return { refunded: amount, orderId };
  },
});

export const rootAgent = new LlmAgent({
  name: 'Support',
  instruction: 'Help customers with their orders. Refund an order with issue_refund when they ask for it.',
  tools: [issueRefund],
  outputKey: 'last_answer',
  inputGuardrails: [noHomework],
  outputGuardrails: [noCardNumbers],
});
