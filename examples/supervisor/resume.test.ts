import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { Runner, getFunctionCalls, getFunctionResponses } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { SqliteSessionService } from '@troupe/sqlite';
import { refundLead } from './fixtures/refund-lead.js';

const run = promisify(execFile);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('supervisor example: an approval inside a worker', () => {
  it('pauses the supervisor; another node process resumes the worker, which hands control back to the supervisor', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-supervisor-'));
    dirs.push(dir);
    const db = join(dir, 'support.db');
    const sessionService = new SqliteSessionService({ path: db });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'Searcher', args: { request: 'order A-1' }, id: 'd1' }] },
      { functionCalls: [{ name: 'search_web', args: { query: 'order A-1' }, id: 's1' }] },
      'Order A-1: 30 euros, paid.',
      { functionCalls: [{ name: 'Billing', args: { request: 'Refund order A-1, 30 euros' }, id: 'd2' }] },
      { functionCalls: [{ name: 'issue_refund', args: { orderId: 'A-1', amount: 30 }, id: 'r1' }] },
    ]);
    const runner = new Runner({ appName: 'support', agent: refundLead(model), sessionService, defaultModel: model });
    const session = await sessionService.createSession({ appName: 'support', userId: 'u' });
    const paused = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'Please refund order A-1' });
    expect(paused.status).toBe('interrupted');
    expect(paused.interrupts[0]).toMatchObject({ toolName: 'issue_refund', args: { orderId: 'A-1', amount: 30 } });
    model.assertDone();
    await sessionService.close();

    const worker = fileURLToPath(new URL('./fixtures/resume.ts', import.meta.url));
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', worker, db, session.id, paused.interrupts[0]!.id],
      { timeout: 60_000 },
    );
    const resumed = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      status: string;
      output: unknown;
      pid: number;
      modelCalls: number;
    };
    expect(resumed.pid).not.toBe(process.pid);
    // Two model calls only: Billing's answer after the refund, then the supervisor's.
    expect(resumed).toEqual({
      status: 'completed',
      output: 'Order A-1 is refunded: 30.',
      pid: resumed.pid,
      modelCalls: 2,
    });

    const reread = new SqliteSessionService({ path: db });
    const events = (await reread.getSession({ appName: 'support', userId: 'u', sessionId: session.id }))!.events;
    await reread.close();
    const responses = events.flatMap(getFunctionResponses);
    expect(responses.filter((r) => r.name === 'issue_refund').map((r) => r.response)).toEqual([
      { refunded: 30, orderId: 'A-1' },
    ]);
    expect(responses.filter((r) => r.name === 'search_web')).toHaveLength(1);
    // The delegation history: Searcher, then Billing; then the supervisor answered.
    expect(
      events
        .filter((e) => e.author === 'SupportLead')
        .flatMap(getFunctionCalls)
        .map((c) => c.name),
    ).toEqual(['Searcher', 'Billing']);
    expect(events.at(-1)!.actions.agentState).toEqual({ stopReason: 'answered', delegations: 2 });
  });
});
