/**
 * The app behind the AG-UI example page: a restaurant concierge that books tables. Booking needs
 * the guest's approval (`requireConfirmation`), which the page asks for; the booking lands in the
 * session's state, which the page shows. The page also offers a tool of its own, `show_note`,
 * which the concierge may call and the page runs (a "frontend tool").
 *
 * It sets no model: `server.ts` gives it the built-in offline model (not an LLM: it picks the tool
 * whose name shares words with the message), or pass a real one to `startExample`.
 */
import { z } from 'zod';
import { FunctionTool, LlmAgent } from '@troupe/core';

export const bookTable = new FunctionTool({
  name: 'book_table',
  description: 'Books a table at the restaurant for a number of people.',
  parameters: z.object({ people: z.number().int().min(1) }),
  requireConfirmation: true,
  execute: ({ people }, ctx) => {
    const booking = { people, reference: `CT-${String(100 + people).padStart(3, '0')}` };
    ctx.state.set('booking', booking);
    return booking;
  },
});

export const rootAgent = new LlmAgent({
  name: 'Concierge',
  description: 'The concierge of Chez Troupe.',
  instruction:
    'Welcome guests of Chez Troupe and book their tables with book_table. Use show_note to put reminders on their screen.',
  tools: [bookTable],
});
