/**
 * The app behind the AI SDK chat example: the box office of a small theatre. Reserving tickets
 * needs the guest's approval (`requireConfirmation`), which the page asks for with the AI SDK's
 * tool approval; once approved, the tool runs (once) and emits the receipt as a custom event, which
 * reaches the page as a `data-receipt` part.
 *
 * It sets no model: `server.ts` gives it the built-in offline model (not an LLM: it picks the tool
 * whose name shares words with the message), or pass a real one to `startExample`.
 */
import { z } from 'zod';
import { FunctionTool, LlmAgent } from '@troupe/core';

export const reserveTickets = new FunctionTool({
  name: 'reserve_tickets',
  description: 'Reserves tickets for tonight’s show.',
  parameters: z.object({ tickets: z.number().int().min(1).max(8) }),
  requireConfirmation: true,
  execute: async ({ tickets }, ctx) => {
    const reservation = { tickets, reference: `BX-${String(400 + tickets)}` };
    // The page shows it as a receipt (a data part), beside the tool's result.
    await ctx.emit('receipt', { ...reservation, total: tickets * 25 });
    return reservation;
  },
});

export const rootAgent = new LlmAgent({
  name: 'BoxOffice',
  description: 'The box office of the Troupe Theatre.',
  instruction: 'Help guests of the Troupe Theatre and reserve their tickets for tonight with reserve_tickets.',
  tools: [reserveTickets],
});
