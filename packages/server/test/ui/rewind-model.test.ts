import { describe, expect, it } from 'vitest';
import { InMemorySessionService, LlmAgent, Runner } from '@troupe/core';
import { rewoundEventIds } from '@troupe/core/hosting';
import { ScriptedModel } from '@troupe/core/testing';
import { encodeSession, type WireSession } from '../../src/index.js';
import { compactionOf, rewoundIds } from '../../ui/src/model/rewind.js';
import { initialStateOf, replayStates } from '../../ui/src/model/state-replay.js';
import { transcript } from '../../ui/src/model/transcript.js';

// The dev UI's view of rewinds and compactions, from a session as the API sends it (JSON, so a
// rewind's deleted keys are not in its stored delta).

async function wireSession(
  summaries: string[],
  replies: string[],
  turns: (runner: Runner, sessionId: string) => Promise<void>,
): Promise<WireSession> {
  const sessionService = new InMemorySessionService();
  const runner = new Runner({
    appName: 'app',
    agent: new LlmAgent({ name: 'Helper', model: new ScriptedModel(replies), outputKey: 'last' }),
    sessionService,
    ...(summaries.length ? { compaction: { everyInvocations: 2, summarizer: new ScriptedModel(summaries) } } : {}),
  });
  const session = await sessionService.createSession({ appName: 'app', userId: 'u', state: { 'user:name': 'Ada' } });
  await turns(runner, session.id);
  const stored = (await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: session.id }))!;
  return JSON.parse(JSON.stringify(encodeSession(stored))) as WireSession;
}

describe('dev UI model: rewind and compaction', () => {
  it('replays state through a rewind: session keys as before the invocation, new ones gone, user: keys kept', async () => {
    let second = '';
    const wire = await wireSession([], ['a1', 'a2', 'a3'], async (runner, sessionId) => {
      await runner.run({ userId: 'u', sessionId, newMessage: 'q1', stateDelta: { plan: 'A' } });
      second = (
        await runner.run({
          userId: 'u',
          sessionId,
          newMessage: 'q2',
          stateDelta: { plan: 'B', extra: 1, 'user:lang': 'fr' },
        })
      ).invocationId;
      await runner.rewind({ userId: 'u', sessionId, beforeInvocationId: second });
      await runner.run({ userId: 'u', sessionId, newMessage: 'q3' });
    });
    const events = wire.events!;
    const steps = replayStates(initialStateOf(wire), events);
    const rewindIndex = events.findIndex((e) => e.actions.rewindBeforeInvocationId === second);
    expect(steps[rewindIndex]!.after).toEqual({ 'user:name': 'Ada', 'user:lang': 'fr', plan: 'A', last: 'a1' });
    // The replay ends where the server's state is.
    expect(steps.at(-1)!.after).toEqual(wire.state);
    expect(rewoundIds(events)).toEqual(rewoundEventIds(events.map((e) => ({ ...e, timestamp: e.timestamp * 1000 }))));
    // The chat leaves the rewound turn out and says what happened.
    expect(transcript(events).map((item) => ('text' in item ? item.text : item.kind))).toEqual([
      'q1',
      'a1',
      'rewound 2 events',
      'q3',
      'a3',
    ]);
  });

  it('shows a compaction as "compacted N events" with its summary', async () => {
    const wire = await wireSession(['S: q1 and q2.'], ['a1', 'a2'], async (runner, sessionId) => {
      await runner.run({ userId: 'u', sessionId, newMessage: 'q1' });
      await runner.run({ userId: 'u', sessionId, newMessage: 'q2' });
    });
    const events = wire.events!;
    const index = events.findIndex((e) => e.actions.compaction);
    expect(compactionOf(events, index)).toEqual({ count: 4, summary: 'S: q1 and q2.' });
    expect(transcript(events).at(-1)).toMatchObject({ kind: 'step', text: 'compacted 4 events into a summary' });
  });
});
