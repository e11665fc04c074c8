import { describe, expect, it } from 'vitest';
import { InMemoryRunner, InMemorySessionService, Runner, type Event, type LlmRequest } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { rootAgent } from './agent.js';

const ticket = (category: string, summary: string, amount = 0) => JSON.stringify({ category, summary, amount });

/** The node runs that ended, as `node#runId`, in the order they ended. */
const ran = (events: Event[]): string[] =>
  events
    .filter((e) => e.actions.agentState?.node === 'ended')
    .map((e) => `${e.nodeInfo!.path.replace('ticket_triage.', '')}#${e.nodeInfo!.runId}`);

const userText = (request: LlmRequest): string =>
  request.contents
    .filter((c) => c.role === 'user')
    .flatMap((c) => c.parts.flatMap((p) => ('text' in p ? [p.text] : [])))
    .join('\n');

async function start(model: ScriptedModel) {
  const runner = new InMemoryRunner({ agent: rootAgent, defaultModel: model });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const events = async () =>
    (await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId: session.id }))!.events;
  return { runner, sessionId: session.id, events };
}

describe('ticket-triage example (graph Workflow)', () => {
  it('a refund waits for a person; runner.resume with the interrupt id finishes it, nothing before it runs again', async () => {
    const model = new ScriptedModel([ticket('refund', 'Charged twice for the March invoice.', 30)]);
    const { runner, sessionId, events } = await start(model);

    const paused = await runner.run({
      userId: 'u',
      sessionId,
      newMessage: 'I was charged twice in March, please refund 30 dollars. ana@example.com',
    });
    expect(paused.status).toBe('interrupted');
    expect(paused.interrupts).toHaveLength(1);
    const request = paused.interrupts[0]!;
    expect(request).toMatchObject({
      id: 'refund_approval',
      kind: 'input',
      toolName: 'adk_request_input',
      message: 'Refund 30 USD to ana@example.com (pro plan)? Charged twice for the March invoice. Answer yes or no.',
      payload: {
        ticket: { category: 'refund', amount: 30 },
        customer: { email: 'ana@example.com', plan: 'pro' },
      },
    });
    // The classifier saw the ticket as its user turn; the join got both branches' outputs.
    expect(userText(model.requests[0]!)).toContain('refund 30 dollars');
    const joined = (await events()).find((e) => e.nodeInfo?.path === 'ticket_triage.gather' && e.output)!;
    expect(joined.output).toEqual({
      classifier: { category: 'refund', summary: 'Charged twice for the March invoice.', amount: 30 },
      lookup_customer: { email: 'ana@example.com', plan: 'pro' },
    });
    expect(ran(await events()).sort()).toEqual(['classifier#1', 'gather#1', 'lookup_customer#1', 'triage#1']);

    const done = await runner.resume({ userId: 'u', sessionId, responses: { [request.id]: 'yes' } });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('Refunded 30 USD to ana@example.com.');
    expect(ran(done.events)).toEqual(['approve_refund#1', 'issue_refund#1']);
    // The routed edge the triage node took is on its events.
    expect((await events()).find((e) => e.nodeInfo?.path === 'ticket_triage.triage' && e.route)!.route).toBe('refund');
    model.assertDone();
  });

  it('a paused refund is answered from another runner on the same store (as another process would)', async () => {
    const sessionService = new InMemorySessionService();
    const first = new Runner({
      appName: 'triage',
      agent: rootAgent,
      sessionService,
      defaultModel: new ScriptedModel([ticket('refund', 'Double charge.', 12)]),
    });
    const { id } = await sessionService.createSession({ appName: 'triage', userId: 'u' });
    const paused = await first.run({ userId: 'u', sessionId: id, newMessage: 'Refund 12 please, bo@example.com' });
    expect(paused.status).toBe('interrupted');

    // The second runner has a model with no replies: the classifier must not run again.
    const second = new Runner({
      appName: 'triage',
      agent: rootAgent,
      sessionService,
      defaultModel: new ScriptedModel([]),
    });
    const done = await second.resume({ userId: 'u', sessionId: id, responses: { refund_approval: 'no' } });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('The refund of 12 USD was declined.');
  });

  it('a plain-text message answers the one open request', async () => {
    const { runner, sessionId } = await start(new ScriptedModel([ticket('refund', 'Wants money back.', 5)]));
    await runner.run({ userId: 'u', sessionId, newMessage: 'Refund my 5 dollars. ana@example.com' });
    const done = await runner.run({ userId: 'u', sessionId, newMessage: 'approve' });
    expect(done.output).toBe('Refunded 5 USD to ana@example.com.');
  });

  it('a bug is filed without asking anyone', async () => {
    const { runner, sessionId } = await start(new ScriptedModel([ticket('bug', 'Export to CSV crashes the app.')]));
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'Exporting to CSV crashes. bo@example.com' });
    expect(result.status).toBe('completed');
    expect(result.output).toBe('Filed BUG-1 (free plan): Export to CSV crashes the app.');
    expect(result.state.bugs_filed).toBe(1);
    expect(ran(result.events)).toContain('file_bug#1');
    expect(ran(result.events)).not.toContain('approve_refund#1');
  });

  it('any other category takes DEFAULT_ROUTE to the answer agent, which gets the case as its input', async () => {
    const model = new ScriptedModel([
      ticket('question', 'Asks whether the pro plan includes SSO.'),
      'Yes, the pro plan includes single sign-on. You can turn it on under Settings.',
    ]);
    const { runner, sessionId } = await start(model);
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'Does pro include SSO? ana@example.com' });
    expect(result.output).toBe('Yes, the pro plan includes single sign-on. You can turn it on under Settings.');
    expect(ran(result.events)).toContain('answer#1');
    expect(JSON.parse(userText(model.requests[1]!))).toMatchObject({
      ticket: { category: 'question' },
      customer: { email: 'ana@example.com', plan: 'pro' },
    });
    model.assertDone();
  });
});
