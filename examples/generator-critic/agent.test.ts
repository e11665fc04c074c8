import { describe, expect, it } from 'vitest';
import { InMemoryRunner, type Event } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { rootAgent } from './agent.js';

const DRAFT =
  'The Moon orbits Earth about every 27 days. It is about 384,000 km away. It has no atmosphere to speak of.';

async function review(model: ScriptedModel, subject: string) {
  const runner = new InMemoryRunner({ agent: rootAgent, defaultModel: model });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'editor' });
  return runner.run({ userId: 'editor', sessionId: session.id, newMessage: subject });
}

describe('generator-critic example', () => {
  it('DraftWriter stores the draft, FactChecker reviews it from state and stores its verdict', async () => {
    const model = new ScriptedModel([DRAFT, 'valid: the distances and period are correct.']);

    const result = await review(model, 'The Moon');

    expect(result.status).toBe('completed');
    expect(result.state).toMatchObject({
      draft_text: DRAFT,
      review_status: 'valid: the distances and period are correct.',
    });
    // The reviewer's instruction carries the draft it must check.
    expect(model.requests[1]!.config.systemInstruction).toBe(
      `Review this text for factual accuracy:\n\n${DRAFT}\n\nReply 'valid' or 'invalid', followed by a one-sentence reason.`,
    );
    expect(result.events.filter((e) => e.content).map((e) => [e.author, e.path])).toEqual([
      ['DraftWriter', 'WriteAndReview/DraftWriter'],
      ['FactChecker', 'WriteAndReview/FactChecker'],
    ]);
    expect(result.output).toBe('valid: the distances and period are correct.');
    model.assertDone();
  });

  it('an invalid verdict is stored the same way, for a later step to act on', async () => {
    const wrong = 'The Moon is made of cheese and orbits Mars.';
    const model = new ScriptedModel([wrong, 'invalid: the Moon orbits Earth and is made of rock.']);

    const result = await review(model, 'The Moon');

    expect(result.state.draft_text).toBe(wrong);
    expect(result.state.review_status).toMatch(/^invalid/);
    expect(model.requests[1]!.config.systemInstruction).toContain(wrong);
  });

  it('a streamed draft is stored whole, and only the finished text reaches the reviewer', async () => {
    const chunks = ['The Moon orbits Earth ', 'about every 27 days. ', 'It is about 384,000 km away.'];
    const model = new ScriptedModel([{ chunks }, 'valid: correct period and distance.']);
    const runner = new InMemoryRunner({ agent: rootAgent, defaultModel: model });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'editor' });

    const events: Event[] = [];
    for await (const event of runner.runAsync({
      userId: 'editor',
      sessionId: session.id,
      newMessage: 'The Moon',
      runConfig: { streaming: 'sse' },
    })) {
      events.push(event);
    }

    const draft = chunks.join('');
    // The chunks were streamed as partial events...
    expect(events.filter((e) => e.partial).map((e) => e.content!.parts)).toEqual(chunks.map((text) => [{ text }]));
    // ...but state holds the whole text, and the session stores no partial event.
    const stored = await runner.sessionService.getSession({
      appName: runner.appName,
      userId: 'editor',
      sessionId: session.id,
    });
    expect(stored!.state.draft_text).toBe(draft);
    expect(stored!.events.some((e) => e.partial)).toBe(false);
    expect(model.requests[1]!.config.systemInstruction).toContain(`\n\n${draft}\n\n`);
  });
});
