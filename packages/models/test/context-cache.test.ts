import {
  ConfigurationError,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  Runner,
  type BaseLlm,
  type ContextCache,
  type CompactionOptions,
  type IncludeContents,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { anthropic, ollama, openai, openaiCompatible } from '@troupe/models';
import { describe, expect, it } from 'vitest';
import type { FakeServer, RecordedRequest } from './support/fake-server.js';
import { serverPerTest } from './support/server-per-test.js';
import * as anthropicWire from './support/anthropic-wire.js';
import * as openaiWire from './support/openai-wire.js';

const lookup = new FunctionTool({
  name: 'lookup',
  description: 'Looks a word up in the glossary.',
  parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  execute: ({ word }) => ({ meaning: `the meaning of ${String(word)}` }),
});

interface Conversation {
  model: BaseLlm;
  runnerCache?: ContextCache;
  agentCache?: ContextCache;
  includeContents?: IncludeContents;
  turns: number;
  sessionId?: string;
  agentName?: string;
  compaction?: CompactionOptions;
}

/** Runs `turns` user turns of one session through a Runner and an LlmAgent on `model`. */
async function converse(options: Conversation) {
  const sessionService = new InMemorySessionService();
  const agent = new LlmAgent({
    name: options.agentName ?? 'Glossary',
    model: options.model,
    // A template: its bytes must stay the same while the state it reads does.
    instruction: 'You explain words about {topic}. Answer in one sentence. Use lookup for words you do not know.',
    tools: [lookup],
    includeContents: options.includeContents,
    ...(options.agentCache === undefined ? {} : { contextCache: options.agentCache }),
  });
  const runner = new Runner({
    appName: 'glossary',
    agent,
    sessionService,
    ...(options.runnerCache === undefined ? {} : { contextCache: options.runnerCache }),
    ...(options.compaction ? { compaction: options.compaction } : {}),
  });
  const session = await sessionService.createSession({
    appName: 'glossary',
    userId: 'u1',
    sessionId: options.sessionId ?? 's1',
    state: { topic: 'sailing' },
  });
  const results = [];
  for (let turn = 1; turn <= options.turns; turn++) {
    const result = await runner.run({
      userId: 'u1',
      sessionId: session.id,
      newMessage: `What is word number ${turn}?`,
    });
    expect(result.status).toBe('completed');
    results.push(result);
  }
  return results;
}

/** The body with its `cache_control` markers taken out: what the provider's cache compares. */
function withoutMarkers(raw: string): { text: string; breakpoints: number[] } {
  const marker = /,"cache_control":\{"type":"ephemeral"(?:,"ttl":"1h")?\}/g;
  const breakpoints: number[] = [];
  let removed = 0;
  const text = raw.replace(marker, (found, offset: number) => {
    breakpoints.push(offset - removed);
    removed += found.length;
    return '';
  });
  return { text, breakpoints };
}

describe('contextCache with Anthropic: cache_control breakpoints', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));
  const claude = () => anthropic('claude-test', { apiKey: 'sk-ant-test', baseURL: server.url, retry: false });

  it('keeps the cached prefix byte-identical from turn to turn in a 10-turn conversation with a history window', async () => {
    for (let turn = 1; turn <= 10; turn++) {
      server.reply(
        anthropicWire.text(`Word ${turn} is a sailing term.`, {
          usage: { inputTokens: 3000, outputTokens: 12, cachedTokens: 2400, cacheWriteTokens: 500 },
        }),
      );
    }
    const results = await converse({
      model: claude(),
      runnerCache: true,
      includeContents: { lastTurns: 4 },
      turns: 10,
    });
    const bodies = server.requests.map((req) => withoutMarkers(req.raw));
    expect(bodies).toHaveLength(10);

    for (const [i, req] of server.requests.entries()) {
      const body = req.body as {
        tools: { name: string; cache_control?: unknown }[];
        system: { type: string; text: string; cache_control?: unknown }[];
        messages: { role: string; content: { cache_control?: unknown }[] }[];
      };
      // In cache order, tools then system then messages, each ending on a breakpoint.
      expect(Object.keys(body).slice(0, 5)).toEqual(['model', 'max_tokens', 'tools', 'system', 'messages']);
      expect(body.tools.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
      expect(body.system).toEqual([
        {
          type: 'text',
          text: 'You explain words about sailing. Answer in one sentence. Use lookup for words you do not know.',
          cache_control: { type: 'ephemeral' },
        },
      ]);
      expect(body.messages.at(-1)!.content.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
      // From the second turn on, the end of the earlier turns is marked too: 4 breakpoints in all.
      expect(bodies[i]!.breakpoints).toHaveLength(i === 0 ? 3 : 4);
    }

    // The tool list and the system prompt: the same offsets and the same bytes before them in every turn.
    const [toolsEnd, systemEnd] = bodies[0]!.breakpoints;
    for (const body of bodies) {
      expect(body.breakpoints.slice(0, 2)).toEqual([toolsEnd, systemEnd]);
      expect(body.text.slice(0, systemEnd)).toBe(bodies[0]!.text.slice(0, systemEnd));
    }

    // Each turn reads what the turn before wrote (its prefix up to its last breakpoint), except
    // when the window moves: by 2 turns every other turn with lastTurns 4 (a window that slid by
    // one turn every turn would miss at turns 6 to 10).
    let reads = 0;
    const moves: number[] = [];
    for (let i = 1; i < bodies.length; i++) {
      const written = bodies[i - 1]!.text.slice(0, bodies[i - 1]!.breakpoints.at(-1));
      if (bodies[i]!.text.startsWith(written)) reads++;
      else moves.push(i + 1);
    }
    expect(moves).toEqual([6, 8, 10]);
    expect(reads).toBe(6);
    // The window still holds at most 4 earlier turns: 2*4 messages + the current one.
    for (const req of server.requests) expect(anthropicWire.messages(req).length).toBeLessThanOrEqual(9);

    // Usage per agent shows cache reads and writes.
    expect(results.at(-1)!.usage.byAgent.Glossary).toEqual({
      inputTokens: 3000,
      outputTokens: 12,
      cachedTokens: 2400,
      cacheWriteTokens: 500,
      thoughtTokens: 0,
    });
  });

  it('after a compaction the prefix changes once, then each turn reads what the one before wrote', async () => {
    for (let turn = 1; turn <= 9; turn++) server.reply(anthropicWire.text(`Word ${turn} is a knot.`));
    const summarizer = new ScriptedModel(['Summary of turns 1 to 3.', 'Summary of turns 1 to 6.', 'Summary of all.']);
    await converse({ model: claude(), runnerCache: true, turns: 9, compaction: { everyInvocations: 3, summarizer } });
    const bodies = server.requests.map((req) => withoutMarkers(req.raw));
    const moves: number[] = [];
    for (let i = 1; i < bodies.length; i++) {
      const written = bodies[i - 1]!.text.slice(0, bodies[i - 1]!.breakpoints.at(-1));
      if (!bodies[i]!.text.startsWith(written)) moves.push(i + 1);
    }
    expect(moves).toEqual([4, 7]);
    expect(server.requests[3]!.raw).toContain('Summary of turns 1 to 3.');
  });

  it("marks with the '1h' ttl, and an agent's own contextCache wins over the runner's", async () => {
    server.reply(anthropicWire.text('One.'), anthropicWire.text('Two.'));
    await converse({ model: claude(), runnerCache: true, agentCache: { ttl: '1h' }, turns: 1 });
    const body = server.requests[0]!.body as { system: { cache_control?: unknown }[] };
    expect(body.system[0]!.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });

    await converse({ model: claude(), runnerCache: true, agentCache: false, turns: 1, sessionId: 's2' });
    expect(server.requests[1]!.raw).not.toContain('cache_control');
  });

  it('caching off changes no request byte', async () => {
    const script = () => {
      for (let turn = 1; turn <= 3; turn++) server.reply(anthropicWire.text(`Answer ${turn}.`));
    };
    script();
    await converse({ model: claude(), includeContents: { lastTurns: 1 }, turns: 3 });
    script();
    // On in the runner, off in the model: the model's word is the last.
    await converse({
      model: anthropic('claude-test', { apiKey: 'sk-ant-test', baseURL: server.url, contextCache: false }),
      runnerCache: true,
      includeContents: { lastTurns: 1 },
      turns: 3,
    });
    const raws = server.requests.map((req) => req.raw);
    expect(raws.slice(3)).toEqual(raws.slice(0, 3));
    expect(raws.join('')).not.toContain('cache_control');
  });

  it("a model's own contextCache caches whatever the agent says; minTokens is refused by name", async () => {
    server.reply(anthropicWire.text('Yes.'));
    await converse({
      model: anthropic('claude-test', { apiKey: 'sk-ant-test', baseURL: server.url, contextCache: { ttl: '1h' } }),
      turns: 1,
    });
    expect(withoutMarkers(server.requests[0]!.raw).breakpoints).toHaveLength(3);
    expect(() => anthropic('claude-test', { contextCache: { minTokens: 2048 } })).toThrow(
      /anthropic\(\) option contextCache\.minTokens is not supported by Anthropic/,
    );
  });
});

describe('contextCache with OpenAI: prompt_cache_key', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));
  const keyOf = (req: RecordedRequest) => req.body.prompt_cache_key;

  it('sends one key per session and agent, the same every turn, and none with caching off', async () => {
    const model = () => openai('gpt-test', { apiKey: 'sk-test', baseURL: server.url, retry: false });
    for (let i = 0; i < 5; i++) server.reply(openaiWire.text('Sure.'));
    await converse({ model: model(), runnerCache: true, turns: 2 });
    await converse({ model: model(), runnerCache: true, turns: 1, sessionId: 's2' });
    await converse({ model: model(), runnerCache: true, turns: 1, agentName: 'Other' });
    await converse({ model: model(), turns: 1, sessionId: 's3' });

    const [first, second, otherSession, otherAgent, off] = server.requests.map(keyOf);
    expect(first).toMatch(/^troupe-[0-9a-f]{40}$/);
    expect(second).toBe(first);
    expect(new Set([first, otherSession, otherAgent]).size).toBe(3);
    expect(off).toBeUndefined();
    // The key carries no ids in clear.
    expect(String(first)).not.toMatch(/u1|s1|Glossary/);
  });

  it('a compatible server gets the key only when its model asks for caching', async () => {
    for (let i = 0; i < 2; i++) server.reply(openaiWire.text('Sure.'));
    await converse({
      model: openaiCompatible('local-model', { baseURL: server.url, retry: false }),
      runnerCache: true,
      turns: 1,
    });
    await converse({
      model: openaiCompatible('local-model', { baseURL: server.url, retry: false, contextCache: true }),
      runnerCache: true,
      turns: 1,
      sessionId: 's2',
    });
    expect(keyOf(server.requests[0]!)).toBeUndefined();
    expect(keyOf(server.requests[1]!)).toMatch(/^troupe-/);
  });

  it('options OpenAI and Ollama do not have are ConfigurationErrors naming the provider and the option', () => {
    expect(() => openai('gpt-test', { contextCache: { ttl: '1h' } })).toThrow(ConfigurationError);
    expect(() => openai('gpt-test', { contextCache: { ttl: '1h' } })).toThrow(
      /openai\(\) option contextCache\.ttl is not supported by OpenAI/,
    );
    expect(() => openai('gpt-test', { contextCache: { minTokens: 10 } })).toThrow(/contextCache\.minTokens/);
    expect(() => ollama('llama3.2', { contextCache: true })).toThrow(
      /ollama\(\) option contextCache is not supported by Ollama/,
    );
  });
});

describe('contextCache options', () => {
  const model = () => openai('gpt-test', { apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9' });

  it('bad values are ConfigurationErrors naming the owner, the value and the choices', () => {
    const sessionService = new InMemorySessionService();
    const agent = new LlmAgent({ name: 'A', model: model() });
    expect(
      () => new Runner({ appName: 'app', agent, sessionService, contextCache: 'yes' as unknown as ContextCache }),
    ).toThrow(/Runner 'app''s contextCache is "yes"; use true, false or \{ ttl/);
    expect(() => new LlmAgent({ name: 'B', model: model(), contextCache: { ttl: '10m' as '5m' } })).toThrow(
      /Agent 'B''s contextCache\.ttl is "10m"; use '5m' or '1h'/,
    );
    expect(() => new LlmAgent({ name: 'C', model: model(), contextCache: { minTokens: 0 } })).toThrow(
      /contextCache\.minTokens is 0/,
    );
    expect(
      () => new LlmAgent({ name: 'D', model: model(), contextCache: { keep: true } as unknown as ContextCache }),
    ).toThrow(/unknown option 'keep'/);
  });
});
