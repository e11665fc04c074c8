import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Runner, getFunctionResponses } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { SqliteSessionService } from '@troupe/sqlite';
import { bookingTrip } from './plan-execute-trip.js';
import { tempDir } from '../temp-dir.js';

const run = promisify(execFile);

describe('PlanExecuteAgent across processes', () => {
  it('an approval inside the executor is answered in a new node process, which finishes the same step and the rest', async () => {
    const dir = tempDir('troupe-plan-proc-');
    const db = join(dir, 'trip.db');
    const sessionService = new SqliteSessionService({ path: db });
    const planner = new ScriptedModel([
      JSON.stringify({ steps: ['Find a hotel', 'Book the hotel', 'Write the summary'] }),
    ]);
    const executor = new ScriptedModel([
      'Hotel Alfama is free',
      { functionCalls: [{ name: 'book_hotel', args: { hotel: 'Alfama' }, id: 'b1' }] },
    ]);
    const runner = new Runner({ appName: 'trips', agent: bookingTrip(planner, executor), sessionService });
    const session = await sessionService.createSession({ appName: 'trips', userId: 'u' });
    const paused = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'Book me a hotel in Lisbon' });
    expect(paused.status).toBe('interrupted');
    await sessionService.close();

    const worker = fileURLToPath(new URL('./plan-execute-worker.ts', import.meta.url));
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', worker, db, session.id, paused.interrupts[0]!.id],
      { timeout: 60_000 },
    );
    const resumed = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      status: string;
      output: unknown;
      plannerCalls: number;
      executorCalls: number;
      pid: number;
    };
    expect(resumed).toMatchObject({
      status: 'completed',
      output: 'Summary: Alfama, 2 nights',
      plannerCalls: 0,
      executorCalls: 2,
    });
    expect(resumed.pid).not.toBe(process.pid);

    const reread = new SqliteSessionService({ path: db });
    const events = (await reread.getSession({ appName: 'trips', userId: 'u', sessionId: session.id }))!.events;
    await reread.close();
    const bookings = events
      .flatMap(getFunctionResponses)
      .filter((r) => r.name === 'book_hotel')
      .map((r) => r.response);
    expect(bookings).toEqual([{ booked: 'Alfama', pid: resumed.pid }]);
    expect(events.filter((e) => e.author === 'Planner' && !e.partial)).toHaveLength(1);
    expect(events.filter((e) => e.author === 'Trip' && e.actions.agentState).at(-1)!.actions.agentState).toEqual({
      stopReason: 'planCompleted',
      iterations: 3,
    });
  });
});
