import { readFileSync } from 'node:fs';
import { FunctionTool, InMemoryRunner, LlmAgent, ModelError, type LlmResponse } from '@troupe/core';
import { openai } from '@troupe/models';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { asker, collect } from '../support/collect.js';
import { json, sse, type FakeServer, type Reply } from '../support/fake-server.js';
import { input } from '../support/openai-responses-wire.js';
import { serverPerTest } from '../support/server-per-test.js';

/**
 * Real OpenAI Responses API traffic recorded by the Vercel AI SDK (see README.md), replayed through
 * the adapter by the local server: the JSON bodies as they came, the streams event by event.
 */

const DIR = new URL('./fixtures/openai-responses/', import.meta.url);

type Event = Record<string, unknown> & { type: string };
type Item = Record<string, unknown> & { type: string };

function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(name, DIR), 'utf8')) as Record<string, unknown>;
}

/** The recorded streams of a `.chunks.txt` file (one event per line), split at each `response.created`. */
function streams(name: string): Event[][] {
  const events = readFileSync(new URL(name, DIR), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Event);
  const out: Event[][] = [];
  for (const event of events) {
    if (event.type === 'response.created' || out.length === 0) out.push([]);
    out[out.length - 1]!.push(event);
  }
  return out;
}

function replay(events: readonly Event[]): Reply {
  return sse(events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}`));
}

function outputOf(body: Record<string, unknown>): Item[] {
  return body.output as Item[];
}

function completedOutput(events: readonly Event[]): Item[] {
  const done = events.find((e) => e.type === 'response.completed');
  return outputOf(done!.response as Record<string, unknown>);
}

function textOf(items: readonly Item[]): string {
  const message = items.find((i) => i.type === 'message');
  return (message!.content as { text: string }[]).map((c) => c.text).join('');
}

function partialText(responses: LlmResponse[], thought: boolean): string {
  return responses
    .filter((r) => r.partial)
    .flatMap((r) => r.content?.parts ?? [])
    .map((p) => ('text' in p && Boolean(p.thought) === thought ? p.text : ''))
    .join('');
}

const ask = asker('gpt-5-mini');

describe('recorded OpenAI Responses API traffic', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));
  const model = (name = 'gpt-5-mini') =>
    openai.responses(name, { apiKey: 'sk-test', baseURL: `${server.url}/v1`, retry: false });

  it('openai-reasoning-encrypted-content (stream): a calculator agent carries the encrypted reasoning to the next turns', async () => {
    const turns = streams('openai-reasoning-encrypted-content.1.chunks.txt');
    expect(turns).toHaveLength(4);
    const reasoning = completedOutput(turns[0]!).find((i) => i.type === 'reasoning')!;
    expect(reasoning.encrypted_content).toMatch(/^gAAAAA/);
    server.reply(...turns.map(replay));
    const calculator = new FunctionTool({
      name: 'calculator',
      description: 'A minimal calculator for basic arithmetic. Call it once per step.',
      parameters: z.object({ a: z.number(), b: z.number(), op: z.enum(['add', 'subtract', 'multiply', 'divide']) }),
      execute: ({ a, b, op }) => ({
        result: op === 'add' ? a + b : op === 'subtract' ? a - b : op === 'multiply' ? a * b : a / b,
      }),
    });
    const agent = new LlmAgent({
      name: 'calc',
      model: model(),
      instruction: 'Use the calculator.',
      tools: [calculator],
    });
    const runner = new InMemoryRunner({ agent });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({
      userId: 'u',
      sessionId: session.id,
      newMessage: 'What is (12 + 7) * 3 * 10? Show the steps.',
      runConfig: { streaming: 'sse' },
    });
    expect(result.status).toBe('completed');
    expect(result.output).toBe('The final result is **570**.');
    expect(result.usage).toMatchObject({ inputTokens: 134 + 221 + 260 + 299, outputTokens: 28 + 26 + 26 + 12 });
    const thought = result.events
      .filter((e) => !e.partial)
      .flatMap((e) => e.content?.parts ?? [])
      .find((p) => 'text' in p && p.thought);
    expect(thought).toMatchObject({
      thought: true,
      text: expect.stringMatching(/^\*\*Calculating step-by-step using calculator\*\*/),
    });

    const [, second, third, fourth] = server.requests;
    const carried = {
      type: 'reasoning',
      id: 'rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9',
      summary: reasoning.summary,
      encrypted_content: reasoning.encrypted_content,
    };
    expect(input(second!)).toEqual([
      { role: 'user', content: 'What is (12 + 7) * 3 * 10? Show the steps.' },
      carried,
      {
        type: 'function_call',
        call_id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn',
        name: 'calculator',
        arguments: '{"a":12,"b":7,"op":"add"}',
      },
      { type: 'function_call_output', call_id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn', output: '{"result":19}' },
    ]);
    // Every later turn of the same agent on the same model still carries it, before its call.
    for (const request of [third!, fourth!]) {
      const items = input(request);
      expect(items[1]).toEqual(carried);
      expect(items[2]).toMatchObject({ type: 'function_call', call_id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn' });
    }
    expect(
      input(fourth!)
        .filter((i) => i.type === 'function_call_output')
        .map((i) => i.output),
    ).toEqual(['{"result":19}', '{"result":57}', '{"result":570}']);
  });

  it('openai-reasoning-encrypted-content (JSON): summary as thought, the answer, usage with reasoning tokens', async () => {
    const body = fixture('openai-reasoning-encrypted-content.1.json');
    server.reply(json(200, body));
    const [final] = await collect(model(), ask());
    const reasoning = outputOf(body).find((i) => i.type === 'reasoning')!;
    expect(final!.content!.parts).toEqual([
      { text: (reasoning.summary as { text: string }[])[0]!.text, thought: true },
      {
        text: '12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570',
        openaiReasoning: {
          model: 'gpt-5-mini',
          items: [
            {
              type: 'reasoning',
              id: 'rs_0f35ed53160b395301693cc95817ac8190b978637daea4987e',
              summary: reasoning.summary,
              encrypted_content: reasoning.encrypted_content,
            },
          ],
        },
      },
    ]);
    expect(final!.usage).toEqual({ inputTokens: 865, outputTokens: 163, cachedTokens: 0, thoughtTokens: 128 });
    expect(final!.finishReason).toBe('STOP');
  });

  it('openai-web-search-tool (stream): the answer streamed once, its url citations, web_search_call items skipped', async () => {
    const [events] = streams('openai-web-search-tool.1.chunks.txt');
    const output = completedOutput(events!);
    const message = output.find((i) => i.type === 'message')!;
    const annotations = (message.content as { annotations: unknown[] }[])[0]!.annotations;
    server.reply(replay(events!));
    const responses = await collect(
      model('gpt-5'),
      ask({}, [{ role: 'user', parts: [{ text: 'Tech news today?' }] }]),
      true,
    );
    const final = responses[responses.length - 1]!;
    expect(partialText(responses, false)).toBe(textOf(output));
    expect(final.content!.parts).toEqual([{ text: textOf(output), openaiAnnotations: annotations }]);
    expect(annotations).toHaveLength(12);
    expect(annotations[0]).toMatchObject({
      type: 'url_citation',
      start_index: 277,
      end_index: 411,
      url: 'https://techcrunch.com/2025/12/05/petco-confirms-security-lapse-exposed-customers-personal-data/?utm_source=openai',
    });
    expect(final.usage).toEqual({ inputTokens: 31073, outputTokens: 4416, cachedTokens: 3712, thoughtTokens: 3712 });
    // Reasoning stored at OpenAI (store: true, no encrypted content) cannot be sent back statelessly.
    expect(JSON.stringify(final.content)).not.toContain('openaiReasoning');
  });

  it('openai-web-search-tool (JSON) and openai-code-interpreter-tool (JSON): built-in tool items do not break the turn', async () => {
    const search = fixture('openai-web-search-tool.1.json');
    const code = fixture('openai-code-interpreter-tool.1.json');
    server.reply(json(200, search), json(200, code));
    const [searched] = await collect(model('gpt-5'), ask());
    const [computed] = await collect(model('gpt-5'), ask());
    expect(searched!.content!.parts).toHaveLength(1);
    expect(searched!.content!.parts[0]).toMatchObject({ text: textOf(outputOf(search)) });
    expect((searched!.content!.parts[0] as { openaiAnnotations?: unknown[] }).openaiAnnotations).toHaveLength(10);
    expect(searched!.usage).toEqual({
      inputTokens: 19681,
      outputTokens: 3773,
      cachedTokens: 3712,
      thoughtTokens: 3136,
    });
    expect(computed!.content!.parts[0]).toMatchObject({
      text: expect.stringContaining('Total sum across all 10,000 rolls: 70024'),
    });
    expect(computed!.usage).toEqual({ inputTokens: 2283, outputTokens: 1928, cachedTokens: 0, thoughtTokens: 1792 });
  });

  it('parallel-tool-call-wrapper (JSON): the invented `parallel` call becomes the calls it wraps', async () => {
    server.reply(json(200, fixture('parallel-tool-call-wrapper.1.json')));
    const [final] = await collect(model('gpt-5.4'), ask());
    expect(final!.content!.parts).toEqual([
      { functionCall: { id: 'call_parallel_0', name: 'weather', args: { location: 'San Francisco' } } },
      { functionCall: { id: 'call_parallel_1', name: 'cityAttractions', args: { city: 'Rome' } } },
    ]);
    expect(final!.usage).toEqual({ inputTokens: 34, outputTokens: 28, cachedTokens: 0, thoughtTokens: 0 });
  });

  it('lmstudio-tool-call (stream, LM Studio): raw reasoning text as thought, the answer, the call, usage', async () => {
    const [events] = streams('lmstudio-tool-call.1.chunks.txt');
    const output = completedOutput(events!);
    const reasoningText = (output[0]!.content as { text: string }[])[0]!.text;
    server.reply(replay(events!));
    const responses = await collect(
      model('mistralai/ministral-3-14b-reasoning'),
      ask({}, [{ role: 'user', parts: [{ text: 'What is the weather in San Francisco?' }] }]),
      true,
    );
    const final = responses[responses.length - 1]!;
    expect(partialText(responses, true)).toBe(reasoningText);
    expect(partialText(responses, false)).toBe("I'll get the current weather information for San Francisco for you.");
    expect(final.content!.parts).toEqual([
      { text: reasoningText, thought: true },
      { text: "I'll get the current weather information for San Francisco for you." },
      { functionCall: { id: 'call_2025306790300011', name: 'weather', args: { location: 'San Francisco' } } },
    ]);
    expect(final.usage).toEqual({ inputTokens: 182, outputTokens: 61, cachedTokens: 2, thoughtTokens: 48 });
  });

  it('openai-error (JSON, HTTP 429) and reasoning-model-temperature-error (JSON, HTTP 400): ModelErrors with OpenAI message', async () => {
    server.reply(
      json(429, fixture('openai-error.1.json')),
      json(400, fixture('reasoning-model-temperature-error.json')),
    );
    const quota: unknown = await collect(model('gpt-5-nano'), ask()).catch((e: unknown) => e);
    const temperature: unknown = await collect(model('gpt-5-nano'), ask({ temperature: 0.5 })).catch((e: unknown) => e);
    expect(quota).toBeInstanceOf(ModelError);
    expect((quota as ModelError).status).toBe(429);
    expect((quota as Error).message).toMatch(
      /^OpenAI Responses API request for model 'gpt-5-nano' failed with HTTP 429: You exceeded your current quota, please check your plan and billing details\./,
    );
    expect((temperature as ModelError).status).toBe(400);
    expect((temperature as Error).message).toBe(
      "OpenAI Responses API request for model 'gpt-5-nano' failed with HTTP 400: Unsupported parameter: 'temperature' is not supported with this model.",
    );
  });

  it('openai-error (stream): the error event ends the call with a ModelError', async () => {
    const [events] = streams('openai-error.1.chunks.txt');
    server.reply(replay(events!));
    const error: unknown = await collect(model('gpt-5-nano'), ask(), true).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).provider).toBe('openai');
    expect((error as Error).message).toMatch(
      /^OpenAI Responses API stream for model 'gpt-5-nano' broke off: You exceeded your current quota, please check your plan and billing details\./,
    );
  });
});
