import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FunctionTool, InMemoryRunner, LlmAgent, Runner, type Content, type LlmRequest } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { SqliteSessionService } from '@troupe/sqlite';
import { tempDir } from '../temp-dir.js';

// Issue #28, item 2: after a resume, a turn's function responses went back to the model in the
// order they finished (one content per resume), not in call order as one tool-result turn.

/** A tool that runs only after approval and answers with its own name. */
function guarded(name: string, finished: string[], waitFor?: Promise<unknown>): FunctionTool {
  return new FunctionTool({
    name,
    description: `${name}, after approval`,
    requireConfirmation: true,
    execute: async () => {
      if (waitFor) await waitFor;
      finished.push(name);
      return { tool: name };
    },
  });
}

function immediate(name: string, finished: string[]): FunctionTool {
  return new FunctionTool({
    name,
    description: `${name}, right away`,
    execute: () => {
      finished.push(name);
      return { tool: name };
    },
  });
}

const callsTurn: Content = {
  role: 'model',
  parts: [
    { functionCall: { id: 'c1', name: 'first', args: {} } },
    { functionCall: { id: 'c2', name: 'second', args: {} } },
  ],
};

/** The tool-result turn the model must see right after its calls: one content, in call order. */
const resultsTurn: Content = {
  role: 'user',
  parts: [
    { functionResponse: { id: 'c1', name: 'first', response: { tool: 'first' } } },
    { functionResponse: { id: 'c2', name: 'second', response: { tool: 'second' } } },
  ],
};

function script(): ScriptedModel {
  return new ScriptedModel([
    {
      functionCalls: [
        { name: 'first', id: 'c1' },
        { name: 'second', id: 'c2' },
      ],
    },
    'both done',
  ]);
}

/** The request's contents from the model's call turn on. */
function fromCalls(request: LlmRequest | undefined): Content[] {
  const contents = request!.contents;
  return contents.slice(contents.findIndex((c) => c.parts.some((p) => 'functionCall' in p)));
}

describe('a resumed turn gives its results back in call order', () => {
  it('the first call needed approval, the second ran at once: the model sees [first, second]', async () => {
    const finished: string[] = [];
    const model = script();
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: 'A', model, tools: [guarded('first', finished), immediate('second', finished)] }),
    });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const key = { userId: 'u', sessionId: session.id };

    const paused = await runner.run({ ...key, newMessage: 'go' });
    expect(paused.interrupts.map((i) => i.id)).toEqual(['A:c1']);
    const done = await runner.resume({ ...key, responses: { 'A:c1': true } });
    expect(done.status).toBe('completed');
    expect(finished).toEqual(['second', 'first']);
    expect(fromCalls(model.requests[1])).toEqual([callsTurn, resultsTurn]);
  });

  it('two paused calls answered in reverse order in one resume (the second finishes first)', async () => {
    const finished: string[] = [];
    let secondDone!: () => void;
    const afterSecond = new Promise<void>((resolve) => (secondDone = resolve));
    const second = new FunctionTool({
      name: 'second',
      description: 'second, after approval',
      requireConfirmation: true,
      execute: () => {
        finished.push('second');
        secondDone();
        return { tool: 'second' };
      },
    });
    const model = script();
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: 'A', model, tools: [guarded('first', finished, afterSecond), second] }),
    });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const key = { userId: 'u', sessionId: session.id };

    const paused = await runner.run({ ...key, newMessage: 'go' });
    expect(paused.interrupts.map((i) => i.id)).toEqual(['A:c1', 'A:c2']);
    const done = await runner.resume({ ...key, responses: { 'A:c2': true, 'A:c1': true } });
    expect(done.status).toBe('completed');
    expect(finished).toEqual(['second', 'first']);
    expect(fromCalls(model.requests[1])).toEqual([callsTurn, resultsTurn]);
  });

  it('two paused calls answered in reverse order in two resumes', async () => {
    const finished: string[] = [];
    const model = script();
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: 'A', model, tools: [guarded('first', finished), guarded('second', finished)] }),
    });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const key = { userId: 'u', sessionId: session.id };

    await runner.run({ ...key, newMessage: 'go' });
    const half = await runner.resume({ ...key, responses: { 'A:c2': true } });
    expect(half.status).toBe('interrupted');
    expect(half.interrupts.map((i) => i.id)).toEqual(['A:c1']);
    expect(model.requests).toHaveLength(1);
    const done = await runner.resume({ ...key, responses: { 'A:c1': true } });
    expect(done.status).toBe('completed');
    expect(finished).toEqual(['second', 'first']);
    expect(fromCalls(model.requests[1])).toEqual([callsTurn, resultsTurn]);
  });

  it('a new process rebuilding history from the stored events sees the same call order', async () => {
    const db = join(tempDir('troupe-result-order-'), 'sessions.db');
    const finished: string[] = [];
    const agent = (model: ScriptedModel) =>
      new LlmAgent({ name: 'A', model, tools: [guarded('first', finished), guarded('second', finished)] });

    const store = new SqliteSessionService({ path: db });
    const session = await store.createSession({ appName: 'order', userId: 'u' });
    const key = { userId: 'u', sessionId: session.id };
    const firstModel = script();
    const runner = new Runner({ appName: 'order', agent: agent(firstModel), sessionService: store });
    await runner.run({ ...key, newMessage: 'go' });
    await runner.resume({ ...key, responses: { 'A:c2': true } });
    await store.close();

    // Only the SQLite file is shared: a new store, runner, agent and model.
    const reopened = new SqliteSessionService({ path: db });
    const laterModel = new ScriptedModel(['both done', 'and more']);
    const later = new Runner({ appName: 'order', agent: agent(laterModel), sessionService: reopened });
    try {
      const done = await later.resume({ ...key, responses: { 'A:c1': true } });
      expect(done.status).toBe('completed');
      expect(fromCalls(laterModel.requests[0])).toEqual([callsTurn, resultsTurn]);
      // And the next turn, built from the whole stored session, still has one result turn in call order.
      await later.run({ ...key, newMessage: 'again' });
      expect(fromCalls(laterModel.requests[1]).slice(0, 2)).toEqual([callsTurn, resultsTurn]);
    } finally {
      await reopened.close();
    }
  });
});
