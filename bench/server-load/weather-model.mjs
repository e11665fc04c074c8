// The fake model of the HTTP server scenario (bench-scenarios.md, `server`), shared by the Troupe and
// the ADK agent: when the last content is not a tool result it calls get_weather({ city: 'Paris' }),
// otherwise it answers with the 20-word text. Instant: no network, no sleep.
import { TEXT } from '../fake-model.mjs';

export { TEXT };
export const CITY = 'Paris';
/** What get_weather returns (both frameworks). */
export const weather = ({ city }) => ({ city, forecast: 'sunny', temperatureC: 21 });

/** One answer for `contents` (the request's conversation): { content, inputTokens, outputTokens }. */
export function weatherAnswer(contents) {
  const last = contents.at(-1);
  const afterTool = last?.parts?.some((p) => p.functionResponse) ?? false;
  const inputTokens = contents.length * 8;
  if (!afterTool) {
    return {
      content: {
        role: 'model',
        parts: [{ functionCall: { id: `call_${Date.now().toString(36)}`, name: 'get_weather', args: { city: CITY } } }],
      },
      inputTokens,
      outputTokens: 6,
    };
  }
  return { content: { role: 'model', parts: [{ text: TEXT }] }, inputTokens, outputTokens: 20 };
}
