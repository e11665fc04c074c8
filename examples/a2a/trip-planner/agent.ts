/**
 * Agent to agent (A2A), the calling side: a trip planner whose weather expert is a remote agent.
 *
 * `WeatherAgent` here is a RemoteA2aAgent: a sub-agent like any other (the planner transfers to
 * it), but it runs in another process, `../weather` served by `troupe api --a2a`, and answers over
 * A2A: its streamed text arrives as partial events, its answer as the final event.
 *
 * Try (two terminals, from the repository root):
 *   npx troupe api examples/a2a/weather/agent.ts --a2a --port 8001
 *   npx troupe run examples/a2a/trip-planner --input "What is the weather forecast for Lisbon?"
 * WEATHER_A2A_URL points it elsewhere (default http://127.0.0.1:8001/a2a/weather).
 */
import { LlmAgent } from '@troupe/core';
import { RemoteA2aAgent } from '@troupe/a2a';

export const weatherUrl = process.env.WEATHER_A2A_URL ?? 'http://127.0.0.1:8001/a2a/weather';

export const weather = new RemoteA2aAgent({
  name: 'WeatherAgent',
  // Known before the card is fetched, so the planner can decide to transfer without a request.
  description: 'Answers weather forecast questions for a city.',
  agentCard: weatherUrl,
});

export const rootAgent = new LlmAgent({
  name: 'TripPlanner',
  description: 'Plans trips.',
  instruction: 'Help the user plan a trip. Hand weather questions to WeatherAgent.',
  subAgents: [weather],
});
