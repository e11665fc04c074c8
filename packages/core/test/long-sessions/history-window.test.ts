import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, FunctionTool, InMemoryRunner, LlmAgent, loadAgent, type Content } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { z } from 'zod';
import { texts } from '../helpers.js';

/** Runs the messages as consecutive turns of one session. */
async function converse(agent: LlmAgent, messages: string[]): Promise<InMemoryRunner> {
  const runner = new InMemoryRunner({ agent });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  for (const newMessage of messages) {
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage });
    expect(result.status).toBe('completed');
  }
  return runner;
}

// 40 characters: 10 tokens at characters / 4.
const line = (label: string): string => label.padEnd(40, '.');

describe('includeContents windows', () => {
  it('lastTurns keeps that many user turns before the current one', async () => {
    const model = new ScriptedModel(['a1', 'a2', 'a3', 'a4']);
    await converse(new LlmAgent({ name: 'Helper', model, includeContents: { lastTurns: 1 } }), [
      'q1',
      'q2',
      'q3',
      'q4',
    ]);
    expect(texts(model.requests[3]!.contents)).toEqual(['q3', 'a3', 'q4']);
    // With fewer turns than the window, everything is kept.
    expect(texts(model.requests[1]!.contents)).toEqual(['q1', 'a1', 'q2']);
  });

  it('lastTurns: 0 keeps only the current turn, with its tool calls and results', async () => {
    const add = new FunctionTool({
      name: 'add',
      description: 'Adds.',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => ({ sum: a + b }),
    });
    const model = new ScriptedModel([
      'a1',
      { functionCalls: [{ name: 'add', args: { a: 1, b: 2 }, id: 'c1' }] },
      'It is 3.',
    ]);
    await converse(new LlmAgent({ name: 'Helper', model, tools: [add], includeContents: { lastTurns: 0 } }), [
      'q1',
      'q2',
    ]);
    const last = model.requests[2]!.contents;
    expect(last.map((c) => c.role)).toEqual(['user', 'model', 'user']);
    expect(texts(last)).toEqual(['q2']);
    expect(last[1]!.parts[0]).toMatchObject({ functionCall: { id: 'c1', name: 'add' } });
    expect(last[2]!.parts[0]).toMatchObject({ functionResponse: { id: 'c1', response: { sum: 3 } } });
  });

  it('maxTokens keeps the most recent history that fits (characters / 4), the current turn always', async () => {
    const model = new ScriptedModel([line('a1'), line('a2'), line('a3'), line('a4')]);
    // Each turn is 20 tokens: the current one (10) and one earlier turn (20) fit in 35, two do not.
    await converse(new LlmAgent({ name: 'Helper', model, includeContents: { maxTokens: 35 } }), [
      line('q1'),
      line('q2'),
      line('q3'),
      line('q4'),
    ]);
    expect(texts(model.requests[3]!.contents)).toEqual([line('q3'), line('a3'), line('q4')]);
    // A budget smaller than the current turn still sends the current turn.
    const tiny = new ScriptedModel([line('a1'), line('a2')]);
    await converse(new LlmAgent({ name: 'Helper', model: tiny, includeContents: { maxTokens: 1 } }), [
      line('q1'),
      line('q2'),
    ]);
    expect(texts(tiny.requests[1]!.contents)).toEqual([line('q2')]);
  });

  it('maxTokens never keeps a tool result without its call', async () => {
    const lookup = new FunctionTool({
      name: 'lookup',
      description: 'Looks up.',
      parameters: z.object({ q: z.string() }),
      execute: () => ({ found: 'x'.repeat(400) }),
    });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'lookup', args: { q: 'a' }, id: 'c1' }] },
      line('a1'),
      line('a2'),
    ]);
    // The first turn's tool result alone is over the budget: the whole first turn goes, never half of it.
    await converse(new LlmAgent({ name: 'Helper', model, tools: [lookup], includeContents: { maxTokens: 60 } }), [
      line('q1'),
      line('q2'),
    ]);
    const sent = model.requests[2]!.contents;
    expect(texts(sent)).toEqual([line('q2')]);
    const ids = (kind: 'functionCall' | 'functionResponse') =>
      sent.flatMap((c) =>
        c.parts.flatMap((p) => (kind in p ? [(p as unknown as Record<string, { id: string }>)[kind]!.id] : [])),
      );
    expect(ids('functionResponse')).toEqual(ids('functionCall'));
  });

  it("maxTokens uses the model's countTokens when it has one", async () => {
    class CountingModel extends ScriptedModel {
      readonly counted: number[] = [];
      countTokens(contents: readonly Content[]): number {
        this.counted.push(contents.length);
        return contents.length * 100;
      }
    }
    const model = new CountingModel(['a1', 'a2', 'a3']);
    // 100 tokens per content: 350 keeps the current turn and one earlier turn (3 contents).
    await converse(new LlmAgent({ name: 'Helper', model, includeContents: { maxTokens: 350 } }), ['q1', 'q2', 'q3']);
    expect(texts(model.requests[2]!.contents)).toEqual(['q2', 'a2', 'q3']);
    expect(model.counted.length).toBeGreaterThan(0);
  });

  it('lastTurns and maxTokens together: the turn window first, then the budget', async () => {
    const model = new ScriptedModel([line('a1'), line('a2'), line('a3'), line('a4')]);
    await converse(new LlmAgent({ name: 'Helper', model, includeContents: { lastTurns: 2, maxTokens: 1000 } }), [
      line('q1'),
      line('q2'),
      line('q3'),
      line('q4'),
    ]);
    expect(texts(model.requests[3]!.contents)).toEqual([line('q2'), line('a2'), line('q3'), line('a3'), line('q4')]);
  });

  it('rejects bad windows in the constructor, naming the agent, the value and the fix', () => {
    const bad: unknown[] = [{}, { lastTurns: -1 }, { lastTurns: 1.5 }, { maxTokens: 0 }, { lastTurn: 2 }, 'all', 3];
    for (const includeContents of bad) {
      expect(() => new LlmAgent({ name: 'Helper', includeContents: includeContents as 'default' })).toThrow(
        ConfigurationError,
      );
    }
    expect(() => new LlmAgent({ name: 'Helper', includeContents: { lastTurn: 2 } as never })).toThrow(
      /Agent 'Helper' has includeContents \{"lastTurn":2\}: 'lastTurn' is not a window setting.*lastTurns: 5/,
    );
    expect(() => new LlmAgent({ name: 'Helper', includeContents: { maxTokens: 0 } })).toThrow(
      /maxTokens must be a whole number of at least 1; got 0/,
    );
  });

  it('YAML definitions take the window form (snake_case keys) and report bad ones at the key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-window-'));
    writeFileSync(
      join(dir, 'ok.yaml'),
      'name: Helper\nmodel: m\ninclude_contents:\n  last_turns: 3\n  max_tokens: 4000\n',
    );
    writeFileSync(join(dir, 'bad.yaml'), 'name: Helper\nmodel: m\ninclude_contents:\n  last_turn: 3\n');
    writeFileSync(join(dir, 'empty.yaml'), 'name: Helper\nmodel: m\ninclude_contents: {}\n');
    const models = { m: new ScriptedModel([]) };
    const agent = (await loadAgent(join(dir, 'ok.yaml'), { models })) as LlmAgent;
    expect(agent.includeContents).toEqual({ lastTurns: 3, maxTokens: 4000 });
    await expect(loadAgent(join(dir, 'bad.yaml'), { models })).rejects.toThrow(
      /unknown key 'last_turn'.*Did you mean 'last_turns'/,
    );
    await expect(loadAgent(join(dir, 'empty.yaml'), { models })).rejects.toThrow(
      /needs last_turns, max_tokens or both/,
    );
  });
});
