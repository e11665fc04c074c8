/**
 * Agent to agent (A2A), the served side: a weather agent that other agents call over A2A.
 *
 * `troupe api --a2a` serves it at /a2a/weather, its agent card (its name, its description, a
 * skill for it and one for its tool) at /a2a/weather/.well-known/agent-card.json. Any A2A client
 * can call it: `../trip-planner` does, as a sub-agent, from another process; so could ADK's
 * RemoteA2AAgent or the official A2A SDK's client.
 *
 * Try (two terminals, from the repository root):
 *   npx troupe api examples/a2a/weather/agent.ts --a2a --port 8001
 *   npx troupe run examples/a2a/trip-planner --input "What is the weather forecast for Lisbon?"
 */
import { z } from 'zod';
import { FunctionTool, LlmAgent } from '@troupe/core';

/** A stand-in for a weather service: the same forecast for every city, so the example runs offline. */
export const getForecast = new FunctionTool({
  name: 'get_forecast',
  description: 'Gets the weather forecast for a city.',
  parameters: z.object({ city: z.string().describe('The city, e.g. Lisbon') }),
  execute: ({ city }) => ({ city, forecast: 'sunny, 24°C, light wind from the north' }),
});

export const rootAgent = new LlmAgent({
  name: 'WeatherAgent',
  description: 'Answers weather forecast questions for a city.',
  instruction:
    'Answer questions about the weather. Call get_forecast with the city, then give the forecast in one sentence.',
  tools: [getForecast],
});
