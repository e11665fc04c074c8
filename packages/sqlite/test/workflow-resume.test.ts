import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SqliteSessionService } from '../src/index.js';
import { startWorker, useTempDb } from './helpers.js';

// SPEC §17: a graph workflow paused inside one item of a parallelWorker node is resumed by another
// `node` process over the same SQLite file; the items that had finished are not run again.
const tempDb = useTempDb();
const worker = fileURLToPath(new URL('./fixtures/workflow-worker.mjs', import.meta.url));

interface Outcome {
  status: string;
  output: unknown;
  interrupts: string[];
  error: string | null;
}

const run = (args: string[]) => startWorker(worker, args).result as Promise<Outcome>;
const ran = (log: string): string[] => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);

describe('a workflow paused in a parallelWorker item, resumed in a new process (SQLite)', () => {
  it('finishes with the answer; the two finished items ran exactly once', async () => {
    const path = tempDb();
    const log = join(dirname(path), 'side-effects.log');
    const service = new SqliteSessionService({ path });
    const { id: sessionId } = await service.createSession({ appName: 'research', userId: 'u' });
    await service.close();

    const first = await run(['run', path, sessionId, log]);
    expect(first).toMatchObject({ status: 'interrupted', error: null });
    expect(first.interrupts).toEqual(['Research.research.research@1']);
    expect(ran(log).sort()).toEqual(['llamas', 'secret', 'volcanoes']);

    const second = await run(['resume', path, sessionId, log, first.interrupts[0]!, 'notes on secret, approved']);
    expect(second).toEqual({
      status: 'completed',
      output: 'notes on llamas | notes on secret, approved | notes on volcanoes',
      interrupts: [],
      error: null,
    });
    // The paused item's answer is its output: it did not run again; nor did the finished ones.
    expect(ran(log).sort()).toEqual(['llamas', 'secret', 'volcanoes']);

    const reopened = new SqliteSessionService({ path });
    const events = (await reopened.getSession({ appName: 'research', userId: 'u', sessionId }))!.events;
    await reopened.close();
    // A run starts at its start record, or is one record (its end, `alone`) when it returned at once.
    const starts = events
      .filter((e) => e.actions.agentState?.node === 'started' || e.actions.agentState?.alone === true)
      .map((e) => e.nodeInfo!.path);
    expect(starts.filter((p) => p.startsWith('Research.research.research@')).sort()).toEqual([
      'Research.research.research@0',
      'Research.research.research@1',
      'Research.research.research@2',
    ]);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });
});
