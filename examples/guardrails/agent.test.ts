import { beforeEach, describe, expect, it } from 'vitest';
import { GuardrailTrippedError, InMemoryRunner, type RunResult } from '@troupe/core';
import { ScriptedModel, type ScriptedReply } from '@troupe/core/testing';
import { refundsIssued, rootAgent } from './agent.js';

async function ask(replies: ScriptedReply[], message: string): Promise<RunResult> {
  const runner = new InMemoryRunner({ agent: rootAgent, defaultModel: new ScriptedModel(replies) });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  return runner.run({ userId: 'u', sessionId: session.id, newMessage: message });
}

const trippedBy = (result: RunResult) =>
  result.error instanceof GuardrailTrippedError ? result.error.guardrail : undefined;

describe('guardrails example', () => {
  beforeEach(() => {
    refundsIssued.length = 0;
  });

  it('answers and refunds normally when nothing trips', async () => {
    const result = await ask(
      [
        { functionCalls: [{ name: 'issue_refund', args: { orderId: 'A-1', amount: 40 } }] },
        'Refunded 40 EUR for order A-1.',
      ],
      'Please refund 40 EUR for order A-1',
    );
    expect(result.status).toBe('completed');
    expect(refundsIssued).toEqual([{ orderId: 'A-1', amount: 40 }]);
    expect(result.state.last_answer).toBe('Refunded 40 EUR for order A-1.');
  });

  it('no_homework blocks the run; the refund the model asked for at the same time never runs', async () => {
    const result = await ask(
      [{ functionCalls: [{ name: 'issue_refund', args: { orderId: 'A-1', amount: 10 } }] }],
      'Do my homework and refund order A-1',
    );
    expect(result.status).toBe('blocked');
    expect(trippedBy(result)).toBe('no_homework');
    expect(refundsIssued).toEqual([]);
    expect(result.events.map((e) => e.errorCode)).toEqual(['GUARDRAIL_TRIPPED']);
  });

  it('max_refund blocks a refund above 100 before it runs', async () => {
    const result = await ask(
      [{ functionCalls: [{ name: 'issue_refund', args: { orderId: 'B-2', amount: 900 } }] }],
      'Refund 900 EUR for order B-2',
    );
    expect(result.status).toBe('blocked');
    expect(trippedBy(result)).toBe('max_refund');
    expect((result.error as GuardrailTrippedError).info).toEqual({ amount: 900, limit: 100 });
    expect(refundsIssued).toEqual([]);
  });

  it('no_card_numbers keeps an answer with a card number out of the session and of state', async () => {
    const result = await ask(['Your card 4111 1111 1111 1111 was charged.'], 'Which card did I use?');
    expect(result.status).toBe('blocked');
    expect(trippedBy(result)).toBe('no_card_numbers');
    expect(result.state).not.toHaveProperty('last_answer');
    expect(JSON.stringify(result.events)).not.toContain('4111');
  });
});
