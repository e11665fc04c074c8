import { InvocationExistsError, type SessionKey } from '@troupe/core';
import type { RunRecord, RunRecordStore } from '@troupe/core/stores';
import { inSession, runIdOf, scopedRunKey } from './run-keys.js';
import { checkRunId, checkSessionKey } from './run-request.js';

/**
 * The run callers name `runId` (see run-keys.ts): in `session`, the one its caller chose there, or
 * a generated one of that session; without a session, only a generated one (a chosen id is not
 * unique across sessions). A record's key is never taken for a run id, and a run of another session
 * is not found, exactly as one that does not exist.
 */
export async function findRun(
  store: RunRecordStore,
  runId: string,
  session: SessionKey | undefined,
): Promise<RunRecord | undefined> {
  checkRunId(runId);
  if (session !== undefined) {
    checkSessionKey(session, 'a run lookup');
    const chosen = await store.getRun(scopedRunKey(session, runId));
    if (chosen) return chosen;
  }
  const record = await store.getRun(runId);
  if (!record || runIdOf(record) !== record.runId) return undefined;
  return session === undefined || inSession(record, session) ? record : undefined;
}

/** A run id the session already holds: its caller's own, so it may be named. */
export function runExists(runId: string, session: SessionKey): InvocationExistsError {
  return new InvocationExistsError(
    `Run '${runId}' already exists in session '${session.sessionId}' (app '${session.appName}', user '${session.userId}'); nothing was stored. Choose another run id, or omit it to get a new one.`,
  );
}
