import {
  contentText,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  ModelError,
  type BaseLlm,
  type Content,
  type LlmRequest,
  type LlmRequestConfig,
  type LlmResponse,
  type Part,
} from '@troupe/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collect } from './collect.js';
import { FakeServer, hang } from './fake-server.js';
import type { WireKit } from './kit.js';

const USAGE = { inputTokens: 12, outputTokens: 7, cachedTokens: 4, thoughtTokens: 2 };
const WEATHER = {
  name: 'get_weather',
  description: 'The weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const TIME = {
  name: 'get_time',
  description: 'The time in a zone.',
  parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
};
const FAST_RETRY = { retry: { initialDelayMs: 1, maxDelayMs: 5000, jitter: false } };

function request(
  config: Partial<LlmRequestConfig> = {},
  contents: Content[] = [{ role: 'user', parts: [{ text: 'Hello?' }] }],
): LlmRequest {
  return { model: 'test', contents, config: { systemInstruction: 'Be brief.', ...config } };
}

function parts(responses: LlmResponse[]): Part[] {
  return responses.flatMap((r) => r.content?.parts ?? []);
}

function finalOf(responses: LlmResponse[]): LlmResponse {
  const finals = responses.filter((r) => !r.partial);
  expect(finals).toHaveLength(1);
  expect(responses[responses.length - 1]).toBe(finals[0]);
  return finals[0]!;
}

function calculator(model: BaseLlm): { agent: LlmAgent; runner: InMemoryRunner } {
  const add = new FunctionTool({
    name: 'add',
    description: 'Adds two numbers.',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => ({ sum: a + b }),
  });
  const agent = new LlmAgent({
    name: 'calculator',
    model,
    instruction: 'Add numbers with the add tool, then answer.',
    tools: [add],
    outputSchema: z.object({ sum: z.number(), explanation: z.string() }),
    outputKey: 'answer',
  });
  return { agent, runner: new InMemoryRunner({ agent }) };
}

async function ask(runner: InMemoryRunner, message: string) {
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  return runner.run({ userId: 'u', sessionId: session.id, newMessage: message, runConfig: { streaming: 'sse' } });
}

/**
 * The behaviour every provider adapter shares, run against a fake server that speaks that
 * provider's wire protocol: answers, streaming, tool calls and their results, structured output,
 * usage, and the faults (rate limits, bad keys, dropped streams, malformed calls, hung servers).
 */
export function describeAdapterContract(
  name: string,
  kit: WireKit,
  options: {
    sendsCallIds: boolean;
    /**
     * How a call the model could not form is recovered: passed on with its raw arguments, so the
     * tool's error goes back to the model (`'error-result'`); or, where the provider reports the
     * failure without the call (Gemini), asked again by the retry policy (`'retried'`).
     */
    malformed: 'error-result' | 'retried';
  },
): void {
  describe(`${name} adapter contract`, () => {
    let server: FakeServer;
    beforeEach(async () => {
      server = await FakeServer.start();
    });
    afterEach(async () => {
      expect(server.unexpected.map((r) => r.path)).toEqual([]);
      await server.close();
    });

    it('answers with text, thought, usage and finish reason', async () => {
      server.reply(kit.text('Paris is the capital.', { usage: USAGE, thought: 'The user asks about France.' }));
      const responses = await collect(kit.model(server), request({ temperature: 0.2, maxOutputTokens: 100 }), false);
      const final = finalOf(responses);
      expect(responses).toHaveLength(1);
      expect(final.turnComplete).toBe(true);
      // A part may also carry what the provider needs back in later turns (Anthropic's thinking blocks).
      expect(final.content?.parts).toMatchObject([
        { text: 'The user asks about France.', thought: true },
        { text: 'Paris is the capital.' },
      ]);
      expect(contentText(final.content)).toBe('Paris is the capital.');
      expect(final.usage).toEqual(USAGE);
      expect(final.finishReason).toBe('STOP');
      const sent = server.requests[0]!;
      expect(kit.isStreaming(sent)).toBe(false);
      expect(kit.system(sent)).toBe('Be brief.');
    });

    it('streams text deltas as partial responses, then the whole answer once', async () => {
      server.reply(kit.text('Streaming works fine today.', { usage: USAGE, thought: 'Think first.' }));
      const responses = await collect(kit.model(server), request(), true);
      const final = finalOf(responses);
      const partials = responses.filter((r) => r.partial);
      expect(partials.length).toBeGreaterThanOrEqual(3);
      const streamed = parts(partials);
      expect(streamed.every((p) => 'text' in p)).toBe(true);
      expect(streamed.map((p) => ('text' in p && !p.thought ? p.text : '')).join('')).toBe(
        'Streaming works fine today.',
      );
      expect(streamed.map((p) => ('text' in p && p.thought ? p.text : '')).join('')).toBe('Think first.');
      // A part may also carry what the provider needs back in later turns (Anthropic's thinking blocks).
      expect(final.content?.parts).toMatchObject([
        { text: 'Think first.', thought: true },
        { text: 'Streaming works fine today.' },
      ]);
      expect(final.usage).toEqual(USAGE);
      expect(final.finishReason).toBe('STOP');
      expect(kit.isStreaming(server.requests[0]!)).toBe(true);
    });

    it.each([false, true])('returns several tool calls of one turn (stream: %s)', async (stream) => {
      server.reply(
        kit.toolCalls([
          { id: 'call_1', name: 'get_weather', json: '{"city": "Paris"}' },
          { id: 'call_2', name: 'get_time', json: '{"zone": "CET"}' },
        ]),
      );
      const responses = await collect(kit.model(server), request({ tools: [WEATHER, TIME] }), stream);
      const final = finalOf(responses);
      expect(parts(responses.filter((r) => r.partial)).some((p) => 'functionCall' in p)).toBe(false);
      const calls = (final.content?.parts ?? []).flatMap((p) => ('functionCall' in p ? [p.functionCall] : []));
      expect(calls.map((c) => [c.name, c.args])).toEqual([
        ['get_weather', { city: 'Paris' }],
        ['get_time', { zone: 'CET' }],
      ]);
      if (options.sendsCallIds) expect(calls.map((c) => c.id)).toEqual(['call_1', 'call_2']);
      expect(new Set(calls.map((c) => c.id)).size).toBe(2);
      expect(calls.every((c) => /^[\w-]+$/.test(c.id))).toBe(true);
      expect(kit.toolNames(server.requests[0]!)).toEqual(['get_weather', 'get_time']);
    });

    it('sends the calls and their results back in the follow-up turn', async () => {
      const history: Content[] = [
        { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
        {
          role: 'model',
          parts: [
            { functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } } },
            { functionCall: { id: 'call_2', name: 'get_time', args: { zone: 'CET' } } },
          ],
        },
        {
          role: 'user',
          parts: [{ functionResponse: { id: 'call_1', name: 'get_weather', response: { forecast: 'sunny' } } }],
        },
        {
          role: 'user',
          parts: [{ functionResponse: { id: 'call_2', name: 'get_time', response: { time: '12:00' } } }],
        },
      ];
      server.reply(kit.text('Sunny, and it is noon.'));
      const final = finalOf(await collect(kit.model(server), request({ tools: [WEATHER, TIME] }, history), false));
      expect(contentText(final.content)).toBe('Sunny, and it is noon.');
      const sent = server.requests[0]!;
      expect(kit.calls(sent)).toEqual([
        { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } },
        { id: 'call_2', name: 'get_time', args: { zone: 'CET' } },
      ]);
      expect(kit.results(sent)).toEqual([
        { id: 'call_1', name: 'get_weather', response: { forecast: 'sunny' } },
        { id: 'call_2', name: 'get_time', response: { time: '12:00' } },
      ]);
    });

    it('asks for structured output with the JSON schema', async () => {
      const schema = {
        type: 'object',
        properties: { city: { type: 'string' }, population: { type: 'number' } },
        required: ['city', 'population'],
        additionalProperties: false,
      };
      server.reply(kit.text('{"city":"Paris","population":2100000}'));
      const final = finalOf(await collect(kit.model(server), request({ responseSchema: schema }), false));
      expect(JSON.parse(contentText(final.content))).toEqual({ city: 'Paris', population: 2_100_000 });
      expect(kit.responseSchema(server.requests[0]!)).toEqual(schema);
    });

    it('retries a 429 after the Retry-After the provider asked for', async () => {
      server.reply(
        kit.error(429, 'Rate limit reached for requests', { 'retry-after': '0.3' }),
        kit.text('After the wait.'),
      );
      const started = performance.now();
      const final = finalOf(await collect(kit.model(server, FAST_RETRY), request(), false));
      expect(performance.now() - started).toBeGreaterThanOrEqual(280);
      expect(contentText(final.content)).toBe('After the wait.');
      expect(server.requests).toHaveLength(2);
    });

    it.each([false, true])(
      'does not retry a 401 and names the provider, the status and its message (stream: %s)',
      async (stream) => {
        server.reply(kit.error(401, 'Incorrect API key provided: sk-bad.'));
        const error: unknown = await collect(kit.model(server, FAST_RETRY), request(), stream).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ModelError);
        const modelError = error as ModelError;
        expect(modelError.status).toBe(401);
        expect(modelError.provider).toBe(kit.provider);
        expect(modelError.message).toContain(kit.label);
        expect(modelError.message).toContain('401');
        expect(modelError.message).toContain('Incorrect API key provided: sk-bad.');
        expect(server.requests).toHaveLength(1);
      },
    );

    it('gives up on repeated 503s after maxAttempts with the last error', async () => {
      server.reply(kit.error(503, 'Overloaded 1'), kit.error(503, 'Overloaded 2'), kit.error(503, 'Overloaded 3'));
      const error: unknown = await collect(
        kit.model(server, { retry: { maxAttempts: 3, initialDelayMs: 1, jitter: false } }),
        request(),
        false,
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelError);
      expect((error as ModelError).status).toBe(503);
      expect((error as ModelError).message).toContain('Overloaded 3');
      expect(server.requests).toHaveLength(3);
    });

    it('fails a stream cut in the middle without retrying or repeating text', async () => {
      server.reply(kit.cut(['Hello', ', wor']));
      const seen: LlmResponse[] = [];
      const error: unknown = await (async () => {
        for await (const response of kit.model(server, FAST_RETRY).generateContentAsync(request(), true))
          seen.push(response);
      })().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelError);
      expect((error as ModelError).message).toContain(kit.label);
      expect(seen.every((r) => r.partial)).toBe(true);
      expect(
        parts(seen)
          .map((p) => ('text' in p ? p.text : ''))
          .join(''),
      ).toBe('Hello, wor');
      expect(server.requests).toHaveLength(1);
    });

    it.each([false, true])('cancels a hung connection through the abort signal (stream: %s)', async (stream) => {
      server.reply(hang());
      const controller = new AbortController();
      const reason = new Error('The user cancelled.');
      const pending = collect(kit.model(server), request(), stream, controller.signal).catch((e: unknown) => e);
      await server.waitForRequests(1);
      const aborted = performance.now();
      controller.abort(reason);
      expect(await pending).toBe(reason);
      expect(performance.now() - aborted).toBeLessThan(2000);
      await server.requests[0]!.closed;
      expect(server.requests).toHaveLength(1);
    });

    it('runs an LlmAgent with a tool and an output schema through InMemoryRunner', async () => {
      const { runner } = calculator(kit.model(server));
      server.reply(
        kit.toolCalls([{ id: 'call_add', name: 'add', json: '{"a": 2, "b": 3}' }], { usage: USAGE }),
        kit.text('{"sum": 5, "explanation": "2 plus 3 is 5."}', { usage: USAGE }),
      );
      const result = await ask(runner, 'What is 2 + 3?');
      expect(result.error).toBeUndefined();
      expect(result.status).toBe('completed');
      expect(result.output).toEqual({ sum: 5, explanation: '2 plus 3 is 5.' });
      expect(result.state.answer).toEqual({ sum: 5, explanation: '2 plus 3 is 5.' });
      expect(result.usage.inputTokens).toBe(24);
      const [first, second] = server.requests;
      expect(kit.toolNames(first!)).toEqual(['add']);
      expect(kit.system(first!)).toContain('Add numbers with the add tool');
      expect(kit.results(second!)).toMatchObject([{ name: 'add', response: { sum: 5 } }]);
      expect(kit.results(second!)[0]!.id).toBe(kit.calls(second!)[0]!.id);
      // The schema is sent natively, or in the instruction where the model cannot combine it with tools.
      expect(kit.responseSchema(second!) !== undefined || /JSON Schema/.test(kit.system(second!) ?? '')).toBe(true);
    });

    it('lets an LlmAgent recover from a tool call with malformed JSON arguments', async () => {
      const { runner } = calculator(kit.model(server, FAST_RETRY));
      server.reply(
        kit.malformedCall('add', '{"a": 2, "b": '),
        kit.toolCalls([{ id: 'call_fixed', name: 'add', json: '{"a": 2, "b": 3}' }]),
        kit.text('{"sum": 5, "explanation": "fixed"}'),
      );
      const result = await ask(runner, 'What is 2 + 3?');
      expect(result.error).toBeUndefined();
      expect(result.status).toBe('completed');
      expect(result.output).toEqual({ sum: 5, explanation: 'fixed' });
      if (options.malformed === 'retried') {
        expect(kit.results(server.requests[1]!)).toEqual([]);
        expect(server.requests[1]!.body).toEqual(server.requests[0]!.body);
        expect(kit.results(server.requests[2]!).map((r) => r.response)).toEqual([{ sum: 5 }]);
        return;
      }
      const [toolError] = kit.results(server.requests[1]!);
      expect(toolError?.name).toBe('add');
      expect(JSON.stringify(toolError?.response)).toMatch(/Invalid arguments for tool 'add'/);
      expect(kit.results(server.requests[2]!).map((r) => r.response)).toEqual([toolError?.response, { sum: 5 }]);
    });
  });
}
