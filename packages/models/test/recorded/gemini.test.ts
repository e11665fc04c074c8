import { FunctionTool, InMemoryRunner, LlmAgent, ModelError, type BaseLlm, type Part } from '@troupe/core';
import { gemini } from '@troupe/models';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { asker, collect } from '../support/collect.js';
import type { FakeServer, Reply } from '../support/fake-server.js';
import { serverPerTest } from '../support/server-per-test.js';
import { body, events, last, replayGeminiStream, replayJson, streamedText, type Recorded } from './replay.js';

/** Real Gemini API traffic recorded by the Vercel AI SDK (see README.md), replayed through gemini(). */

const ask = asker('gemini-3-pro-preview');
const json = (name: string, status?: number): Reply => replayJson('gemini', name, status);
const stream = (name: string): Reply => replayGeminiStream(name);

/** The parts of every recorded chunk of a stream (or of one body), in order. */
function recordedParts(recorded: Recorded[]): Recorded[] {
  return recorded.flatMap(
    (chunk) => (chunk.candidates as { content: { parts: Recorded[] } }[] | undefined)?.[0]?.content.parts ?? [],
  );
}

function signatureIn(recorded: Recorded[]): string {
  const signature = recordedParts(recorded).find((p) => typeof p.thoughtSignature === 'string')?.thoughtSignature;
  if (typeof signature !== 'string') throw new Error('The fixture has no thoughtSignature.');
  return signature;
}

function contents(request: { body: Recorded }): { role: string; parts: Recorded[] }[] {
  return request.body.contents as { role: string; parts: Recorded[] }[];
}

describe('recorded Gemini API traffic', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));
  const model = (name = 'gemini-3-pro-preview'): BaseLlm =>
    gemini(name, { apiKey: 'test', baseURL: server.url, retry: false });

  it('google-text (JSON): the answer with its thoughtSignature, thinking counted into the output', async () => {
    server.reply(json('google-text.json'));
    const [final] = await collect(model(), ask());
    const recorded = recordedParts([body('gemini', 'google-text.json')])[0]!;
    expect(final!.content!.parts).toEqual([{ text: recorded.text, thoughtSignature: recorded.thoughtSignature }]);
    expect(final!.content!.parts[0]).toMatchObject({
      text: expect.stringMatching(/^There are \*\*3\*\* r's in strawberry\./) as unknown,
    });
    expect(final!.finishReason).toBe('STOP');
    expect(final!.usage).toEqual({ inputTokens: 9, outputTokens: 28 + 244, thoughtTokens: 244 });
    expect(server.requests[0]!.path).toMatch(/\/models\/gemini-3-pro-preview:generateContent$/);
  });

  it('google-text and google-reasoning (stream): text deltas, then a last chunk holding only the signature', async () => {
    server.reply(stream('google-text.chunks.txt'), stream('google-reasoning.chunks.txt'));
    const text = await collect(model(), ask(), true);
    expect(streamedText(text)).toBe('There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y');
    expect(text.filter((r) => r.partial)).toHaveLength(2);
    expect(last(text).content!.parts).toEqual([
      {
        text: 'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y',
        thoughtSignature: signatureIn(events('gemini', 'google-text.chunks.txt')),
      },
    ]);
    expect(last(text).usage).toEqual({ inputTokens: 9, outputTokens: 23 + 185, thoughtTokens: 185 });
    expect(server.requests[0]!.path).toMatch(/:streamGenerateContent\?alt=sse$/);

    const reasoning = last(await collect(model(), ask(), true));
    expect(reasoning.content!.parts).toEqual([
      {
        text: 'There are **3** "r"s in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.',
        thoughtSignature: signatureIn(events('gemini', 'google-reasoning.chunks.txt')),
      },
    ]);
    expect(reasoning.usage).toEqual({ inputTokens: 9, outputTokens: 29 + 256, thoughtTokens: 256 });
  });

  it('google-reasoning and google-tool-call-gemini3 (JSON): signatures on text and call, finishMessage of a call turn', async () => {
    server.reply(json('google-reasoning.json'), json('google-tool-call-gemini3.json'));
    const [reasoning] = await collect(model(), ask());
    expect(reasoning!.content!.parts).toEqual([
      {
        text: 'There are **3** "r"s in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.',
        thoughtSignature: signatureIn([body('gemini', 'google-reasoning.json')]),
      },
    ]);
    expect(reasoning!.usage).toEqual({ inputTokens: 9, outputTokens: 29 + 282, thoughtTokens: 282 });
    const [call] = await collect(model(), ask());
    expect(call!.content!.parts).toEqual([
      {
        functionCall: { id: expect.any(String) as unknown, name: 'weather', args: { location: 'San Francisco' } },
        thoughtSignature: signatureIn([body('gemini', 'google-tool-call-gemini3.json')]),
      },
    ]);
    expect(call!.finishReason).toBe('STOP');
    expect(call!.errorCode).toBeUndefined();
    expect(call!.usage).toEqual({ inputTokens: 29, outputTokens: 15 + 1801, thoughtTokens: 1801 });
  });

  it('google-tool-call (stream) through an agent: the tool runs and the next request carries the call with its signature', async () => {
    server.reply(stream('google-tool-call.chunks.txt'), stream('google-text.chunks.txt'));
    const seen: string[] = [];
    const weather = new FunctionTool({
      name: 'weather',
      description: 'The weather at a location.',
      parameters: z.object({ location: z.string() }),
      execute: ({ location }) => {
        seen.push(location);
        return { location, temperatureC: 18 };
      },
    });
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: 'forecaster', model: model(), instruction: 'Use the tool.', tools: [weather] }),
    });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({
      userId: 'u',
      sessionId: session.id,
      newMessage: 'Weather in San Francisco?',
      runConfig: { streaming: 'sse' },
    });
    expect(result.error?.message).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(seen).toEqual(['San Francisco']);
    expect(result.output).toBe('There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y');
    expect(result.usage).toMatchObject({ inputTokens: 29 + 9, outputTokens: 15 + 45 + 23 + 185 });
    const sent = contents(server.requests[1]!);
    // Gemini made no call id, so none goes back: the call as it came, with its signature.
    expect(sent[1]).toEqual({
      role: 'model',
      parts: [
        {
          functionCall: { name: 'weather', args: { location: 'San Francisco' } },
          thoughtSignature: signatureIn(events('gemini', 'google-tool-call.chunks.txt')),
        },
      ],
    });
    expect(sent[2]).toMatchObject({
      role: 'user',
      parts: [{ functionResponse: { name: 'weather', response: { location: 'San Francisco', temperatureC: 18 } } }],
    });
  });

  it('google-stream-no-args-tool-call (Vertex stream): a thought, a call without args, three parallel calls with streamed arguments', async () => {
    server.reply(stream('google-stream-no-args-tool-call.chunks.txt'));
    const responses = await collect(model('gemini-3-flash-preview'), ask(), true);
    const thought = recordedParts(events('gemini', 'google-stream-no-args-tool-call.chunks.txt'))[0]!.text as string;
    expect(thought).toMatch(/^\*\*Processing User Requests\*\*/);
    expect(streamedText(responses, true)).toBe(thought);
    const parts = last(responses).content!.parts;
    expect(parts[0]).toEqual({ text: thought, thought: true });
    const calls = parts
      .slice(1)
      .map((p: Part) => ('functionCall' in p ? [p.functionCall.name, p.functionCall.args] : p));
    expect(calls).toEqual([
      ['read_theme', {}],
      ['read_screen', { id: 'A' }],
      ['read_screen', { id: 'B' }],
      ['read_screen', { id: 'C' }],
    ]);
    expect(parts[1]).toMatchObject({
      thoughtSignature: signatureIn(events('gemini', 'google-stream-no-args-tool-call.chunks.txt')),
    });
    expect(last(responses).usage).toEqual({ inputTokens: 249, outputTokens: 58 + 183, thoughtTokens: 183 });
  });

  it('Vertex streams with streamed call arguments: two calls, array items by index, a nested object, a last fragment ending the call', async () => {
    server.reply(
      stream('google-stream-tool-call-arguments.chunks.txt'),
      stream('google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt'),
      stream('google-vertex-stream-tool-call-arguments-nested.1.chunks.txt'),
    );
    const callsOf = (parts: Part[]) =>
      parts.flatMap((p) => ('functionCall' in p ? [[p.functionCall.name, p.functionCall.args]] : []));

    const weather = last(await collect(model('gemini-3-pro-preview'), ask(), true));
    expect(callsOf(weather.content!.parts)).toEqual([
      ['getWeather', { location: 'Boston' }],
      ['getWeather', { location: 'San Francisco' }],
    ]);
    expect(weather.content!.parts[0]).toMatchObject({
      thoughtSignature: signatureIn(events('gemini', 'google-stream-tool-call-arguments.chunks.txt')),
    });
    expect(weather.usage).toEqual({ inputTokens: 26, outputTokens: 23 + 132, thoughtTokens: 132 });

    const items = last(await collect(model(), ask(), true));
    expect(callsOf(items.content!.parts)).toEqual([
      [
        'writeItems',
        {
          operations: [
            { action: 'add', description: 'Fresh red apple', itemid: 'apple_001', price: 0.5 },
            { action: 'add', description: 'Ripe yellow banana', itemid: 'banana_001', price: 0.3 },
          ],
        },
      ],
    ]);

    const recipe = last(await collect(model(), ask(), true));
    const [[name, args]] = callsOf(recipe.content!.parts) as [[string, { recipe: Record<string, unknown> }]];
    expect(name).toBe('cookRecipe');
    const { ingredients, steps } = args.recipe as { ingredients: unknown[]; steps: string[] };
    expect(args.recipe.name).toBe('Lasagna');
    expect(ingredients).toHaveLength(10);
    expect(ingredients[0]).toEqual({ amount: '16 oz', name: 'Lasagna noodles' });
    expect(ingredients[9]).toEqual({ amount: '1/2 tsp', name: 'Pepper' });
    expect(steps).toHaveLength(10);
    expect(steps[1]).toBe('Cook lasagna noodles according to package directions, drain and set aside.');
    expect(steps[4]).toBe('In a 9x13 baking dish, spread a thin layer of meat sauce.');
    expect(recipe.usage).toEqual({ inputTokens: 31, outputTokens: 684 + 1026, thoughtTokens: 1026 });
  });

  it("google-429-retry-info (HTTP 429): a ModelError with the status, Gemini's message and the asked wait", async () => {
    server.reply(json('google-429-retry-info.json', 429));
    const error: unknown = await collect(model(), ask()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 429, provider: 'gemini', retryAfterMs: 34_400 });
    expect((error as Error).message).toBe(
      "Gemini request for model 'gemini-3-pro-preview' failed with HTTP 429: You exceeded your current quota, please check your plan. The rate limit or quota was reached.",
    );
  });

  it('an error body that is not JSON still gives a ModelError with the HTTP status', async () => {
    server.reply((res) => {
      res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
    });
    const error: unknown = await collect(model(), ask()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 502, provider: 'gemini' });
    expect((error as Error).message).toContain("Gemini request for model 'gemini-3-pro-preview' failed with HTTP 502");
  });
});
