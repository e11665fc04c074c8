// The server scenario's app `weather` for Google ADK JS 2.0 (`adk api_server`, @google/adk-devtools):
// one LlmAgent `weather_agent` with the FunctionTool get_weather (zod schema) and the same instant
// fake model as Troupe's (../server-load/weather-model.mjs). The apps folder's weather/agent.mjs
// re-exports rootAgent from here; ADK's loader bundles it with esbuild, as it does a user's agent.
import { BaseLlm, FunctionTool, LlmAgent } from '@google/adk';
import { z } from 'zod';
import { weather, weatherAnswer } from '../server-load/weather-model.mjs';

class FakeWeatherLlm extends BaseLlm {
  constructor() {
    super({ model: 'fake-weather' });
  }

  async *generateContentAsync(request) {
    const { content, inputTokens, outputTokens } = weatherAnswer(request.contents);
    yield {
      content,
      usageMetadata: {
        promptTokenCount: inputTokens,
        candidatesTokenCount: outputTokens,
        totalTokenCount: inputTokens + outputTokens,
      },
      turnComplete: true,
      finishReason: 'STOP',
    };
  }

  async connect() {
    throw new Error('FakeWeatherLlm has no live mode.');
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
