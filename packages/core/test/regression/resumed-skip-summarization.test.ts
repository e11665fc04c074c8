import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  Runner,
  isFinalResponse,
  type Event,
  type RunResult,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { SqliteSessionService } from '@troupe/sqlite';
import { tempDir } from '../temp-dir.js';

// Issue #28, item 3: a turn in which one tool set skipSummarization and another paused for approval
// called the model again after the resume; the same turn without a pause ends after one model call.

function tools(confirm: boolean): FunctionTool[] {
  return [
    new FunctionTool({
      name: 'approve',
      description: 'Needs a yes.',
      requireConfirmation: confirm,
      execute: () => ({ approved: true }),
    }),
    new FunctionTool({
      name: 'lookup',
      description: 'Answers the user directly.',
      execute: (_args, ctx) => {
        ctx.actions.skipSummarization = true;
        return { found: 'the answer' };
      },
    }),
  ];
}

/** One model turn calling both tools; no reply scripted after it, so a second model call fails the run. */
function oneTurn(): ScriptedModel {
  return new ScriptedModel([
    {
      functionCalls: [
        { name: 'approve', id: 'c1' },
        { name: 'lookup', id: 'c2' },
      ],
    },
  ]);
}

const turnOutput = [{ approved: true }, { found: 'the answer' }];

function expectTurnEnded(result: RunResult, model: ScriptedModel): void {
  expect(result.status).toBe('completed');
  expect(model.requests).toHaveLength(1);
  expect(result.output).toEqual(turnOutput);
  expect(isFinalResponse(result.events.at(-1) as Event)).toBe(true);
}

describe('a resume keeps skipSummarization of the paused turn', () => {
  it('without a pause, the turn ends after one model call (the behaviour a resume must match)', async () => {
    const model = oneTurn();
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: 'A', model, tools: tools(false) }) });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'go' });
    expectTurnEnded(result, model);
  });

  it('after the approval, the resumed turn ends without calling the model again', async () => {
    const model = oneTurn();
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: 'A', model, tools: tools(true) }) });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const key = { userId: 'u', sessionId: session.id };

    const paused = await runner.run({ ...key, newMessage: 'go' });
    expect(paused.interrupts.map((i) => i.id)).toEqual(['A:c1']);
    const done = await runner.resume({ ...key, responses: { 'A:c1': true } });
    expectTurnEnded(done, model);
  });

  it('a resume in a new process (only the SQLite file shared) ends the turn too', async () => {
    const db = join(tempDir('troupe-skip-summarization-'), 'sessions.db');
    const store = new SqliteSessionService({ path: db });
    const session = await store.createSession({ appName: 'skip', userId: 'u' });
    const key = { userId: 'u', sessionId: session.id };
    const first = new Runner({
      appName: 'skip',
      agent: new LlmAgent({ name: 'A', model: oneTurn(), tools: tools(true) }),
      sessionService: store,
    });
    await first.run({ ...key, newMessage: 'go' });
    await store.close();

    const reopened = new SqliteSessionService({ path: db });
    const model = new ScriptedModel([]);
    const later = new Runner({
      appName: 'skip',
      agent: new LlmAgent({ name: 'A', model, tools: tools(true) }),
      sessionService: reopened,
    });
    try {
      const done = await later.resume({ ...key, responses: { 'A:c1': true } });
      expect(done.status).toBe('completed');
      expect(model.requests).toHaveLength(0);
      expect(done.output).toEqual(turnOutput);
    } finally {
      await reopened.close();
    }
  });
});
