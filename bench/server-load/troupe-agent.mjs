// The server scenario's app `weather` for Troupe: one LlmAgent `weather_agent` with the tool
// get_weather (zod schema) and an instant fake model. `troupe api` loads it from a temp apps folder
// (weather/agent.mjs re-exports rootAgent from here), as a user's agent file.
import { BaseLlm, FunctionTool, LlmAgent } from '@troupe/core';
import { z } from 'zod';
import { weather, weatherAnswer } from './weather-model.mjs';

class FakeWeatherLlm extends BaseLlm {
  constructor() {
    super('fake-weather');
  }

  async *generateContentAsync(request) {
    const { content, inputTokens, outputTokens } = weatherAnswer(request.contents);
    yield { content, usage: { inputTokens, outputTokens }, turnComplete: true, finishReason: 'STOP' };
  }
}

const getWeather = new FunctionTool({
  name: 'get_weather',
  description: 'Returns the weather forecast of a city.',
  parameters: z.object({ city: z.string() }),
  execute: (args) => weather(args),
});

export const rootAgent = new LlmAgent({
  name: 'weather_agent',
  model: new FakeWeatherLlm(),
  instruction: 'Answer questions about the weather.',
  tools: [getWeather],
});
