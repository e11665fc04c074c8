import { FunctionAgent, FunctionTool, LlmAgent } from '@troupe/core';
import { z } from 'zod';
import { EscalationLadder } from './escalation-ladder.js';

const ANSWERS: Record<string, string> = { 'opening hours': 'We are open 9:00 to 17:00, Monday to Friday.' };

/** The cheap rung: canned answers; anything else is passed up the ladder. */
const faq = new FunctionAgent({
  name: 'Faq',
  run: (input) => {
    const request = String(input.request ?? '').toLowerCase();
    const hit = Object.keys(ANSWERS).find((topic) => request.includes(topic));
    return hit ? ANSWERS[hit]! : { unsure: true };
  },
});

/** Refunds need a person's approval: the run pauses until someone answers. */
const issueRefund = new FunctionTool({
  name: 'issue_refund',
  description: 'Refunds an order.',
  parameters: z.object({ orderId: z.string(), amount: z.number() }),
  requireConfirmation: true,
  execute: ({ orderId, amount }, ctx) => ({ refunded: amount, orderId, reference: ctx.idempotencyKey }),
});

/** The expensive rung: a model with tools. */
const senior = new LlmAgent({
  name: 'SeniorSupport',
  instruction: 'Resolve the customer request. Use issue_refund for refunds.',
  tools: [issueRefund],
});

/** Customer support that tries the FAQ first and escalates to a model with tools. */
export const rootAgent = new EscalationLadder({
  name: 'Support',
  description: 'Answers customer requests, escalating from canned answers to a senior agent.',
  subAgents: [faq, senior],
  accept: (output) => typeof output === 'string',
});
