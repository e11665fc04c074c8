import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AgentDefinitionError,
  InMemorySessionService,
  LlmAgent,
  loadAgent,
  Runner,
  type ContextCache,
  type IncludeContents,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../temp-dir.js';

/** The user messages each request of `turns` turns carried, with and without caching. */
async function windows(includeContents: IncludeContents, contextCache: ContextCache | undefined, turns: number) {
  const model = new ScriptedModel(Array.from({ length: turns }, (_, i) => `Answer ${i + 1}.`));
  const agent = new LlmAgent({ name: 'Helper', model, includeContents, instruction: 'Help.' });
  const sessionService = new InMemorySessionService();
  const runner = new Runner({ appName: 'app', agent, sessionService, contextCache });
  await sessionService.createSession({ appName: 'app', userId: 'u', sessionId: 's' });
  for (let turn = 1; turn <= turns; turn++) {
    // About 100 tokens per message (characters / 4).
    const result = await runner.run({
      userId: 'u',
      sessionId: 's',
      newMessage: `Question ${turn}: ${'x'.repeat(400)}`,
    });
    expect(result.status).toBe('completed');
  }
  return model.requests.map((request) => ({
    cache: request.cache,
    questions: request.contents
      .filter((content) => content.role === 'user')
      .map((content) => Number(/^Question (\d+)/.exec((content.parts[0] as { text: string }).text)![1])),
  }));
}

/** The turns at which the first question a request carries changed from the request before. */
function moves(requests: { questions: number[] }[]): number[] {
  const turns: number[] = [];
  for (let i = 1; i < requests.length; i++) {
    if (requests[i]!.questions[0] !== requests[i - 1]!.questions[0]) turns.push(i + 1);
  }
  return turns;
}

describe('history windows while prompt caching is on', () => {
  it('lastTurns moves in steps of half the window and never holds more than it', async () => {
    const plain = await windows({ lastTurns: 4 }, undefined, 12);
    const stepped = await windows({ lastTurns: 4 }, true, 12);
    expect(moves(plain)).toEqual([6, 7, 8, 9, 10, 11, 12]);
    expect(moves(stepped)).toEqual([6, 8, 10, 12]);
    for (const [i, request] of stepped.entries()) {
      const earlier = request.questions.length - 1;
      expect(earlier).toBeLessThanOrEqual(4);
      if (i >= 4) expect(earlier).toBeGreaterThanOrEqual(3);
      expect(request.questions.at(-1)).toBe(i + 1);
    }
  });

  it('maxTokens starts only at points fixed from the start of the session, fitting the budget', async () => {
    // Each turn (question + answer) is about 104 tokens; 500 fit four earlier turns and the current one.
    const plain = await windows({ maxTokens: 500 }, undefined, 14);
    const stepped = await windows({ maxTokens: 500 }, { minTokens: 100 }, 14);
    expect(moves(plain)).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
    expect(moves(stepped)).toEqual([5, 8, 10, 13]);
    // Never over the budget; never under it by more than the step (half the window) and one turn.
    for (const request of stepped) {
      expect(request.questions.length * 104).toBeLessThanOrEqual(520);
      expect(request.questions.length).toBeGreaterThanOrEqual(Math.min(2, request.questions.at(-1)!));
    }
  });

  it('the request carries the cache settings only while caching is on, with a key per session and agent', async () => {
    const [on] = await windows('default', { ttl: '1h', minTokens: 2048 }, 1);
    expect(on!.cache).toEqual({ key: expect.stringMatching(/^troupe-[0-9a-f]{40}$/), ttl: '1h', minTokens: 2048 });
    const [off] = await windows('default', undefined, 1);
    expect(off!.cache).toBeUndefined();
    const [disabled] = await windows('default', false, 1);
    expect(disabled!.cache).toBeUndefined();
  });
});

describe('context_cache in agent definitions', () => {
  async function load(yaml: string) {
    const file = join(tempDir('troupe-cache-yaml-'), 'agent.yaml');
    writeFileSync(file, ['name: helper', 'model: scripted', yaml, ''].join('\n'));
    return (await loadAgent(file, { models: { scripted: new ScriptedModel([]) } })) as LlmAgent;
  }

  it('takes true, false and { ttl, min_tokens }', async () => {
    expect((await load('context_cache: true')).contextCache).toEqual({ ttl: '5m', minTokens: 4096 });
    expect((await load('context_cache: false')).contextCache).toBe(false);
    expect((await load('context_cache: { ttl: 1h, min_tokens: 2048 }')).contextCache).toEqual({
      ttl: '1h',
      minTokens: 2048,
    });
  });

  it('a bad ttl names the line, the value and the choices', async () => {
    const error = await load('context_cache: { ttl: 10m }').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentDefinitionError);
    expect(String((error as Error).message)).toMatch(/ttl.*10m.*5m.*1h/s);
  });
});
