import { FunctionTool, InMemorySessionService, LlmAgent, Runner, type BaseLlm, type ContextCache } from '@troupe/core';
import { gemini } from '@troupe/models';
import { describe, expect, it } from 'vitest';
import { json, type FakeServer, type RecordedRequest, type Reply } from './support/fake-server.js';
import { serverPerTest } from './support/server-per-test.js';
import * as wire from './support/gemini-wire.js';

const lookup = new FunctionTool({
  name: 'lookup',
  description: 'Looks a word up in the glossary.',
  parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  execute: ({ word }) => ({ meaning: `the meaning of ${String(word)}` }),
});

const INSTRUCTION = 'You explain words about sailing. Answer in one sentence.';

/** An answer of about 300 tokens by core's estimate (1,200 characters). */
const answer = (turn: number): string => `Word ${turn} is a sailing term. ${'A long explanation. '.repeat(59)}`;

/** Gemini's answer to POST /v1beta/cachedContents. */
function cacheCreated(name: string, tokens: number): Reply {
  return json(200, {
    name,
    model: 'models/gemini-2.5-flash',
    displayName: 'troupe',
    expireTime: new Date(Date.now() + 300_000).toISOString(),
    usageMetadata: { totalTokenCount: tokens },
  });
}

const tooSmall = json(400, {
  error: {
    code: 400,
    message: 'Cached content is too small. total_token_count=300, min_total_token_count=1024',
    status: 'INVALID_ARGUMENT',
  },
});

async function converse(
  model: BaseLlm,
  turns: number,
  options: { runnerCache?: ContextCache; lastTurns?: number } = {},
) {
  const sessionService = new InMemorySessionService();
  const agent = new LlmAgent({
    name: 'Glossary',
    model,
    instruction: INSTRUCTION,
    tools: [lookup],
    ...(options.lastTurns === undefined ? {} : { includeContents: { lastTurns: options.lastTurns } }),
  });
  const runner = new Runner({
    appName: 'glossary',
    agent,
    sessionService,
    contextCache: options.runnerCache ?? { minTokens: 350 },
  });
  const session = await sessionService.createSession({ appName: 'glossary', userId: 'u1', sessionId: 's1' });
  const results = [];
  for (let turn = 1; turn <= turns; turn++) {
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

const texts = (contents: unknown): string[] =>
  (contents as { parts: { text?: string }[] }[]).map((c) => c.parts.map((p) => p.text ?? '').join(''));

const isGenerate = (req: RecordedRequest): boolean => req.path.includes(':generateContent');

describe('contextCache with Gemini: cachedContents', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));
  const model = (options: { contextCache?: ContextCache } = {}) =>
    gemini('gemini-2.5-flash', { apiKey: 'gm-test', baseURL: server.url, retry: false, ...options });
  const usage = (cachedTokens?: number) => ({
    inputTokens: 700,
    outputTokens: 300,
    ...(cachedTokens ? { cachedTokens } : {}),
  });

  it('creates a cache once the prefix reaches minTokens, reuses it, and replaces it once the uncached part has grown', async () => {
    const llm = model();
    server.reply(
      wire.text(answer(1), { usage: usage() }),
      cacheCreated('cachedContents/c1', 640),
      wire.text(answer(2), { usage: usage(640) }),
      wire.text(answer(3), { usage: usage(640) }),
      cacheCreated('cachedContents/c2', 1300),
      json(200, {}),
      wire.text(answer(4), { usage: usage(1300) }),
    );
    const results = await converse(llm, 4);
    const [t1, create1, t2, t3, create2, delete1, t4] = server.requests;
    expect(server.unexpected).toEqual([]);

    // Turn 1: system instruction and tools only, under minTokens: no cache.
    expect(isGenerate(t1!)).toBe(true);
    expect(t1!.body.cachedContent).toBeUndefined();
    expect(wire.system(t1!)).toContain(INSTRUCTION);

    // Turn 2: the system instruction, the tools and turn 1 are cached.
    expect(create1!.method).toBe('POST');
    expect(create1!.path).toBe('/v1beta/cachedContents');
    const created = create1!.body;
    expect(created.model).toBe('models/gemini-2.5-flash');
    expect(created.ttl).toBe('300s');
    expect(JSON.stringify(created.systemInstruction)).toContain(INSTRUCTION);
    expect(JSON.stringify(created.tools)).toContain('"name":"lookup"');
    expect(texts(created.contents)).toEqual(['What is word number 1?', answer(1)]);
    expect(t2!.body.cachedContent).toBe('cachedContents/c1');
    expect(texts(t2!.body.contents)).toEqual(['What is word number 2?']);
    for (const field of ['systemInstruction', 'tools', 'toolConfig']) expect(t2!.body).not.toHaveProperty(field);

    // Turn 3: the same cache, and everything after it.
    expect(t3!.body.cachedContent).toBe('cachedContents/c1');
    expect(texts(t3!.body.contents)).toEqual(['What is word number 2?', answer(2), 'What is word number 3?']);
    expect(t3!.body).not.toHaveProperty('systemInstruction');

    // Turn 4: two uncached turns are past minTokens: a bigger cache replaces the first, which is deleted.
    expect(texts(create2!.body.contents)).toHaveLength(6);
    expect(delete1!.method).toBe('DELETE');
    expect(delete1!.path).toBe('/v1beta/cachedContents/c1');
    expect(t4!.body.cachedContent).toBe('cachedContents/c2');
    expect(texts(t4!.body.contents)).toEqual(['What is word number 4?']);

    // Usage: the reads, and the writes on the calls that created a cache.
    const byTurn = results.map((r) => r.usage.byAgent.Glossary);
    expect(byTurn.map((u) => u?.cachedTokens ?? 0)).toEqual([0, 640, 640, 1300]);
    expect(byTurn.map((u) => u?.cacheWriteTokens ?? 0)).toEqual([0, 640, 0, 1300]);

    // Deleting what the model holds when the app ends.
    server.reply(json(200, {}));
    await llm.deleteCaches();
    expect(server.requests.at(-1)!.method).toBe('DELETE');
    expect(server.requests.at(-1)!.path).toBe('/v1beta/cachedContents/c2');
    await llm.deleteCaches();
    expect(server.pending).toBe(0);
  });

  it('makes a new cache when a history window moved the prefix, and deletes the old one even if that fails', async () => {
    // Answers by what is asked: caches are named c1, c2, ...; deleting fails with 404.
    let made = 0;
    let turn = 0;
    const route: Reply = (res, req) => {
      if (req.method === 'DELETE')
        return json(404, { error: { code: 404, message: 'not found', status: 'NOT_FOUND' } })(res, req);
      if (req.path === '/v1beta/cachedContents') return cacheCreated(`cachedContents/c${++made}`, 640)(res, req);
      return wire.text(answer(++turn))(res, req);
    };
    for (let i = 0; i < 30; i++) server.reply(route);
    await converse(model(), 6, { lastTurns: 2 });
    const log = server.requests.map((r) => ({
      method: r.method,
      path: r.path,
      cachedContent: r.body.cachedContent,
      first: texts(r.body.contents ?? [])[0],
    }));
    const creates = log.flatMap((entry, i) => (entry.path === '/v1beta/cachedContents' ? [i] : []));
    // The window moved: a later cache starts at a later turn than the first one.
    const moved = creates.find((i) => log[i]!.first !== log[creates[0]!]!.first);
    expect(moved).toBeDefined();
    const before = creates[creates.indexOf(moved!) - 1]!;
    expect(log[moved! + 1]).toMatchObject({
      method: 'DELETE',
      path: `/v1beta/cachedContents/c${creates.indexOf(before) + 1}`,
    });
    // The failed delete did not fail the call, which uses the new cache.
    expect(log[moved! + 2]).toMatchObject({ cachedContent: `cachedContents/c${creates.indexOf(moved!) + 1}` });
    expect(log.at(-1)!.path).toContain(':generateContent');
  });

  it('sends the call uncached when Gemini refuses the cache, and does not ask for that prefix again', async () => {
    server.reply(wire.text(answer(1)), tooSmall, wire.text(answer(2)));
    const results = await converse(model(), 2);
    expect(results[1]!.status).toBe('completed');
    const t2 = server.requests[2]!;
    expect(t2.body.cachedContent).toBeUndefined();
    expect(wire.system(t2)).toContain(INSTRUCTION);
    expect(texts(t2.body.contents)).toHaveLength(3);
  });

  it('sends byte-identical requests with caching off', async () => {
    server.reply(wire.text(answer(1)), wire.text(answer(2)));
    await converse(model({ contextCache: false }), 2);
    server.reply(wire.text(answer(1)), wire.text(answer(2)));
    await converse(model(), 2, { runnerCache: false });
    const raw = server.requests.map((r) => r.raw);
    expect(raw).toHaveLength(4);
    expect(raw[2]).toBe(raw[0]);
    expect(raw[3]).toBe(raw[1]);
    expect(server.requests[1]!.body.cachedContent).toBeUndefined();
  });

  it('checks its own contextCache option', () => {
    expect(() => gemini('gemini-2.5-flash', { apiKey: 'k', contextCache: { ttl: '2h' as '1h' } })).toThrow(
      /contextCache.ttl/,
    );
  });
});
