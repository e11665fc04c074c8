import { FunctionTool, InMemoryRunner, LlmAgent, ModelError, type BaseLlm } from '@troupe/core';
import { openai, openaiCompatible } from '@troupe/models';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { asker, collect } from '../support/collect.js';
import type { FakeServer, Reply } from '../support/fake-server.js';
import { serverPerTest } from '../support/server-per-test.js';
import {
  body,
  events,
  last,
  replayChatStream,
  replayFramed,
  replayJson,
  streamedText,
  type Recorded,
} from './replay.js';

/**
 * Real Chat Completions traffic (OpenAI, Azure OpenAI, xAI, DeepSeek, Groq, a gateway in front of
 * Claude) recorded by the Vercel AI SDK (see README.md), replayed through openai() and
 * openaiCompatible().
 */

const ask = asker('gpt-4.1-nano');
const json = (name: string, status?: number): Reply => replayJson('openai-chat', name, status);

/** The text a recorded stream sends in `delta[field]`, joined. */
function deltas(name: string, field: 'content' | 'reasoning_content'): string {
  return events('openai-chat', name)
    .map((chunk) => (chunk.choices as { delta: Recorded }[])[0]?.delta[field])
    .filter((piece): piece is string => typeof piece === 'string')
    .join('');
}

function message(name: string): Recorded {
  return (body('openai-chat', name).choices as { message: Recorded }[])[0]!.message;
}

describe('recorded Chat Completions traffic', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));
  const model = (name = 'gpt-4.1-nano'): BaseLlm =>
    openai(name, { apiKey: 'test', baseURL: `${server.url}/v1`, retry: false });
  const compatible = (name: string, label: string): BaseLlm =>
    openaiCompatible(name, { name: label, baseURL: `${server.url}/v1`, retry: false });

  it('openai-text (JSON): the answer, stop as STOP, usage with zero cached and reasoning tokens', async () => {
    server.reply(json('openai-text.json'));
    const [final] = await collect(model(), ask());
    const text = message('openai-text.json').content as string;
    expect(text).toMatch(/^\*\*Holiday Name:\*\* Galaxy Day {2}\n/);
    expect(final!.content!.parts).toEqual([{ text }]);
    expect(final!.finishReason).toBe('STOP');
    expect(final!.usage).toEqual({ inputTokens: 16, outputTokens: 363, cachedTokens: 0, thoughtTokens: 0 });
    expect(server.requests[0]!.path).toBe('/v1/chat/completions');
  });

  it('openai-text (stream): 300 deltas streamed as they came, the whole answer once, usage from the last chunk', async () => {
    server.reply(replayChatStream('openai-text.chunks.txt'));
    const responses = await collect(model(), ask(), true);
    const text = deltas('openai-text.chunks.txt', 'content');
    expect(text).toHaveLength(1724);
    expect(text.startsWith('**Holiday Name:** Harmony Day\n\n')).toBe(true);
    expect(text.endsWith('through shared human experiences and mutual respect.')).toBe(true);
    expect(streamedText(responses)).toBe(text);
    expect(last(responses).content!.parts).toEqual([{ text }]);
    expect(last(responses).usage).toEqual({ inputTokens: 16, outputTokens: 300, cachedTokens: 0, thoughtTokens: 0 });
    expect(server.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('azure-model-router (stream): a first chunk without choices, reasoning tokens inside the completion count', async () => {
    server.reply(replayChatStream('azure-model-router.1.chunks.txt'));
    const responses = await collect(model('gpt-5-nano'), ask(), true);
    expect(last(responses).content!.parts).toEqual([{ text: 'Capital of Denmark.' }]);
    expect(last(responses).finishReason).toBe('STOP');
    expect(last(responses).usage).toEqual({ inputTokens: 15, outputTokens: 78, cachedTokens: 0, thoughtTokens: 64 });
  });

  it('xai-tool-call (JSON and stream): reasoning_content as thought, the call, reasoning counted apart from the completion', async () => {
    server.reply(json('xai-tool-call.json'), replayChatStream('xai-tool-call.chunks.txt'));
    const xai = compatible('grok-3-mini', 'xai');
    const [whole] = await collect(xai, ask());
    expect(whole!.content!.parts).toEqual([
      { text: message('xai-tool-call.json').reasoning_content, thought: true },
      { functionCall: { id: 'call_46427107', name: 'weather', args: { location: 'San Francisco' } } },
    ]);
    expect(whole!.finishReason).toBe('STOP');
    // total_tokens 588 = 307 + 26 + 255: xAI counts reasoning apart, Troupe's output count holds both.
    expect(whole!.usage).toEqual({ inputTokens: 307, outputTokens: 26 + 255, cachedTokens: 244, thoughtTokens: 255 });

    const responses = await collect(xai, ask(), true);
    const thought = deltas('xai-tool-call.chunks.txt', 'reasoning_content');
    expect(thought).toHaveLength(1069);
    expect(streamedText(responses, true)).toBe(thought);
    expect(last(responses).content!.parts).toEqual([
      { text: thought, thought: true },
      { functionCall: { id: 'call_79382389', name: 'weather', args: { location: 'San Francisco' } } },
    ]);
    expect(last(responses).usage).toEqual({
      inputTokens: 307,
      outputTokens: 26 + 227,
      cachedTokens: 306,
      thoughtTokens: 227,
    });
  });

  it('anthropic-fallback-tool-call (gateway stream): a call at index 1 with empty argument fragments', async () => {
    server.reply(replayFramed('openai-chat', 'anthropic-fallback-tool-call.sse'));
    const responses = await collect(compatible('claude-haiku-4-5', 'gateway'), ask(), true);
    expect(streamedText(responses)).toBe('Reading it.');
    expect(last(responses).content!.parts).toEqual([
      { text: 'Reading it.' },
      { functionCall: { id: 'toolu_sanitized', name: 'read_file', args: { path: 'a.txt' } } },
    ]);
    expect(last(responses).finishReason).toBe('STOP');
  });

  it('openai-node-refusal (gpt-4o stream with structured output): the refusal is the answer text, finish reason SAFETY', async () => {
    server.reply(replayFramed('openai-chat', 'openai-node-refusal.sse'));
    const responses = await collect(model('gpt-4o-2024-08-06'), ask(), true);
    const refusal = "I'm very sorry, but I can't assist with that request.";
    expect(streamedText(responses)).toBe(refusal);
    expect(last(responses).content!.parts).toEqual([{ text: refusal }]);
    expect(last(responses).finishReason).toBe('SAFETY');
    expect(last(responses).usage).toEqual({ inputTokens: 17, outputTokens: 13 });
  });

  it('groq-tool-call (JSON and stream): a call with {} arguments; usage without token details', async () => {
    server.reply(json('groq-tool-call.json'), replayChatStream('groq-tool-call.chunks.txt'));
    const groq = compatible('llama-3.3-70b-versatile', 'groq');
    const [whole] = await collect(groq, ask());
    expect(whole!.content!.parts).toEqual([{ functionCall: { id: 'ax9fskhev', name: 'weather', args: {} } }]);
    expect(whole!.usage).toEqual({ inputTokens: 218, outputTokens: 15 });
    const streamed = last(await collect(groq, ask(), true));
    expect(streamed.content!.parts).toEqual([{ functionCall: { id: 'tk85n1k4m', name: 'weather', args: {} } }]);
    expect(streamed.usage).toEqual({ inputTokens: 210, outputTokens: 15 });
  });

  it('deepseek-reasoning (JSON): reasoning_content as thought before the answer, reasoning inside the completion count', async () => {
    server.reply(json('deepseek-reasoning.json'));
    const [final] = await collect(compatible('deepseek-reasoner', 'deepseek'), ask());
    const recorded = message('deepseek-reasoning.json');
    expect(final!.content!.parts).toEqual([
      { text: recorded.reasoning_content, thought: true },
      {
        text: 'The word "strawberry" contains three instances of the letter "r": one after the "t" and two before the "y".',
      },
    ]);
    expect(final!.usage).toEqual({ inputTokens: 18, outputTokens: 345, cachedTokens: 0, thoughtTokens: 315 });
  });

  it('deepseek-tool-call (stream) through an agent: arguments in fragments, the tool runs, the next request carries the call and its result', async () => {
    server.reply(replayChatStream('deepseek-tool-call.chunks.txt'), replayChatStream('deepseek-reasoning.chunks.txt'));
    const seen: unknown[] = [];
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
      agent: new LlmAgent({
        name: 'forecaster',
        model: compatible('deepseek-reasoner', 'deepseek'),
        instruction: 'Use the weather tool.',
        tools: [weather],
      }),
    });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({
      userId: 'u',
      sessionId: session.id,
      newMessage: 'What is the weather in San Francisco?',
      runConfig: { streaming: 'sse' },
    });
    expect(result.error?.message).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(seen).toEqual(['San Francisco']);
    expect(result.output).toBe('The word "strawberry" contains three "r"s.');
    expect(result.usage).toMatchObject({ inputTokens: 339 + 18, outputTokens: 83 + 219 });
    const sent = server.requests[1]!.body.messages as Recorded[];
    expect(sent.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF',
            type: 'function',
            function: { name: 'weather', arguments: '{"location":"San Francisco"}' },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF',
        content: '{"location":"San Francisco","temperatureC":18}',
      },
    ]);
  });

  it("reasoning-model-legacy-parameter-error (HTTP 400): a ModelError with the status and OpenAI's message", async () => {
    server.reply(json('reasoning-model-legacy-parameter-error.json', 400));
    const error: unknown = await collect(model('o3-mini'), ask()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 400, provider: 'openai' });
    expect((error as Error).message).toBe(
      "OpenAI request for model 'o3-mini' failed with HTTP 400: Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    );
  });

  it('an error body that is not JSON still gives a ModelError with the HTTP status', async () => {
    server.reply((res) => {
      res.writeHead(503, { 'content-type': 'text/html' }).end('<html><body>503 Service Unavailable</body></html>');
    });
    const error: unknown = await collect(model(), ask()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 503, provider: 'openai' });
    expect((error as Error).message).toContain("OpenAI request for model 'gpt-4.1-nano' failed with HTTP 503");
  });
});
