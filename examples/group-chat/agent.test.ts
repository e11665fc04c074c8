import { describe, expect, it } from 'vitest';
import { InMemoryRunner, type BaseAgent, type Event } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { newsroomWithSelector, rootAgent } from './agent.js';

async function run(agent: BaseAgent, model: ScriptedModel | 'offline', message: string) {
  const runner = new InMemoryRunner({ agent, defaultModel: model });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  return runner.run({ userId: 'u', sessionId: session.id, newMessage: message });
}

const speakers = (events: Event[]) =>
  events.filter((e) => e.author !== 'Newsroom' && !e.partial && e.content).map((e) => e.author);
const stop = (events: Event[]) => events.at(-1)!.actions.agentState;

describe('group-chat example', () => {
  it('round_robin: Writer, Critic, Editor in turn until the Editor says APPROVED', async () => {
    const model = new ScriptedModel([
      'Our new rye: dark, tangy, baked at dawn.',
      'Mention the sourdough starter; add a call to action.',
      'Not yet: add the call to action.',
      'Our new rye: dark, tangy sourdough, baked at dawn. Try a loaf today!',
      'Good now.',
      'APPROVED: Our new rye: dark, tangy sourdough, baked at dawn. Try a loaf today!',
    ]);
    const result = await run(rootAgent, model, "A short blurb for a bakery's new rye bread");
    model.assertDone();
    expect(speakers(result.events)).toEqual(['Writer', 'Critic', 'Editor', 'Writer', 'Critic', 'Editor']);
    expect(stop(result.events)).toEqual({
      stopReason: 'terminated',
      turns: 6,
      speakers: ['Writer', 'Critic', 'Editor', 'Writer', 'Critic', 'Editor'],
    });
    expect(result.output).toMatch(/^APPROVED/);
    // Shared conversation: the Critic's model saw the Writer's draft.
    expect(JSON.stringify(model.requests[1]!.contents)).toContain('baked at dawn');
  });

  it('a model selector picks from names and descriptions; the chat ends when it answers DONE', async () => {
    const selector = new ScriptedModel(['Writer', 'Editor', 'Writer', 'DONE']);
    const model = new ScriptedModel(['Draft one.', 'Shorter, please.', 'Draft two.']);
    const result = await run(newsroomWithSelector(selector), model, 'A slogan for a bakery');
    selector.assertDone();
    expect(selector.requests[0]!.config.systemInstruction).toContain(
      '- Critic: Points out what to improve in the latest draft.',
    );
    expect(JSON.stringify(selector.requests[2]!.contents)).toContain('Editor: Shorter, please.');
    expect(speakers(result.events)).toEqual(['Writer', 'Editor', 'Writer']);
    expect(stop(result.events)).toEqual({ stopReason: 'selector', turns: 3, speakers: ['Writer', 'Editor', 'Writer'] });
  });

  it('stops after 6 turns when nobody approves', async () => {
    const model = new ScriptedModel(['a', 'b', 'c', 'd', 'e', 'f']);
    const result = await run(rootAgent, model, 'A slogan');
    expect(stop(result.events)).toMatchObject({ stopReason: 'maxTurns', turns: 6 });
  });

  it('runs with the offline model', async () => {
    const result = await run(rootAgent, 'offline', "A short blurb for a bakery's new rye bread");
    expect(result.status).toBe('completed');
    expect(stop(result.events)).toMatchObject({ stopReason: expect.any(String) });
  });
});
