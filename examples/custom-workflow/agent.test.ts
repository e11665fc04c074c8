import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FunctionAgent,
  InMemorySessionService,
  RunDrainedError,
  Runner,
  getFunctionResponses,
  type BaseAgent,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { SqliteSessionService } from '@troupe/sqlite';
import { rootAgent } from './agent.js';
import { EscalationLadder } from './escalation-ladder.js';

const run = promisify(execFile);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function inMemory(agent: BaseAgent, model = new ScriptedModel([])) {
  const sessionService = new InMemorySessionService();
  const runner = new Runner({ appName: 'support', agent, sessionService, defaultModel: model });
  const session = await sessionService.createSession({ appName: 'support', userId: 'u' });
  return { runner, sessionService, sessionId: session.id };
}

/** A ladder that accepts 'good', over rungs (in key order) that record their name in `started` when they begin. */
function recordingLadder(started: string[], rungs: Record<string, () => unknown>): EscalationLadder {
  return new EscalationLadder({
    name: 'Ladder',
    accept: (o) => o === 'good',
    subAgents: Object.entries(rungs).map(
      ([name, fn]) =>
        new FunctionAgent({
          name,
          run: () => {
            started.push(name);
            return fn();
          },
        }),
    ),
  });
}

describe('a custom workflow agent (EscalationLadder)', () => {
  it('settles on the first rung whose output is accepted; later rungs never run', async () => {
    const model = new ScriptedModel([]);
    const { runner, sessionId } = await inMemory(rootAgent, model);
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'What are your opening hours?' });
    expect(result.status).toBe('completed');
    expect(result.output).toBe('We are open 9:00 to 17:00, Monday to Friday.');
    expect(model.requests).toHaveLength(0);
  });

  it('pauses for a human on the second rung and resumes in another process without repeating the first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-ladder-'));
    dirs.push(dir);
    const db = join(dir, 'support.db');
    const sessionService = new SqliteSessionService({ path: db });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'issue_refund', args: { orderId: 'A-1', amount: 30 }, id: 'r1' }] },
    ]);
    const runner = new Runner({ appName: 'support', agent: rootAgent, sessionService, defaultModel: model });
    const session = await sessionService.createSession({ appName: 'support', userId: 'u' });
    const paused = await runner.run({
      userId: 'u',
      sessionId: session.id,
      newMessage: 'Please refund order A-1, 30 euros',
    });
    expect(paused.status).toBe('interrupted');
    const interruptId = paused.interrupts[0]!.id;
    await sessionService.close();

    const worker = fileURLToPath(new URL('./fixtures/resume.ts', import.meta.url));
    const { stdout } = await run(process.execPath, ['--import', 'tsx', worker, db, session.id, interruptId], {
      timeout: 60_000,
    });
    const resumed = JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; output: unknown; pid: number };
    expect(resumed.pid).not.toBe(process.pid);
    expect(resumed).toMatchObject({ status: 'completed', output: 'Refunded 30 for order A-1.' });

    const reread = new SqliteSessionService({ path: db });
    const events = (await reread.getSession({ appName: 'support', userId: 'u', sessionId: session.id }))!.events;
    await reread.close();
    // The FAQ rung ran once; the refund ran once, after the approval, with a stable reference.
    expect(events.filter((e) => e.author === 'Faq')).toHaveLength(1);
    const refunds = events.flatMap((e) => getFunctionResponses(e)).filter((r) => r.name === 'issue_refund');
    expect(refunds.map((r) => r.response)).toEqual([
      { refunded: 30, orderId: 'A-1', reference: `${paused.events[0]!.invocationId}:r1` },
    ]);
    expect(
      events.filter((e) => e.author === 'Support' && e.actions.agentState).map((e) => e.actions.agentState),
    ).toEqual([
      { tried: 1, done: false },
      { tried: 2, done: true },
    ]);
  });

  it('cancelled: the next rung never starts; one CANCELLED event is stored', async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const ladder = recordingLadder(started, {
      cheap: () => {
        controller.abort();
        return 'meh';
      },
      pricey: () => 'good',
    });
    const { runner, sessionService, sessionId } = await inMemory(ladder);
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'x', abortSignal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(started).toEqual(['cheap']);
    const events = (await sessionService.getSession({ appName: 'support', userId: 'u', sessionId }))!.events;
    expect(events.filter((e) => e.errorCode === 'CANCELLED')).toHaveLength(1);
  });

  it('drained mid-rung: resume continues at that rung; finished rungs are not repeated', async () => {
    const controller = new AbortController();
    const started: string[] = [];
    let drain = true;
    const ladder = recordingLadder(started, {
      first: () => 'meh',
      second: () => {
        if (drain) controller.abort(new RunDrainedError());
        return 'meh';
      },
      third: () => 'good',
    });
    const { runner, sessionId } = await inMemory(ladder);
    const first = await runner.run({
      userId: 'u',
      sessionId,
      newMessage: 'x',
      invocationId: 'ticket-9',
      abortSignal: controller.signal,
    });
    expect(first.status).toBe('cancelled');
    drain = false;
    const resumed = await runner.resume({ userId: 'u', sessionId, invocationId: 'ticket-9' });
    expect(resumed.status).toBe('completed');
    expect(resumed.output).toBe('good');
    expect(started).toEqual(['first', 'second', 'second', 'third']);
  });
});
