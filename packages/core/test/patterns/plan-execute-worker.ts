// A second process for plan-execute-process.test.ts: it builds the same agent tree from scratch and
// answers the pending approval; only the SQLite file is shared. Arguments: <db> <sessionId> <interruptId>.
import { Runner } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { SqliteSessionService } from '@troupe/sqlite';
import { bookingTrip } from './plan-execute-trip.js';

const [db, sessionId, interruptId] = process.argv.slice(2) as [string, string, string];
const sessionService = new SqliteSessionService({ path: db });
const planner = new ScriptedModel([]);
const executor = new ScriptedModel(['Booked Alfama', 'Summary: Alfama, 2 nights']);
const runner = new Runner({ appName: 'trips', agent: bookingTrip(planner, executor), sessionService });
const result = await runner.resume({ userId: 'u', sessionId, responses: { [interruptId]: true } });
await sessionService.close();
console.log(
  JSON.stringify({
    status: result.status,
    output: result.output,
    plannerCalls: planner.requests.length,
    executorCalls: executor.requests.length,
    pid: process.pid,
  }),
);
