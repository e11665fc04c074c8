import { createHash } from 'node:crypto';
import type { SessionKey } from '@troupe/core';
import type { RunRecord } from '@troupe/core/stores';

/**
 * A run has two names. Its **run id** is what callers see and the session's invocation id; its
 * **key** is the store's run id, the job id and the name of its Redis stream, unique across the
 * store. A generated run id (`run-<uuid>`) is its own key. A run id the caller chose is theirs
 * within the session, as an invocation id is in process: its key is scoped to the session, so
 * another user choosing the same id gets a run of their own instead of learning that the id exists
 * (issue #28), and an id taken in one session never blocks another.
 */

/** The key of a run whose caller chose `runId` in `session`: the same for the same pair, distinct across sessions. */
export function scopedRunKey(session: SessionKey, runId: string): string {
  const scope = createHash('sha256')
    .update(JSON.stringify([session.appName, session.userId, session.sessionId]))
    .digest('base64url')
    .slice(0, 22);
  // 'c-' never starts a generated id ('run-'); the id stays readable in Redis and the store.
  return `c-${scope}-${runId}`;
}

/** The run id callers see, which is the invocation id in the session: the one the caller chose, else the key. */
export function runIdOf(record: RunRecord): string {
  const chosen = record.request.invocationId;
  return typeof chosen === 'string' ? chosen : record.runId;
}

/** True when `record` is in `session`. */
export function inSession(record: RunRecord, session: SessionKey): boolean {
  return (
    record.appName === session.appName && record.userId === session.userId && record.sessionId === session.sessionId
  );
}
