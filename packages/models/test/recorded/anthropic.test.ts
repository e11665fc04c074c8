import { FunctionTool, InMemoryRunner, LlmAgent, ModelError, type BaseLlm } from '@troupe/core';
import { anthropic } from '@troupe/models';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { asker, collect } from '../support/collect.js';
import { sse, type FakeServer, type Reply } from '../support/fake-server.js';
import { serverPerTest } from '../support/server-per-test.js';
import { body, events, last, replayAnthropicStream, replayJson, streamedText, type Recorded } from './replay.js';

/** Real Anthropic Messages API traffic recorded by the Vercel AI SDK (see README.md), replayed through anthropic(). */

const ask = asker('claude-sonnet-4-5');
const json = (name: string): Reply => replayJson('anthropic', name);
const stream = (name: string): Reply => replayAnthropicStream(name);

/** Runs one user turn through an agent on `model` in the session, returning the run's result. */
async function turn(runner: InMemoryRunner, sessionId: string, message: string, streaming: boolean) {
  return runner.run({
    userId: 'u',
    sessionId,
    newMessage: message,
    runConfig: { streaming: streaming ? 'sse' : 'none' },
  });
}

function messages(request: { body: Recorded }): { role: string; content: Recorded[] }[] {
  return request.body.messages as { role: string; content: Recorded[] }[];
}

describe('recorded Anthropic Messages API traffic', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));
  const model = (options: { body?: Record<string, unknown> } = {}): BaseLlm =>
    anthropic('claude-sonnet-4-5', { apiKey: 'test', baseURL: server.url, retry: false, ...options });

  it('anthropic-text (JSON and stream): the answer, end_turn as STOP, usage with the cache read count', async () => {
    server.reply(json('anthropic-text.json'), stream('anthropic-text.chunks.txt'));
    const [whole] = await collect(model(), ask());
    expect(whole!.content!.parts).toEqual([
      {
        text: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?",
      },
    ]);
    expect(whole!.finishReason).toBe('STOP');
    expect(whole!.usage).toEqual({ inputTokens: 12, outputTokens: 29, cachedTokens: 0 });

    const streamed = await collect(model(), ask(), true);
    const text =
      "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?";
    expect(streamedText(streamed)).toBe(text);
    expect(streamed.filter((r) => r.partial)).toHaveLength(6);
    expect(last(streamed).content!.parts).toEqual([{ text }]);
    expect(last(streamed).usage).toEqual({ inputTokens: 12, outputTokens: 30, cachedTokens: 0 });
  });

  it("anthropic-message-delta-input-tokens (stream): the input count of message_delta replaces message_start's", async () => {
    server.reply(stream('anthropic-message-delta-input-tokens.chunks.txt'));
    const responses = await collect(model(), ask(), true);
    expect(streamedText(responses)).toBe('pong');
    expect(last(responses).usage).toEqual({ inputTokens: 61, outputTokens: 2 });
  });

  it('anthropic-tool-no-args (JSON) through an agent: the call with {} runs, and the next request carries call and result', async () => {
    server.reply(json('anthropic-tool-no-args.json'), json('anthropic-text.json'));
    const runs: unknown[] = [];
    const updateIssueList = new FunctionTool({
      name: 'updateIssueList',
      description: 'Refreshes the issue list.',
      parameters: z.object({}),
      execute: (args) => {
        runs.push(args);
        return { updated: 3 };
      },
    });
    const runner = new InMemoryRunner({
      agent: new LlmAgent({
        name: 'issues',
        model: model(),
        instruction: 'Keep issues fresh.',
        tools: [updateIssueList],
      }),
    });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await turn(runner, session.id, 'Update the issue list.', false);
    expect(result.status).toBe('completed');
    expect(runs).toEqual([{}]);
    expect(result.output).toBe(
      "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?",
    );
    expect(result.usage).toMatchObject({ inputTokens: 602 + 12, outputTokens: 93 + 29 });
    const sent = messages(server.requests[1]!);
    expect(sent[1]).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'text',
          text: expect.stringMatching(/^<thinking>\nThe updateIssueList tool was provided/) as unknown,
        },
        { type: 'tool_use', id: 'toolu_01LRmxn9vGM1d2DZSDBowdZ1', name: 'updateIssueList', input: {} },
      ],
    });
    expect(sent[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_01LRmxn9vGM1d2DZSDBowdZ1', content: '{"updated":3}' }],
    });
  });

  it('anthropic-tool-no-args (stream): a tool_use whose input comes as {} and an empty input_json_delta', async () => {
    server.reply(stream('anthropic-tool-no-args.chunks.txt'));
    const responses = await collect(model(), ask(), true);
    expect(streamedText(responses)).toBe("I'll update the issue list for you.");
    expect(last(responses).content!.parts).toEqual([
      { text: "I'll update the issue list for you." },
      { functionCall: { id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP', name: 'updateIssueList', args: {} } },
    ]);
    expect(last(responses).finishReason).toBe('STOP');
    expect(last(responses).usage).toEqual({ inputTokens: 565, outputTokens: 48, cachedTokens: 0 });
  });

  it('anthropic-clear-thinking (stream) through an agent: the thinking block and its signature go back in the next request', async () => {
    const recorded = body('anthropic', 'anthropic-clear-thinking.1.json');
    expect(recorded.content).toHaveLength(2);
    server.reply(stream('anthropic-clear-thinking.1.chunks.txt'), json('anthropic-text.json'));
    const runner = new InMemoryRunner({
      agent: new LlmAgent({
        name: 'math',
        model: model({ body: { thinking: { type: 'enabled', budget_tokens: 1024 } } }),
        instruction: 'Answer briefly.',
      }),
    });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const first = await turn(runner, session.id, 'Divide the previous result by 5.', true);
    expect(first.output).toBe('925 ÷ 5 = 185');
    const thought = first.events
      .filter((e) => !e.partial)
      .flatMap((e) => e.content?.parts ?? [])
      .find((p) => 'text' in p && p.thought);
    expect(thought).toMatchObject({
      text: 'The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185',
    });
    expect(first.usage).toMatchObject({ inputTokens: 69, outputTokens: 53 });

    await turn(runner, session.id, 'Thanks.', false);
    const assistant = messages(server.requests[1]!)[1]!;
    expect(assistant.role).toBe('assistant');
    expect(assistant.content).toEqual([
      {
        type: 'thinking',
        thinking: 'The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185',
        signature: expect.stringMatching(
          /^EvQBCkYICxgCKkAxhD4NUKFzudtZ6NzbZdEiBACIScTzqjPViM596iWLZIk4EFKYYBj3B6Ptl3b0/,
        ) as unknown,
      },
      { type: 'text', text: '925 ÷ 5 = 185' },
    ]);
  });

  it('anthropic-clear-thinking and claude-opus-5-reasoning-high (JSON): thought, answer, signature kept, thinking token count', async () => {
    server.reply(json('anthropic-clear-thinking.1.json'), json('anthropic-claude-opus-5-reasoning-high.1.json'));
    const [clear] = await collect(model(), ask());
    const recorded = body('anthropic', 'anthropic-clear-thinking.1.json').content as Recorded[];
    expect(clear!.content!.parts).toEqual([
      { text: '925 divided by 5 = 185', thought: true },
      {
        text: '925 ÷ 5 = 185',
        anthropicThinking: [
          { type: 'thinking', thinking: '925 divided by 5 = 185', signature: recorded[0]!.signature },
        ],
      },
    ]);
    const [opus] = await collect(model(), ask());
    const parts = opus!.content!.parts;
    expect(parts[0]).toMatchObject({
      thought: true,
      text: expect.stringMatching(/^I need to find all roots of this cubic/),
    });
    expect(parts[1]).toMatchObject({ text: expect.stringMatching(/^## Step 1: Set up the problem/) });
    expect(opus!.usage).toEqual({ inputTokens: 51, outputTokens: 1699, cachedTokens: 0, thoughtTokens: 139 });
  });

  it('anthropic-refusal (JSON and stream): SAFETY with the stop_details explanation as the error message', async () => {
    const explanation =
      "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.";
    server.reply(
      json('anthropic-refusal.json'),
      stream('anthropic-refusal.chunks.txt'),
      json('anthropic-refusal-no-details.json'),
    );
    const [whole] = await collect(model(), ask());
    expect(whole).toMatchObject({ finishReason: 'SAFETY', errorCode: 'SAFETY', errorMessage: explanation });
    expect(whole!.usage).toEqual({ inputTokens: 18, outputTokens: 5, cachedTokens: 0 });
    const streamed = last(await collect(model(), ask(), true));
    expect(streamed).toMatchObject({ finishReason: 'SAFETY', errorCode: 'SAFETY', errorMessage: explanation });
    const [bare] = await collect(model(), ask());
    expect(bare).toMatchObject({
      finishReason: 'SAFETY',
      errorCode: 'SAFETY',
      errorMessage: 'The model stopped with SAFETY before answering.',
    });
  });

  it('spliced-message-start (stream): a second message_start restarts the turn; only the last message is kept', async () => {
    server.reply(stream('spliced-message-start.chunks.txt'), stream('duplicate-message-start.chunks.txt'));
    const responses = await collect(model(), ask(), true);
    expect(last(responses).content!.parts).toEqual([
      { text: 'Let me call the tool.', thought: true },
      {
        functionCall: { id: 'toolu_second', name: 'test-tool', args: { value: 'Sparkle Day' } },
        anthropicThinking: [{ type: 'thinking', thinking: 'Let me call the tool.', signature: 'sig-second' }],
      },
    ]);
    const duplicate = await collect(model(), ask(), true);
    expect(last(duplicate).content!.parts).toEqual([{ text: 'Hello, World!' }]);
    expect(last(duplicate).usage).toEqual({ inputTokens: 17, outputTokens: 227 });
  });

  it('spliced-message-start (stream) through an agent: the kept thinking block goes back before the call it preceded', async () => {
    server.reply(stream('spliced-message-start.chunks.txt'), stream('anthropic-text.chunks.txt'));
    const values: string[] = [];
    const tool = new FunctionTool({
      name: 'test-tool',
      description: 'Records a value.',
      parameters: z.object({ value: z.string() }),
      execute: ({ value }) => {
        values.push(value);
        return { ok: true };
      },
    });
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: 'caller', model: model(), instruction: 'Call the tool.', tools: [tool] }),
    });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await turn(runner, session.id, 'Name a holiday.', true);
    expect(result.error?.message).toBeUndefined();
    expect(values).toEqual(['Sparkle Day']);
    expect(messages(server.requests[1]!).slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Let me call the tool.', signature: 'sig-second' },
          { type: 'tool_use', id: 'toolu_second', name: 'test-tool', input: { value: 'Sparkle Day' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_second', content: '{"ok":true}' }] },
    ]);
  });

  it("anthropic-web-fetch-tool (JSON and stream): server tool blocks (web_fetch and its result) stay the provider's; no call reaches the agent", async () => {
    server.reply(json('anthropic-web-fetch-tool.1.json'), stream('anthropic-web-fetch-tool.1.chunks.txt'));
    const [whole] = await collect(model(), ask());
    const texts = (body('anthropic', 'anthropic-web-fetch-tool.1.json').content as Recorded[])
      .filter((block) => block.type === 'text')
      .map((block) => block.text as string);
    expect(texts[0]).toBe("I'll fetch the Wikipedia page about Maglemosian culture to tell you what it's about.");
    expect(whole!.content!.parts).toEqual([{ text: texts.join('') }]);
    expect(whole!.usage).toEqual({ inputTokens: 4234, outputTokens: 462, cachedTokens: 0 });

    const responses = await collect(model(), ask(), true);
    const text = streamedText(responses);
    expect(text).toHaveLength(1664);
    expect(text.startsWith("I'll fetch the content from that Wikipedia page to tell you what it's about.")).toBe(true);
    expect(last(responses).content!.parts).toEqual([{ text }]);
    expect(last(responses).finishReason).toBe('STOP');
    expect(last(responses).usage).toEqual({ inputTokens: 4230, outputTokens: 446, cachedTokens: 0 });
  });

  it("overloaded-error (HTTP 529, and as an error event inside a stream): a retryable ModelError with Anthropic's message", async () => {
    const overloaded = body('anthropic', 'overloaded-error.json');
    const [start] = events('anthropic', 'anthropic-text.chunks.txt');
    server.reply(
      replayJson('anthropic', 'overloaded-error.json', 529),
      sse([
        `event: message_start\ndata: ${JSON.stringify(start)}`,
        `event: error\ndata: ${JSON.stringify(overloaded)}`,
      ]),
    );
    const error: unknown = await collect(model(), ask()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 529, provider: 'anthropic', retryable: true });
    expect((error as Error).message).toBe(
      "Anthropic request for model 'claude-sonnet-4-5' failed with HTTP 529: Overloaded",
    );
    const streamError: unknown = await collect(model(), ask(), true).catch((e: unknown) => e);
    expect(streamError).toBeInstanceOf(ModelError);
    expect(streamError).toMatchObject({ provider: 'anthropic', retryable: true });
    expect((streamError as Error).message).toBe("Anthropic stream for model 'claude-sonnet-4-5' broke off: Overloaded");
  });

  it('an error body that is not JSON still gives a ModelError with the HTTP status', async () => {
    server.reply((res) => {
      res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
    });
    const error: unknown = await collect(model(), ask()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 502, provider: 'anthropic' });
    expect((error as Error).message).toContain('HTTP 502');
  });
});
