import {
  ConfigurationError,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  ModelError,
  resolveModel,
  Runner,
  SequentialAgent,
  type BaseLlm,
  type LlmRequest,
  type LlmResponse,
} from '@troupe/core';
import { anthropic, gemini, OpenAiLlm, OpenAiResponsesLlm, openai, openaiResponses } from '@troupe/models';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { asker, collect } from './support/collect.js';
import { describeAdapterContract } from './support/contract.js';
import { json, sse, type FakeServer } from './support/fake-server.js';
import type { WireKit } from './support/kit.js';
import * as anthropicWire from './support/anthropic-wire.js';
import * as geminiWire from './support/gemini-wire.js';
import * as chatWire from './support/openai-wire.js';
import * as wire from './support/openai-responses-wire.js';
import { publishedAdapterContract } from './support/published-contract.js';
import { serverPerTest } from './support/server-per-test.js';

const kit: WireKit = {
  label: 'OpenAI Responses API',
  provider: 'openai',
  model: (server, options = {}) =>
    openai.responses('gpt-test', { apiKey: 'sk-test', baseURL: `${server.url}/v1`, ...options }),
  ...wire,
};

describeAdapterContract('openai responses', kit, { sendsCallIds: true, malformed: 'error-result' });
publishedAdapterContract('OpenAiResponsesLlm', kit, wire.lastUserText);

const ask = asker('gpt-test');
const WEATHER = {
  name: 'get_weather',
  description: 'The weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const FAST_RETRY = { retry: { initialDelayMs: 1, maxDelayMs: 50, jitter: false } } as const;

function finalOf(responses: LlmResponse[]): LlmResponse {
  const last = responses[responses.length - 1];
  expect(last?.partial).toBeFalsy();
  return last!;
}

describe('openai responses request format', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));

  it('sends instructions, input items, strict function tools, sampling settings, store: false and encrypted reasoning', async () => {
    server.reply(wire.text('ok'));
    const closed = {
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
      additionalProperties: false,
    };
    const open = { type: 'object', properties: { q: { type: 'string' }, n: { type: 'number' } }, required: ['q'] };
    await collect(
      kit.model(server),
      ask(
        {
          systemInstruction: 'You are terse.',
          temperature: 0.3,
          topP: 0.9,
          maxOutputTokens: 256,
          tools: [
            { name: 'lookup', description: 'Looks things up.', parameters: closed },
            { name: 'search', description: 'Searches.', parameters: open },
          ],
          providerOptions: { openai: { reasoning: { effort: 'low' } }, anthropic: { ignored: true } },
        },
        [{ role: 'user', parts: [{ text: 'Hi' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] }],
      ),
    );
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1/responses');
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.body).toEqual({
      model: 'gpt-test',
      instructions: 'You are terse.',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Hi' },
            { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
          ],
        },
      ],
      tools: [
        { type: 'function', name: 'lookup', description: 'Looks things up.', parameters: closed, strict: true },
        { type: 'function', name: 'search', description: 'Searches.', parameters: open, strict: false },
      ],
      parallel_tool_calls: true,
      temperature: 0.3,
      top_p: 0.9,
      max_output_tokens: 256,
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'low' },
      stream: false,
    });
    expect(sent.body).not.toHaveProperty('previous_response_id');
  });

  it('sends built-in tools after the function tools, from the model and from providerOptions', async () => {
    server.reply(wire.text('ok'));
    const model = openai.responses('gpt-test', {
      apiKey: 'k',
      baseURL: `${server.url}/v1`,
      builtinTools: [{ type: 'web_search' }],
      parallelToolCalls: false,
    });
    await collect(
      model,
      ask({
        tools: [{ name: 'f', description: 'F.' }],
        providerOptions: { openai: { tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] } },
      }),
    );
    const body = server.requests[0]!.body;
    expect(body.tools).toEqual([
      {
        type: 'function',
        name: 'f',
        description: 'F.',
        parameters: { type: 'object', properties: {}, additionalProperties: false },
        strict: true,
      },
      { type: 'web_search' },
      { type: 'code_interpreter', container: { type: 'auto' } },
    ]);
    expect(body.parallel_tool_calls).toBe(false);
  });

  it('asks for structured output with text.format json_schema, strict when the schema allows it', async () => {
    server.reply(wire.text('{}'), wire.text('{}'));
    const strict = {
      title: 'City info',
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    };
    const lenient = { type: 'object', properties: { a: { type: 'string' } } };
    const model = kit.model(server);
    await collect(model, ask({ responseSchema: strict }));
    await collect(model, ask({ responseSchema: lenient }));
    expect(server.requests[0]!.body.text).toEqual({
      format: { type: 'json_schema', name: 'City_info', schema: strict, strict: true },
    });
    expect(server.requests[1]!.body.text).toEqual({
      format: { type: 'json_schema', name: 'response', schema: lenient, strict: false },
    });
  });

  it('sends the history as items: assistant text, function_call and function_call_output by call_id, no thoughts', async () => {
    server.reply(wire.text('ok'));
    await collect(
      kit.model(server),
      ask({}, [
        { role: 'user', parts: [{ text: 'Go' }] },
        {
          role: 'model',
          parts: [
            { text: 'Planning.', thought: true },
            { text: 'Calling.' },
            { functionCall: { id: 'call_a', name: 'f', args: { x: 1 } } },
            { functionCall: { id: 'call_b', name: 'g', args: {} } },
          ],
        },
        { role: 'user', parts: [{ text: '[other] said: hi' }] },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'call_a', name: 'f', response: { y: 2 } } },
            { functionResponse: { id: 'call_b', name: 'g', response: { z: 3 } } },
          ],
        },
      ]),
    );
    expect(wire.input(server.requests[0]!)).toEqual([
      { role: 'user', content: 'Go' },
      { role: 'assistant', content: 'Calling.' },
      { type: 'function_call', call_id: 'call_a', name: 'f', arguments: '{"x":1}' },
      { type: 'function_call', call_id: 'call_b', name: 'g', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_a', output: '{"y":2}' },
      { type: 'function_call_output', call_id: 'call_b', output: '{"z":3}' },
      { role: 'user', content: '[other] said: hi' },
    ]);
  });

  it('sends a prompt_cache_key when the agent caches', async () => {
    server.reply(wire.text('ok'));
    const request: LlmRequest = { ...ask(), cache: { key: 'session-key', ttl: '5m', minTokens: 1024 } };
    await collect(kit.model(server), request);
    expect(server.requests[0]!.body.prompt_cache_key).toBe('session-key');
  });

  it('rejects what the Responses API cannot send, naming the setting and the fix', async () => {
    const error: unknown = await collect(kit.model(server), ask({ stopSequences: ['END'] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(/config\.stopSequences.*Responses API has no stop sequences.*openai\(\)/);
    expect(server.requests).toHaveLength(0);
  });

  it('rejects bad options with the option, the value and the fix', () => {
    expect(() => openai.responses('')).toThrow(/openai\.responses\(\) needs a model name/);
    expect(() => openai.responses('m', { builtinTools: [{ type: 'function' }] })).toThrow(
      /builtinTools must list Responses API built-in tools.*"type":"function".*agent \(tools\)/,
    );
    expect(() => openai.responses('m', { parallelToolCalls: 'yes' as never })).toThrow(
      /parallelToolCalls is "yes"; use true or false/,
    );
    expect(() => openai.responses('m', { contextCache: { ttl: '1h' } })).toThrow(
      /contextCache\.ttl is not supported by OpenAI/,
    );
  });
});

describe('openai responses model strings', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('resolves openai-responses/<model>; openai() and openai/<model> stay on Chat Completions', () => {
    process.env.OPENAI_API_KEY = 'sk-x';
    const model = resolveModel('openai-responses/gpt-5-mini');
    expect(model).toBeInstanceOf(OpenAiResponsesLlm);
    expect(model.model).toBe('gpt-5-mini');
    expect(resolveModel('openai/gpt-4o-mini')).toBeInstanceOf(OpenAiLlm);
    expect(openai('gpt-4o-mini')).toBeInstanceOf(OpenAiLlm);
    expect(openai.responses('gpt-5')).toBeInstanceOf(OpenAiResponsesLlm);
    expect(openai.responses).toBe(openaiResponses);
  });

  it('names OPENAI_API_KEY and openai.responses() when no key is set', async () => {
    delete process.env.OPENAI_API_KEY;
    const error: unknown = await collect(openai.responses('gpt-5'), ask()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(/OPENAI_API_KEY.*apiKey.*openai\.responses\(\)/);
  });
});

describe('openai responses answers', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));

  it.each([false, true])(
    'reports a refusal as the chat adapter does: its text, finish reason SAFETY (stream: %s)',
    async (stream) => {
      server.reply(wire.respond([wire.refusalMessage("I can't help with that.")]));
      const final = finalOf(await collect(kit.model(server), ask(), stream));
      expect(final.content?.parts).toEqual([{ text: "I can't help with that." }]);
      expect(final.finishReason).toBe('SAFETY');
      expect(final.errorCode).toBeUndefined();
    },
  );

  it.each([false, true])(
    'maps incomplete responses: max_output_tokens and content_filter (stream: %s)',
    async (stream) => {
      server.reply(
        wire.respond([wire.message('Truncat')], { incomplete: 'max_output_tokens' }),
        wire.respond([], { incomplete: 'content_filter' }),
      );
      const model = kit.model(server);
      const truncated = finalOf(await collect(model, ask(), stream));
      const filtered = finalOf(await collect(model, ask(), stream));
      expect(truncated).toMatchObject({ finishReason: 'MAX_TOKENS', content: { parts: [{ text: 'Truncat' }] } });
      expect(truncated.errorCode).toBeUndefined();
      expect(filtered).toMatchObject({ finishReason: 'SAFETY', errorCode: 'SAFETY' });
    },
  );

  it('maps usage: cached input tokens and reasoning tokens', async () => {
    server.reply(
      json(
        200,
        wire.responseBody([wire.message('ok')], {
          usage: { inputTokens: 2006, outputTokens: 300, cachedTokens: 1920, thoughtTokens: 256 },
        }),
      ),
    );
    const final = finalOf(await collect(kit.model(server), ask()));
    expect(final.usage).toEqual({ inputTokens: 2006, outputTokens: 300, cachedTokens: 1920, thoughtTokens: 256 });
  });

  it('fails with a ModelError on an error event in the stream, with its message and code, not retrying a lasting one', async () => {
    server.reply(
      sse([
        ...wire.streamFrames([]).slice(0, 2),
        'event: error\ndata: {"type":"error","code":"insufficient_quota","message":"You exceeded your current quota.","param":null,"sequence_number":2}',
      ]),
    );
    const error: unknown = await collect(kit.model(server, FAST_RETRY), ask(), true).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).provider).toBe('openai');
    expect((error as ModelError).status).toBeUndefined();
    expect((error as Error).message).toBe(
      "OpenAI Responses API stream for model 'gpt-test' broke off: You exceeded your current quota. (insufficient_quota)",
    );
    expect(server.requests).toHaveLength(1);
  });

  it('retries a response.failed with a server error, then answers', async () => {
    server.reply(
      sse([
        ...wire.streamFrames([]).slice(0, 2),
        `event: response.failed\ndata: ${JSON.stringify({
          type: 'response.failed',
          sequence_number: 2,
          response: wire.responseBody([], {
            status: 'failed',
            error: { code: 'server_error', message: 'The server had an error.' },
          }),
        })}`,
      ]),
      wire.text('Second time lucky.'),
    );
    const final = finalOf(await collect(kit.model(server, FAST_RETRY), ask(), true));
    expect(final.content?.parts).toEqual([{ text: 'Second time lucky.' }]);
    expect(server.requests).toHaveLength(2);
  });

  it('fails a non-streamed response whose status is failed', async () => {
    server.reply(
      json(
        200,
        wire.responseBody([], {
          status: 'failed',
          error: { code: 'invalid_prompt', message: 'The prompt was flagged.' },
        }),
      ),
    );
    const error: unknown = await collect(kit.model(server, FAST_RETRY), ask()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as Error).message).toBe(
      "OpenAI Responses API response for model 'gpt-test' was unusable: The prompt was flagged. (invalid_prompt)",
    );
    expect(server.requests).toHaveLength(1);
  });

  it('reports an HTTP error with its status and OpenAI message', async () => {
    server.reply(wire.error(400, "Unsupported parameter: 'temperature' is not supported with this model."));
    const error: unknown = await collect(kit.model(server, FAST_RETRY), ask({ temperature: 0.5 }), true).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).status).toBe(400);
    expect((error as Error).message).toBe(
      "OpenAI Responses API request for model 'gpt-test' failed with HTTP 400: Unsupported parameter: 'temperature' is not supported with this model.",
    );
  });

  it.each([false, true])(
    'keeps url citations on the answer and skips web_search_call items (stream: %s)',
    async (stream) => {
      const citation = { type: 'url_citation', url: 'https://example.com/a', title: 'A', start_index: 0, end_index: 5 };
      server.reply(
        wire.respond([
          { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'a' } },
          wire.message('Hello from the web.', [citation]),
        ]),
      );
      const final = finalOf(await collect(kit.model(server), ask(), stream));
      expect(final.content?.parts).toEqual([{ text: 'Hello from the web.', openaiAnnotations: [citation] }]);
    },
  );

  it('builds the turn from the streamed items, arguments from their deltas, when response.completed has no output', async () => {
    const frames = wire
      .streamFrames([
        wire.message('Checking.'),
        wire.functionCall({ id: 'call_1', name: 'get_weather', json: '{"city":"Rome"}' }, 1),
      ])
      // No output_item.done for the call: its arguments exist only as deltas.
      .filter((frame) => !frame.includes('"type":"response.output_item.done","output_index":1'));
    const last = frames[frames.length - 1]!;
    const data = JSON.parse(last.slice(last.indexOf('data: ') + 6)) as { response: { output: unknown[] } };
    data.response.output = [];
    frames[frames.length - 1] = `event: response.completed\ndata: ${JSON.stringify(data)}`;
    server.reply(sse(frames));
    const final = finalOf(await collect(kit.model(server), ask(), true));
    expect(final.content?.parts).toEqual([
      { text: 'Checking.' },
      { functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Rome' } } },
    ]);
  });

  it('returns a generated image as an inline PNG part', async () => {
    server.reply(
      wire.respond([
        { type: 'image_generation_call', id: 'ig_1', status: 'completed', result: 'iVBORw0KGgo=' },
        wire.message('Here it is.'),
      ]),
    );
    const final = finalOf(await collect(kit.model(server), ask()));
    expect(final.content?.parts).toEqual([
      { text: 'Here it is.' },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
    ]);
  });
});

describe('openai responses reasoning between turns', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));

  const SUMMARY = 'I need the weather tool.';

  function weatherAgent(name: string, model: BaseLlm): LlmAgent {
    const weather = new FunctionTool({
      name: 'get_weather',
      description: 'The weather in a city.',
      parameters: z.object({ city: z.string() }),
      execute: ({ city }) => ({ city, forecast: 'sunny' }),
    });
    return new LlmAgent({ name, model, instruction: 'Answer with the weather tool.', tools: [weather] });
  }

  function model(name: string): BaseLlm {
    return openai.responses(name, { apiKey: 'sk-test', baseURL: `${server.url}/v1` });
  }

  async function run(runner: Runner, sessionId: string, message: string, streaming: boolean) {
    return runner.run({
      userId: 'u',
      sessionId,
      newMessage: message,
      runConfig: { streaming: streaming ? 'sse' : 'none' },
    });
  }

  const reasoningCall = (id: string, encrypted: string) =>
    wire.respond(
      [
        wire.reasoning([SUMMARY], encrypted, `rs_${id}`),
        wire.functionCall({ id: `call_${id}`, name: 'get_weather', json: '{"city":"Paris"}' }),
      ],
      { usage: { inputTokens: 50, outputTokens: 40, thoughtTokens: 30 } },
    );

  it.each([false, true])(
    'sends the encrypted reasoning item back before its function call, and not after the agent switches model (stream: %s)',
    async (streaming) => {
      const sessionService = new InMemorySessionService();
      const session = await sessionService.createSession({ appName: 'app', userId: 'u' });
      const first = new Runner({ appName: 'app', agent: weatherAgent('forecaster', model('gpt-a')), sessionService });
      server.reply(reasoningCall('1', 'enc_first'), wire.text('Sunny in Paris.'));
      const result = await run(first, session.id, 'Weather in Paris?', streaming);
      expect(result.status).toBe('completed');
      expect(result.usage.thoughtTokens).toBe(30);
      const thoughts = result.events.flatMap((e) =>
        e.partial ? [] : (e.content?.parts ?? []).filter((p) => 'text' in p && p.thought),
      );
      expect(thoughts).toEqual([{ text: SUMMARY, thought: true }]);

      const second = wire.input(server.requests[1]!);
      expect(second).toEqual([
        { role: 'user', content: 'Weather in Paris?' },
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [{ type: 'summary_text', text: SUMMARY }],
          encrypted_content: 'enc_first',
        },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '{"city":"Paris","forecast":"sunny"}' },
      ]);

      // The same agent on another model: the history stays, the other model's reasoning does not.
      const switched = new Runner({
        appName: 'app',
        agent: weatherAgent('forecaster', model('gpt-b')),
        sessionService,
      });
      server.reply(wire.text('Still sunny.'));
      await run(switched, session.id, 'And now?', streaming);
      const third = wire.input(server.requests[2]!);
      expect(third.filter((item) => item.type === 'reasoning')).toEqual([]);
      expect(third.map((item) => item.type ?? item.role)).toEqual([
        'user',
        'function_call',
        'function_call_output',
        'assistant',
        'user',
      ]);
      expect(server.requests[2]!.body.model).toBe('gpt-b');
    },
  );

  it('keeps reasoning with an answer that has no calls, and drops items without encrypted content', async () => {
    server.reply(
      wire.respond([
        wire.reasoning(['Plain thought.']),
        wire.reasoning(['Kept thought.'], 'enc_kept', 'rs_2'),
        wire.message('Hi.'),
      ]),
    );
    const final = finalOf(await collect(kit.model(server), ask()));
    expect(final.content?.parts).toEqual([
      { text: 'Plain thought.\n\nKept thought.', thought: true },
      {
        text: 'Hi.',
        openaiReasoning: {
          model: 'gpt-test',
          items: [
            {
              type: 'reasoning',
              id: 'rs_2',
              summary: [{ type: 'summary_text', text: 'Kept thought.' }],
              encrypted_content: 'enc_kept',
            },
          ],
        },
      },
    ]);
    server.reply(wire.text('ok'));
    await collect(
      kit.model(server),
      ask({}, [{ role: 'user', parts: [{ text: 'Hi' }] }, final.content!, { role: 'user', parts: [{ text: 'More' }] }]),
    );
    expect(wire.input(server.requests[1]!).map((item) => item.type ?? item.role)).toEqual([
      'user',
      'reasoning',
      'assistant',
      'user',
    ]);
  });

  it('never sends the reasoning to another provider: Chat Completions, Anthropic and Gemini requests leave it out', async () => {
    server.reply(reasoningCall('1', 'enc_switch'));
    const [turn] = await collect(model('gpt-test'), ask({ tools: [WEATHER] }));
    expect(JSON.stringify(turn!.content)).toContain('enc_switch');
    const history = [
      { role: 'user' as const, parts: [{ text: 'Weather in Paris?' }] },
      turn!.content!,
      {
        role: 'user' as const,
        parts: [{ functionResponse: { id: 'call_1', name: 'get_weather', response: { forecast: 'sunny' } } }],
      },
    ];
    server.reply(chatWire.text('Sunny.'), anthropicWire.text('Sunny.'), geminiWire.text('Sunny.'));
    await collect(
      openai('gpt-test', { apiKey: 'sk-test', baseURL: `${server.url}/v1` }),
      ask({ tools: [WEATHER] }, history),
    );
    await collect(
      anthropic('claude-test', { apiKey: 'sk-ant-test', baseURL: server.url }),
      ask({ tools: [WEATHER] }, history),
    );
    await collect(
      gemini('gemini-2.5-flash', { apiKey: 'gm-test', baseURL: server.url }),
      ask({ tools: [WEATHER] }, history),
    );
    for (const request of server.requests.slice(1)) {
      expect(request.raw).toContain('get_weather');
      expect(request.raw).not.toContain('enc_switch');
      expect(request.raw).not.toContain('openaiReasoning');
    }
  });

  it("never shows one agent's reasoning to another agent in the same session", async () => {
    const researcher = weatherAgent('researcher', model('gpt-test'));
    const writer = new LlmAgent({ name: 'writer', model: model('gpt-test'), instruction: 'Write it up.' });
    const sessionService = new InMemorySessionService();
    const session = await sessionService.createSession({ appName: 'app', userId: 'u' });
    const runner = new Runner({
      appName: 'app',
      agent: new SequentialAgent({ name: 'pipeline', subAgents: [researcher, writer] }),
      sessionService,
    });
    server.reply(reasoningCall('1', 'enc_researcher'), wire.text('Sunny.'), wire.text('Report: sunny.'));
    const result = await run(runner, session.id, 'Weather in Paris?', false);
    expect(result.status).toBe('completed');
    expect(wire.input(server.requests[1]!).some((item) => item.encrypted_content === 'enc_researcher')).toBe(true);
    const writerRequest = server.requests[2]!;
    expect(writerRequest.raw).not.toContain('enc_researcher');
    expect(wire.input(writerRequest).every((item) => item.type === undefined)).toBe(true);
    expect(JSON.stringify(wire.input(writerRequest))).toContain("[researcher] called tool 'get_weather'");
  });

  it('splits a parallel-call wrapper the model invented into the calls it lists', async () => {
    server.reply(
      wire.respond([
        wire.functionCall({
          id: 'call_parallel',
          name: 'multi_tool_use.parallel',
          json: JSON.stringify({
            tool_uses: [
              { recipient_name: 'functions.get_weather', parameters: { city: 'Paris' } },
              { recipient_name: 'functions.get_time', parameters: { zone: 'CET' } },
            ],
          }),
        }),
      ]),
    );
    const final = finalOf(await collect(kit.model(server), ask()));
    expect(final.content?.parts).toEqual([
      { functionCall: { id: 'call_parallel_0', name: 'get_weather', args: { city: 'Paris' } } },
      { functionCall: { id: 'call_parallel_1', name: 'get_time', args: { zone: 'CET' } } },
    ]);
  });
});
