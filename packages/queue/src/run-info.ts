import type { RunRecord } from '@troupe/core/stores';
import type { RunInfo } from '@troupe/core/hosting';
import { runIdOf } from './run-keys.js';

/** What callers see of a stored run (the request, the key and bookkeeping fields stay inside). */
export function runInfo(record: RunRecord): RunInfo {
  return {
    runId: runIdOf(record),
    appName: record.appName,
    userId: record.userId,
    sessionId: record.sessionId,
    status: record.status,
    attempts: record.attempts,
    ...(record.error ? { error: record.error } : {}),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}
