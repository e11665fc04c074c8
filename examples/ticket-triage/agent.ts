/**
 * Ticket triage as a graph workflow (`Workflow`).
 *
 * An LLM classifier and a customer lookup read the ticket at the same time; a JoinNode waits for
 * both and hands `{ classifier, lookup_customer }` to `triage`, which routes on the category:
 * `refund` goes to a person for approval (a `RequestInput`: the run pauses until someone answers,
 * in this process or another), `bug` is filed, and anything else (DEFAULT_ROUTE) gets an answer
 * from a second LLM node.
 *
 *   START → [classifier, lookup_customer] → gather (JoinNode) → triage
 *   triage → { refund: approve_refund → issue_refund, bug: file_bug, DEFAULT: answer }
 *
 * Try: npx troupe run examples/ticket-triage --input "I was charged twice, please refund 30 dollars. ana@example.com"
 * (the offline model classifies every ticket as a refund, so the CLI asks for the approval: answer yes)
 */
import { z } from 'zod';
import { DEFAULT_ROUTE, JoinNode, LlmAgent, RequestInput, Workflow, createEvent, node } from '@troupe/core';

/** What the classifier answers. */
export const Ticket = z.object({
  category: z.enum(['refund', 'bug', 'question', 'other']),
  summary: z.string(),
  /** The amount a refund asks for; 0 when none. */
  amount: z.number(),
});
export type Ticket = z.infer<typeof Ticket>;

/** A customer record. */
export interface Customer {
  email: string | null;
  plan: 'free' | 'pro';
}

/** A stand-in for the CRM. */
export const CUSTOMERS: Readonly<Record<string, Customer>> = {
  'ana@example.com': { email: 'ana@example.com', plan: 'pro' },
  'bo@example.com': { email: 'bo@example.com', plan: 'free' },
};

/** The case as `triage` passes it on. */
export interface Case {
  ticket: Ticket;
  customer: Customer;
}

export const classifier = new LlmAgent({
  name: 'classifier',
  instruction:
    'Classify the support ticket: refund (money back, with the amount asked for), bug (something is broken), question, or other. Summarise it in one sentence.',
  outputSchema: Ticket,
});

export const lookupCustomer = node(
  (_ctx, text: string): Customer => {
    const email = /[\w.+-]+@[\w-]+\.[\w.]+/.exec(text)?.[0]?.toLowerCase() ?? null;
    return (email && CUSTOMERS[email]) || { email, plan: 'free' };
  },
  { name: 'lookup_customer' },
);

/** Waits for the classifier and the lookup, and outputs `{ classifier, lookup_customer }`. */
export const gather = new JoinNode({ name: 'gather' });

export const triage = node(
  (_ctx, joined: { classifier: Ticket; lookup_customer: Customer }) => {
    const found: Case = { ticket: joined.classifier, customer: joined.lookup_customer };
    return createEvent({ output: found, route: found.ticket.category });
  },
  { name: 'triage' },
);

/** Asks a person; runs again once answered (`rerunOnResume`) and reads the answer. */
export const approveRefund = node(
  (ctx, found: Case) => {
    const answer = ctx.resumeInputs.refund_approval;
    if (answer === undefined)
      return new RequestInput({
        interruptId: 'refund_approval',
        message: `Refund ${found.ticket.amount} USD to ${found.customer.email ?? 'an unknown customer'} (${found.customer.plan} plan)? ${found.ticket.summary} Answer yes or no.`,
        payload: found,
      });
    return { ...found, approved: /^\s*(y|yes|approve|approved)\b/i.test(String(answer)) };
  },
  { name: 'approve_refund', rerunOnResume: true },
);

export const issueRefund = node(
  (_ctx, decided: Case & { approved: boolean }) =>
    decided.approved
      ? `Refunded ${decided.ticket.amount} USD to ${decided.customer.email}.`
      : `The refund of ${decided.ticket.amount} USD was declined.`,
  { name: 'issue_refund' },
);

export const fileBug = node(
  (ctx, found: Case) => {
    const filed = (ctx.state.get<number>('bugs_filed') ?? 0) + 1;
    ctx.state.set('bugs_filed', filed);
    return `Filed BUG-${filed} (${found.customer.plan} plan): ${found.ticket.summary}`;
  },
  { name: 'file_bug' },
);

export const answer = new LlmAgent({
  name: 'answer',
  instruction: 'Answer the customer in two or three friendly sentences. The input is the ticket and the customer.',
});

export const rootAgent = new Workflow({
  name: 'ticket_triage',
  description: 'Classifies a support ticket and refunds (with approval), files or answers it.',
  edges: [
    ['START', [classifier, lookupCustomer], gather, triage],
    [triage, { refund: approveRefund, bug: fileBug, [DEFAULT_ROUTE]: answer }],
    [approveRefund, issueRefund],
  ],
});
