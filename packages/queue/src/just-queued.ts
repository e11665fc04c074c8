import type { SessionKey } from '@troupe/core';
import type { RunRecord } from '@troupe/core/stores';
import { inSession, runIdOf } from './run-keys.js';

/** Records kept for a join that may follow; past this many the oldest go (a run queued and never joined). */
const MAX_KEPT = 1_000;

/**
 * How long a kept record may stand in for the stored one. A join told 'pending' follows the live
 * stream, which must then not have expired already: a stream lives at least a second (the shortest
 * `streamTtlMs`) after its run ended, so a record younger than half of that is still a true guide.
 */
const KEPT_MS = 500;

/**
 * The records of runs this queue just put on the queue, each for the one join that usually follows
 * (the server's `/run` and `/run_sse` enqueue, then join): that join starts from the record as it was
 * written instead of reading it back, a round trip to the store saved per request (issue #34). The
 * join only needs the run's key and that it was active; what happened since is in the stream.
 */
export class JustQueued {
  private readonly records = new Map<string, { record: RunRecord; at: number }>();

  keep(record: RunRecord): void {
    const runId = runIdOf(record);
    this.records.delete(runId);
    this.records.set(runId, { record, at: Date.now() });
    if (this.records.size > MAX_KEPT) this.records.delete(this.records.keys().next().value!);
  }

  /** The record of `runId` kept for a join in `session` (as `findRun` would find it), once. */
  take(runId: string, session: SessionKey | undefined): RunRecord | undefined {
    const kept = this.records.get(runId);
    if (!kept) return undefined;
    this.records.delete(runId);
    if (Date.now() - kept.at > KEPT_MS) return undefined;
    const { record } = kept;
    // A chosen id is found only with its session; a generated one with it or without.
    const found = session === undefined ? record.runId === runId : inSession(record, session);
    return found ? record : undefined;
  }
}
