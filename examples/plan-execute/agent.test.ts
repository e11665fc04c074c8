import { describe, expect, it } from 'vitest';
import { InMemoryRunner, getFunctionCalls, type BaseLlm, type Event } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { rootAgent } from './agent.js';

async function plan(model: BaseLlm | string, input: string) {
  const runner = new InMemoryRunner({ agent: rootAgent, defaultModel: model });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  return runner.run({ userId: 'u', sessionId: session.id, newMessage: input });
}

const steps = (...list: string[]) => JSON.stringify({ steps: list });
const call = (name: string, args: Record<string, unknown>) => ({ functionCalls: [{ name, args }] });
const said = (events: Event[], author: string) =>
  events
    .filter((e) => e.author === author && e.content && !e.partial)
    .map((e) => e.content!.parts.map((p) => ('text' in p ? p.text : '')).join(''));

describe('plan-execute: TripPlanner', () => {
  it('plans, runs the steps in order with the tools, replans, answers, and says why it stopped', async () => {
    const model = new ScriptedModel([
      steps('Search flights to Lisbon', 'Find a hotel in Lisbon', 'Check the weather in Lisbon'), // Planner
      call('search_flights', { destination: 'Lisbon' }), // TripExecutor, step 1
      'Cheapest: FR7311 on Saturday at 06:40, 74 EUR.',
      steps('Find a hotel in Lisbon under 100 EUR a night', 'Check the weather in Lisbon'), // TripReplanner revises step 2
      call('find_hotels', { city: 'Lisbon' }), // step 2
      'Baixa Rooms, 85 EUR a night.',
      steps('Check the weather in Lisbon'),
      call('weather_forecast', { city: 'Lisbon' }), // step 3
      'Sunny, 19–23 °C.',
      JSON.stringify({
        respond: 'Fly FR7311 on Saturday (74 EUR), stay at Baixa Rooms (85 EUR a night); it will be sunny.',
      }),
    ]);
    const result = await plan(model, 'Plan a weekend in Lisbon: flights, a hotel and the weather');
    expect(result.status).toBe('completed');
    expect(result.output).toBe(
      'Fly FR7311 on Saturday (74 EUR), stay at Baixa Rooms (85 EUR a night); it will be sunny.',
    );
    expect(said(result.events, 'TripPlanner')).toEqual([
      'Step 1: Search flights to Lisbon',
      'Step 2: Find a hotel in Lisbon under 100 EUR a night',
      'Step 3: Check the weather in Lisbon',
      'Fly FR7311 on Saturday (74 EUR), stay at Baixa Rooms (85 EUR a night); it will be sunny.',
    ]);
    expect(result.events.flatMap(getFunctionCalls).map((c) => c.name)).toEqual([
      'search_flights',
      'find_hotels',
      'weather_forecast',
    ]);
    expect(result.state.pastSteps).toEqual([
      { step: 'Search flights to Lisbon', result: 'Cheapest: FR7311 on Saturday at 06:40, 74 EUR.' },
      { step: 'Find a hotel in Lisbon under 100 EUR a night', result: 'Baixa Rooms, 85 EUR a night.' },
      { step: 'Check the weather in Lisbon', result: 'Sunny, 19–23 °C.' },
    ]);
    // The replanner reads the remaining plan and the finished steps from state.
    expect(model.requests[3]!.config.systemInstruction).toContain('"step":"Search flights to Lisbon"');
    const final = result.events.find((e) => e.author === 'TripPlanner' && e.actions.endOfAgent)!;
    expect(final.actions.agentState).toEqual({ stopReason: 'responded', iterations: 3 });
  });

  it('runs to the end with the offline model (the README command)', async () => {
    const result = await plan('offline', 'Plan a weekend in Lisbon: flights, a hotel and the weather');
    expect(result.status).toBe('completed');
    expect(result.events.flatMap(getFunctionCalls).length).toBeGreaterThan(0);
    const final = result.events.find((e) => e.author === 'TripPlanner' && e.actions.endOfAgent)!;
    expect(final.actions.agentState).toMatchObject({ stopReason: 'responded' });
    expect(result.output).toEqual(expect.any(String));
  });
});
