import { describe, expect, it } from 'vitest';
import { InMemoryRunner, type Event, type LlmRequest } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { rootAgent } from './agent.js';

const review = (verdict: 'revise' | 'approve', feedback: string) => JSON.stringify({ verdict, feedback });

const userText = (request: LlmRequest): string =>
  request.contents
    .filter((c) => c.role === 'user')
    .flatMap((c) => c.parts.flatMap((p) => ('text' in p ? [p.text] : [])))
    .join('\n');

/** The node runs that ended, as `node#runId`, in order. */
const ran = (events: Event[]): string[] =>
  events
    .filter((e) => e.actions.agentState?.node === 'ended')
    .map((e) => `${e.nodeInfo!.path.replace('draft_critic_loop.', '')}#${e.nodeInfo!.runId}`);

/** The routes `decide` took, in order. */
const routes = (events: Event[]): unknown[] =>
  events.filter((e) => e.actions.agentState?.node === 'ended' && e.author === 'decide').map((e) => e.route);

async function run(model: ScriptedModel, topic: string) {
  const runner = new InMemoryRunner({ agent: rootAgent, defaultModel: model });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  return runner.run({ userId: 'u', sessionId: session.id, newMessage: topic });
}

describe('draft-critic-loop example (a routed loop with maxIterations)', () => {
  it('refines until the critic approves, then leaves by the routed exit', async () => {
    const model = new ScriptedModel([
      'Tests sleep. That is bad.',
      review('revise', 'Say why sleeping is flaky.'),
      'A fixed sleep is too short on a busy machine, so the test fails at random.',
      review('approve', 'Clear.'),
    ]);
    const result = await run(model, 'Why tests should wait for events, not sleep');

    expect(result.status).toBe('completed');
    expect(result.output).toBe(
      'A fixed sleep is too short on a busy machine, so the test fails at random.\n\n(approved at review 2)',
    );
    expect(ran(result.events)).toEqual([
      'draft#1',
      'critic#1',
      'decide#1',
      'refine#1',
      'critic#2',
      'decide#2',
      'publish#1',
    ]);
    expect(routes(result.events)).toEqual(['revise', 'approve']);
    // refine got the draft and the feedback; the critic got each draft as its user turn.
    expect(JSON.parse(userText(model.requests[2]!))).toMatchObject({
      draft: 'Tests sleep. That is bad.',
      feedback: 'Say why sleeping is flaky.',
    });
    expect(userText(model.requests[3]!)).toBe(
      'A fixed sleep is too short on a busy machine, so the test fails at random.',
    );
    expect(result.state.draft).toBe('A fixed sleep is too short on a busy machine, so the test fails at random.');
    model.assertDone();
  });

  it('after two refinements the revise edge is used up and DEFAULT_ROUTE publishes the last draft', async () => {
    const model = new ScriptedModel([
      'v1',
      review('revise', 'Too short.'),
      'v2',
      review('revise', 'Still too short.'),
      'v3',
      review('revise', 'Needs an example.'),
    ]);
    const result = await run(model, 'Graph workflows');

    expect(result.status).toBe('completed');
    expect(result.output).toBe('v3\n\n(published unapproved after 2 refinements; last feedback: Needs an example.)');
    expect(routes(result.events)).toEqual(['revise', 'revise', 'revise']);
    expect(ran(result.events).filter((r) => r.startsWith('refine'))).toEqual(['refine#1', 'refine#2']);
    expect(ran(result.events).at(-1)).toBe('publish#1');
    model.assertDone();
  });
});
