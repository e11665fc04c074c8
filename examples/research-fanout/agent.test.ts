import { describe, expect, it } from 'vitest';
import { InMemoryRunner, InMemorySessionService, Runner, type Event, type LlmRequest } from '@troupe/core';
import { ScriptedModel, type ScriptedReply } from '@troupe/core/testing';
import { rootAgent, topicsOf } from './agent.js';
import { deferred, waitFor } from '../../packages/core/test/wait.js';

const userText = (request: LlmRequest): string =>
  request.contents
    .filter((c) => c.role === 'user')
    .flatMap((c) => c.parts.flatMap((p) => ('text' in p ? [p.text] : [])))
    .join('\n');

/** Node runs that ended, by path and run id. */
const ran = (events: Event[]): string[] =>
  events
    .filter((e) => e.actions.agentState?.node === 'ended')
    .map((e) => `${e.nodeInfo!.path.replace('research_fanout.', '')}#${e.nodeInfo!.runId}`);

const BRIEF = 'Solar is cheapest, wind is the largest, tidal is the most predictable but least built.';

async function start(model: ScriptedModel) {
  const runner = new InMemoryRunner({ agent: rootAgent, defaultModel: model });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  return (message: string) => runner.run({ userId: 'u', sessionId: session.id, newMessage: message });
}

describe('research-fanout example (parallelWorker)', () => {
  it('splits a request into topics', () => {
    expect(topicsOf('Research: solar power, wind power and tidal power.')).toEqual([
      'solar power',
      'wind power',
      'tidal power',
    ]);
    expect(topicsOf('quantum sensing')).toEqual(['quantum sensing']);
  });

  it('researches every topic in its own LLM run, at most three at a time, and summarises the notes in topic order', async () => {
    const topics = ['solar', 'wind', 'tidal', 'geothermal'];
    const gates = new Map(topics.map((t) => [t, deferred()]));
    let running = 0;
    let peak = 0;
    // Parallel items call the model in no fixed order: each reply answers the topic it was asked.
    const note: ScriptedReply = async (request) => {
      const topic = userText(request);
      running += 1;
      peak = Math.max(peak, running);
      await gates.get(topic)!.promise;
      running -= 1;
      return `Notes on ${topic}.`;
    };
    const model = new ScriptedModel([note, note, note, note, BRIEF]);
    const run = (await start(model))('solar, wind, tidal, geothermal');

    await waitFor(() => running === 3, 'three topics researched at once');
    // Finish out of order; the fourth topic starts only when one of the first three is done.
    gates.get('tidal')!.resolve();
    await waitFor(() => model.callCount === 4, 'the fourth topic to start');
    for (const t of ['geothermal', 'wind', 'solar']) gates.get(t)!.resolve();
    const result = await run;

    expect(result.status).toBe('completed');
    expect(result.output).toBe(BRIEF);
    expect(peak).toBe(3);
    expect(result.state.topics).toEqual(topics);
    expect(ran(result.events)).toEqual(
      expect.arrayContaining([
        'plan#1',
        'research.research@0#0',
        'research.research@1#1',
        'research.research@2#2',
        'research.research@3#3',
        'research#1',
        'compile_notes#1',
        'summary#1',
      ]),
    );
    const researched = result.events.find((e) => e.nodeInfo?.path === 'research_fanout.research' && e.output)!;
    expect(researched.output).toEqual(['Notes on solar.', 'Notes on wind.', 'Notes on tidal.', 'Notes on geothermal.']);
    expect(userText(model.requests[4]!)).toBe(
      '## solar\nNotes on solar.\n\n## wind\nNotes on wind.\n\n## tidal\nNotes on tidal.\n\n## geothermal\nNotes on geothermal.',
    );
    model.assertDone();
  });

  it('a run stopped half-way resumes with only the topics that had not finished', async () => {
    const sessionService = new InMemorySessionService();
    const { id: sessionId } = await sessionService.createSession({ appName: 'research', userId: 'u' });
    const ended = async () =>
      ran((await sessionService.getSession({ appName: 'research', userId: 'u', sessionId }))!.events);
    // Solar and wind answer at once; tidal hangs until the run is cancelled.
    const tidalHangs: ScriptedReply = (request) =>
      userText(request) === 'tidal' ? { delayMs: 60_000, reply: 'never' } : `Notes on ${userText(request)}.`;
    const first = new ScriptedModel([tidalHangs, tidalHangs, tidalHangs]);
    const controller = new AbortController();
    const runner = new Runner({ appName: 'research', agent: rootAgent, sessionService, defaultModel: first });
    const run = runner.run({
      userId: 'u',
      sessionId,
      newMessage: 'solar, wind, tidal',
      abortSignal: controller.signal,
    });
    await waitFor(
      async () => (await ended()).filter((r) => r.startsWith('research.research@')).length === 2,
      'solar and wind to be researched',
    );
    controller.abort();
    const stopped = await run;
    expect(stopped.status).toBe('cancelled');

    // Another runner (another process, with a persistent store) continues the same invocation.
    const second = new ScriptedModel(['Notes on tidal.', BRIEF]);
    const resumed = await new Runner({
      appName: 'research',
      agent: rootAgent,
      sessionService,
      defaultModel: second,
    }).resume({
      userId: 'u',
      sessionId,
      invocationId: stopped.invocationId,
    });
    expect(resumed.status).toBe('completed');
    expect(resumed.output).toBe(BRIEF);
    expect(userText(second.requests[0]!)).toBe('tidal');
    expect(userText(second.requests[1]!)).toContain(
      '## solar\nNotes on solar.\n\n## wind\nNotes on wind.\n\n## tidal\nNotes on tidal.',
    );
    const all = await ended();
    for (const item of ['research.research@0#0', 'research.research@1#1', 'plan#1'])
      expect(all.filter((r) => r === item)).toHaveLength(1);
    second.assertDone();
  });
});
