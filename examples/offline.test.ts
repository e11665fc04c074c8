/**
 * The README's commands, run the way `npx troupe run examples/<name> --input "..."` runs them
 * without a model configured: with the built-in deterministic `offline` model (not an LLM). Each
 * must run to the end, and where the example is about routing or tools, the offline model must
 * take the route the README promises.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryRunner, getFunctionCalls, getFunctionResponses, type BaseAgent, type RunResult } from '@troupe/core';
import * as aiSdkChat from './ai-sdk-chat/agent.js';
import * as artist from './artist/agent.js';
import * as cityInfo from './city-info/agent.js';
import * as coordinator from './coordinator/agent.js';
import * as draftCriticLoop from './draft-critic-loop/agent.js';
import * as fanOut from './fan-out/agent.js';
import * as generatorCritic from './generator-critic/agent.js';
import * as iterativeRefinement from './iterative-refinement/agent.js';
import * as pipeline from './pipeline/agent.js';
import * as researchFanout from './research-fanout/agent.js';
import * as researchReport from './research-report/agent.js';
import * as ticketTriage from './ticket-triage/agent.js';

async function runOffline(agent: BaseAgent, input: string): Promise<RunResult> {
  const runner = new InMemoryRunner({ agent, defaultModel: 'offline' });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  return runner.run({ userId: 'u', sessionId: session.id, newMessage: input });
}

const calls = (result: RunResult): string[] =>
  result.events.flatMap((e) => getFunctionCalls(e).map((c) => `${e.path} -> ${c.name}`));

describe('examples with the offline model', () => {
  it('coordinator: a booking goes to Booker, a question to Info', async () => {
    const booking = await runOffline(coordinator.rootAgent, 'Book a flight to Paris');
    expect(booking.status).toBe('completed');
    expect(booking.events.at(-1)!.path).toBe('Coordinator/Booker');
    const question = await runOffline(coordinator.rootAgent, 'Give me general information about the Louvre');
    expect(question.events.at(-1)!.path).toBe('Coordinator/Info');
  });

  it.each([
    ['pipeline', pipeline.rootAgent, 'Sum these numbers: 4, 8, 15, 16, 23, 42', ['validation_status', 'result']],
    ['city-info', cityInfo.rootAgent, 'France', ['capital_city']],
    ['fan-out', fanOut.rootAgent, 'Plan a weekend in Lisbon', ['api1_data', 'api2_data']],
    ['fan-out (InfoGatherer)', fanOut.infoGatherer, 'What is happening in Lisbon today?', ['weather', 'news']],
    ['generator-critic', generatorCritic.rootAgent, 'The Moon', ['draft_text', 'review_status']],
    [
      'iterative-refinement',
      iterativeRefinement.rootAgent,
      'A function that reverses a string',
      ['current_code', 'quality_status'],
    ],
  ] as const)('%s runs to the end and fills its state keys', async (_name, agent, input, keys) => {
    const result = await runOffline(agent, input);
    expect(result.status).toBe('completed');
    for (const key of keys) expect(result.state[key]).toEqual(expect.any(String));
  });

  it('research-report: the request goes down through ResearchAssistant and WebSearch to search_web', async () => {
    const result = await runOffline(researchReport.rootAgent, 'Research the James Webb telescope and write a report');
    expect(result.status).toBe('completed');
    expect(calls(result)).toEqual([
      'ReportWriter -> ResearchAssistant',
      'ReportWriter/ResearchAssistant -> WebSearch',
      'ReportWriter/ResearchAssistant/WebSearch -> search_web',
    ]);
    const search = result.events.flatMap(getFunctionResponses).find((r) => r.name === 'search_web')!;
    expect(JSON.stringify(search.response.results)).toContain('James Webb Space Telescope');
  });

  it('iterative-refinement (StatusPoller): polls until completed, then reports', async () => {
    const result = await runOffline(iterativeRefinement.pollThenReport, 'Check the status of my processing job');
    expect(result.status).toBe('completed');
    expect(result.state).toMatchObject({ status: 'completed', polls: iterativeRefinement.JOB_DONE_AFTER_CHECKS });
    expect(result.events.at(-1)!.author).toBe('ReportStatus');
  });

  it('artist: Artist calls ImageGen and the image prompt is kept in state', async () => {
    const result = await runOffline(artist.rootAgent, 'Paint an image of a cat wearing a hat');
    expect(result.status).toBe('completed');
    expect(calls(result)).toEqual(['Artist -> ImageGen']);
    expect(result.state.last_image_prompt).toEqual(expect.any(String));
  });

  it('ticket-triage: every ticket is a refund offline, so it waits for the approval; yes refunds it', async () => {
    const runner = new InMemoryRunner({ agent: ticketTriage.rootAgent, defaultModel: 'offline' });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const paused = await runner.run({
      userId: 'u',
      sessionId: session.id,
      newMessage: 'I was charged twice, please refund 30 dollars. ana@example.com',
    });
    expect(paused.status).toBe('interrupted');
    expect(paused.interrupts.map((i) => i.id)).toEqual(['refund_approval']);
    const done = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'yes' });
    expect(done.status).toBe('completed');
    expect(done.output).toMatch(/^Refunded 0 USD to ana@example\.com\.$/);
  });

  it('ai-sdk-chat: a reservation waits for the approval; approved, the tool runs once and emits its receipt', async () => {
    const runner = new InMemoryRunner({ agent: aiSdkChat.rootAgent, defaultModel: 'offline' });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const paused = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'Reserve 2 tickets' });
    expect(paused.status).toBe('interrupted');
    expect(paused.interrupts).toMatchObject([
      { kind: 'confirmation', toolName: 'reserve_tickets', args: { tickets: 2 } },
    ]);
    const done = await runner.resume({
      userId: 'u',
      sessionId: session.id,
      responses: { [paused.interrupts[0]!.id]: true },
    });
    expect(done.status).toBe('completed');
    expect(done.events.filter((e) => e.customEvent).map((e) => e.customEvent)).toEqual([
      { name: 'receipt', data: { tickets: 2, reference: 'BX-402', total: 50 } },
    ]);
  });

  it('research-fanout: one researcher run per topic, then the summary', async () => {
    const result = await runOffline(researchFanout.rootAgent, 'solar power, wind power, tidal power');
    expect(result.status).toBe('completed');
    expect(result.state.topics).toEqual(['solar power', 'wind power', 'tidal power']);
    const items = result.events.filter(
      (e) =>
        e.actions.agentState?.node === 'ended' && e.nodeInfo!.path.startsWith('research_fanout.research.research@'),
    );
    expect(items).toHaveLength(3);
    expect(result.events.at(-1)!.nodeInfo!.path).toBe('research_fanout');
  });

  it('draft-critic-loop: the offline critic never approves, so the loop stops at maxIterations', async () => {
    const result = await runOffline(draftCriticLoop.rootAgent, 'Why tests should wait for events, not sleep');
    expect(result.status).toBe('completed');
    const decided = result.events.filter((e) => e.author === 'decide' && e.actions.agentState?.node === 'ended');
    expect(decided.map((e) => e.route)).toEqual(['revise', 'revise', 'revise']);
    expect(result.output).toMatch(/published unapproved after 2 refinements/);
  });
});
