import { describe, expect, it } from 'vitest';
import { InMemoryRunner, textOf, type BaseAgent, type LlmRequest } from '@troupe/core';
import { ScriptedModel, type ScriptedReply } from '@troupe/core/testing';
import { infoGatherer, rootAgent } from './agent.js';

/** Texts of every part of a request's contents. */
const texts = (request: LlmRequest): string[] =>
  request.contents.flatMap((c) => c.parts.flatMap((p) => ('text' in p ? [p.text] : [])));

/**
 * One scripted reply that answers for whichever agent is calling, chosen by a phrase of its
 * instruction (parallel agents call the model in no fixed order).
 */
function byInstruction(answers: [phrase: string, reply: ScriptedReply][]): ScriptedReply {
  return (request) => {
    const system = request.config.systemInstruction ?? '';
    const match = answers.find(([phrase]) => system.includes(phrase));
    if (!match) throw new Error(`No scripted answer for the instruction: ${system}`);
    return match[1];
  };
}

/** A slow fetcher reply that records when the call started and when the answer came back. */
function timed(
  name: string,
  answer: string,
  log: { starts: Record<string, number>; ends: Record<string, number> },
): ScriptedReply {
  return () => {
    log.starts[name] = performance.now();
    return {
      delayMs: 300,
      reply: () => {
        log.ends[name] = performance.now();
        return answer;
      },
    };
  };
}

async function start(agent: BaseAgent, model: ScriptedModel) {
  const runner = new InMemoryRunner({ agent, defaultModel: model });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  return (message: string) => runner.run({ userId: 'u', sessionId: session.id, newMessage: message });
}

const API1 = 'API 1: flights LIS 120 EUR, 145 EUR';
const API2 = 'API 2: hotels Alfama 90 EUR/night';
const SUMMARY = 'Fly for 120 EUR and stay in Alfama for 90 EUR a night.';

describe('fan-out example (FetchAndSynthesize)', () => {
  it('runs both fetchers at the same time, then the Synthesizer reads both results', async () => {
    const log = { starts: {} as Record<string, number>, ends: {} as Record<string, number> };
    const reply = byInstruction([
      ['Combine the results', SUMMARY],
      ['Fetch data from API 1', timed('API1Fetcher', API1, log)],
      ['Fetch data from API 2', timed('API2Fetcher', API2, log)],
    ]);
    const model = new ScriptedModel([reply, reply, reply]);
    const say = await start(rootAgent, model);

    const t0 = performance.now();
    const result = await say('Plan a weekend in Lisbon');
    const elapsed = performance.now() - t0;

    expect(result.status).toBe('completed');
    // Two 300 ms calls overlapped: both started before either finished, and the run took ~300 ms.
    expect(Math.max(log.starts.API1Fetcher!, log.starts.API2Fetcher!)).toBeLessThan(
      Math.min(log.ends.API1Fetcher!, log.ends.API2Fetcher!),
    );
    expect(elapsed).toBeLessThan(600);

    // Each fetcher wrote its own state key; the Synthesizer's instruction was filled from both.
    expect(result.state).toMatchObject({ api1_data: API1, api2_data: API2 });
    const synthRequest = model.requests.find((r) => r.config.systemInstruction?.includes('Combine the results'))!;
    expect(synthRequest.config.systemInstruction).toBe(
      `Combine the results from API 1 (${API1}) and API 2 (${API2}) into one short answer for the user.`,
    );

    // Branches isolate the fetchers; paths show where each agent sits in the tree.
    const api1Event = result.events.find((e) => e.author === 'API1Fetcher')!;
    const api2Event = result.events.find((e) => e.author === 'API2Fetcher')!;
    expect(api1Event).toMatchObject({
      branch: 'ConcurrentFetch.API1Fetcher',
      path: 'FetchAndSynthesize/ConcurrentFetch/API1Fetcher',
    });
    expect(api2Event).toMatchObject({
      branch: 'ConcurrentFetch.API2Fetcher',
      path: 'FetchAndSynthesize/ConcurrentFetch/API2Fetcher',
    });
    const synthEvent = result.events.find((e) => e.author === 'Synthesizer')!;
    expect(synthEvent).toMatchObject({ branch: '', path: 'FetchAndSynthesize/Synthesizer' });
    expect(textOf(synthEvent)).toBe(SUMMARY);

    // Fan-in: the Synthesizer's history includes what both branches said.
    expect(texts(synthRequest)).toEqual(
      expect.arrayContaining([
        'Plan a weekend in Lisbon',
        `[API1Fetcher] said: ${API1}`,
        `[API2Fetcher] said: ${API2}`,
      ]),
    );
    // The ParallelAgent's output maps each child to its output.
    expect(result.events.find((e) => e.author === 'ConcurrentFetch' && e.actions.endOfAgent)!.output).toEqual({
      API1Fetcher: API1,
      API2Fetcher: API2,
    });
    expect(result.output).toBe(SUMMARY);
    model.assertDone();
  });

  it('each fetcher sees its own branch and the shared conversation, never its sibling', async () => {
    const reply = (turn: number) =>
      byInstruction([
        ['Combine the results', `${SUMMARY} (${turn})`],
        ['Fetch data from API 1', `${API1} (${turn})`],
        ['Fetch data from API 2', `${API2} (${turn})`],
      ]);
    const model = new ScriptedModel([reply(1), reply(1), reply(1), reply(2), reply(2), reply(2)]);
    const say = await start(rootAgent, model);

    await say('Plan a weekend in Lisbon');
    const second = await say('Make it Porto instead');

    expect(second.status).toBe('completed');
    expect(second.state).toMatchObject({ api1_data: `${API1} (2)`, api2_data: `${API2} (2)` });
    const secondTurnRequest = (phrase: string) =>
      model.requests.slice(3).find((r) => r.config.systemInstruction?.includes(phrase))!;
    const api1 = secondTurnRequest('Fetch data from API 1');
    const api2 = secondTurnRequest('Fetch data from API 2');
    // Its own earlier answer is its own model turn; the user turns and the Synthesizer (branch '') are visible.
    expect(api1.contents).toContainEqual({ role: 'model', parts: [{ text: `${API1} (1)` }] });
    expect(texts(api1)).toEqual(
      expect.arrayContaining([
        'Plan a weekend in Lisbon',
        'Make it Porto instead',
        `[Synthesizer] said: ${SUMMARY} (1)`,
      ]),
    );
    expect(api2.contents).toContainEqual({ role: 'model', parts: [{ text: `${API2} (1)` }] });
    // Never the sibling branch.
    expect(JSON.stringify(api1.contents)).not.toContain('API2Fetcher');
    expect(JSON.stringify(api1.contents)).not.toContain(API2);
    expect(JSON.stringify(api2.contents)).not.toContain('API1Fetcher');
    expect(JSON.stringify(api2.contents)).not.toContain(API1);
    model.assertDone();
  });
});

describe('fan-out example (InfoGatherer concept)', () => {
  it('WeatherFetcher and NewsFetcher run concurrently and both results are in state', async () => {
    const log = { starts: {} as Record<string, number>, ends: {} as Record<string, number> };
    const reply = byInstruction([
      ['current weather', timed('WeatherFetcher', 'Sunny, 24 °C in Lisbon.', log)],
      ['news headline', timed('NewsFetcher', 'Lisbon opens a new tram line.', log)],
    ]);
    const model = new ScriptedModel([reply, reply]);
    const say = await start(infoGatherer, model);

    const t0 = performance.now();
    const result = await say('What is happening in Lisbon today?');
    const elapsed = performance.now() - t0;

    expect(result.status).toBe('completed');
    expect(Math.max(log.starts.WeatherFetcher!, log.starts.NewsFetcher!)).toBeLessThan(
      Math.min(log.ends.WeatherFetcher!, log.ends.NewsFetcher!),
    );
    expect(elapsed).toBeLessThan(600);
    expect(result.state).toMatchObject({ weather: 'Sunny, 24 °C in Lisbon.', news: 'Lisbon opens a new tram line.' });
    expect(result.events.find((e) => e.author === 'WeatherFetcher')!.branch).toBe('InfoGatherer.WeatherFetcher');
    expect(result.events.find((e) => e.author === 'NewsFetcher')!.branch).toBe('InfoGatherer.NewsFetcher');
    expect(result.output).toEqual({
      WeatherFetcher: 'Sunny, 24 °C in Lisbon.',
      NewsFetcher: 'Lisbon opens a new tram line.',
    });
    model.assertDone();
  });
});
