import { describe, expect, it } from 'vitest';
import { InMemorySessionService, Runner, getFunctionResponses } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { rootAgent } from './agent.js';

function script(decision: 'approved' | 'rejected') {
  return new ScriptedModel([
    { functionCalls: [{ name: 'record_request', args: { amount: 250, reason: 'team offsite' } }] },
    'Request prepared.',
    { functionCalls: [{ name: 'external_approval', args: { amount: 250, reason: 'team offsite' }, id: 'ask-1' }] },
    decision,
    decision === 'approved'
      ? 'Approved: 250 for the team offsite goes ahead.'
      : 'Sorry, the request for 250 was rejected.',
  ]);
}

async function start(model: ScriptedModel) {
  const sessionService = new InMemorySessionService();
  const runner = new Runner({ appName: 'approval', agent: rootAgent, sessionService, defaultModel: model });
  const session = await sessionService.createSession({ appName: 'approval', userId: 'u' });
  const paused = await runner.run({
    userId: 'u',
    sessionId: session.id,
    newMessage: 'Approve 250 dollars for the team offsite',
  });
  return { runner, sessionService, sessionId: session.id, paused };
}

describe('human in the loop (approval)', () => {
  it('pauses for the person, then resumes the same invocation with the approval', async () => {
    const model = script('approved');
    const { runner, sessionService, sessionId, paused } = await start(model);
    expect(paused.status).toBe('interrupted');
    expect(paused.state).toMatchObject({ approval_amount: 250, approval_reason: 'team offsite' });
    expect(paused.interrupts).toEqual([
      expect.objectContaining({
        id: 'HumanApprovalWorkflow/RequestHumanApproval:ask-1',
        kind: 'confirmation',
        hint: 'Approve 250 for "team offsite"?',
        payload: { amount: 250, reason: 'team offsite' },
      }),
    ]);
    expect(model.requests[2]!.config.systemInstruction).toContain('the amount 250 and the reason team offsite');

    // Later (or in another process with a persistent store), the person answers.
    const done = await runner.resume({ userId: 'u', sessionId, responses: { [paused.interrupts[0]!.id]: true } });
    expect(done.status).toBe('completed');
    expect(done.state.human_decision).toBe('approved');
    expect(getFunctionResponses(done.events.find((e) => getFunctionResponses(e).length > 0)!)[0]!.response).toEqual({
      decision: 'approved',
    });
    expect(model.requests[4]!.config.systemInstruction).toContain('Check approved.');
    expect(done.output).toBe('Approved: 250 for the team offsite goes ahead.');
    const stored = await sessionService.getSession({ appName: 'approval', userId: 'u', sessionId });
    expect(new Set(stored!.events.map((e) => e.invocationId)).size).toBe(1);
    model.assertDone();
  });

  it('a rejection never runs the approval tool body and the pipeline tells the user', async () => {
    const model = script('rejected');
    const { runner, sessionId, paused } = await start(model);
    const done = await runner.resume({ userId: 'u', sessionId, responses: { [paused.interrupts[0]!.id]: false } });
    expect(done.status).toBe('completed');
    expect(
      getFunctionResponses(done.events.find((e) => getFunctionResponses(e).length > 0)!)[0]!.response.error,
    ).toMatch(/rejected/);
    expect(done.state.human_decision).toBe('rejected');
    expect(done.output).toBe('Sorry, the request for 250 was rejected.');
  });
});
