import { describe, expect, it } from 'vitest';
import { InMemoryRunner, getFunctionCalls, type Event } from '@troupe/core';
import { ScriptedModel, type ScriptedReply } from '@troupe/core/testing';
import { rootAgent } from './agent.js';

const delegate = (worker: string, request: string): ScriptedReply => ({
  functionCalls: [{ name: worker, args: { request } }],
});

async function run(model: ScriptedModel, message: string) {
  const runner = new InMemoryRunner({ agent: rootAgent, defaultModel: model });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  return runner.run({ userId: 'u', sessionId: session.id, newMessage: message });
}

/** Who spoke (complete events with text or calls), in order; consecutive events of one agent once. */
function turns(events: Event[]): string[] {
  const out: string[] = [];
  for (const e of events) if (!e.partial && e.content && out.at(-1) !== e.author) out.push(e.author);
  return out;
}

describe('supervisor example', () => {
  it('ResearchLead delegates to Searcher, then Summarizer, getting control back after each, then answers', async () => {
    const model = new ScriptedModel([
      delegate('Searcher', 'James Webb telescope'),
      { functionCalls: [{ name: 'search_web', args: { query: 'webb telescope' } }] },
      'JWST launched in 2021; it observes in infrared from near L2.',
      delegate('Summarizer', 'JWST launched in 2021; it observes in infrared from near L2.'),
      'The James Webb telescope, launched in 2021, observes the infrared sky from near L2.',
      'Here is what we found: the James Webb telescope, launched in 2021, observes the infrared sky from near L2.',
    ]);
    const result = await run(model, 'Research the James Webb telescope');
    expect(result.status).toBe('completed');
    model.assertDone();
    // The delegation history: ResearchLead's calls of its workers, in order.
    const delegations = result.events
      .filter((e) => e.author === 'ResearchLead')
      .flatMap(getFunctionCalls)
      .map((c) => c.name);
    expect(delegations).toEqual(['Searcher', 'Summarizer']);
    // Each worker hands control back to the supervisor when it finishes.
    expect(turns(result.events)).toEqual(['ResearchLead', 'Searcher', 'ResearchLead', 'Summarizer', 'ResearchLead']);
    // The workers ran with the supervisor's request only, on branches of their own.
    expect(result.events.find((e) => e.author === 'Searcher')!.branch).toBe('ResearchLead.Searcher');
    // It stopped on its answer.
    const last = result.events.at(-1)!;
    expect(last.author).toBe('ResearchLead');
    expect(last.actions.agentState).toEqual({ stopReason: 'answered', delegations: 2 });
    expect(result.output).toMatch(/^Here is what we found/);
  });

  it('stops delegating after maxDelegations (4) and answers with what it has', async () => {
    const model = new ScriptedModel([
      ...[1, 2, 3, 4].flatMap((i) => [delegate('Summarizer', `facts ${i}`), `summary ${i}`]),
      'Best effort: summary 4',
    ]);
    const result = await run(model, 'Research everything');
    expect(model.requests.at(-1)!.config.tools ?? []).toEqual([]);
    expect(result.events.at(-1)!.actions.agentState).toEqual({ stopReason: 'maxDelegations', delegations: 4 });
    expect(result.output).toBe('Best effort: summary 4');
  });

  it('runs with the offline model', async () => {
    const runner = new InMemoryRunner({ agent: rootAgent, defaultModel: 'offline' });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({
      userId: 'u',
      sessionId: session.id,
      newMessage: 'Research the James Webb telescope',
    });
    expect(result.status).toBe('completed');
    expect(result.events.at(-1)!.actions.agentState).toMatchObject({ stopReason: expect.any(String) });
  });
});
