import { randomUUID } from 'node:crypto';
import { createEvent } from '@troupe/core';
import { type RunRecord, supportsLeases } from '@troupe/core/stores';
import type { RunJobContext } from './process-run.js';
import { runIdOf } from './run-keys.js';
import { RunStreamWriter } from './run-stream-writer.js';

/**
 * Ends a run whose workers kept dying: stores one `RUN_ABANDONED` error event in the invocation
 * (under the session's lease, so nothing else writes meanwhile), marks the run `abandoned` and frees
 * the session. Returns the abandoned record; true when there was nothing left to do (the session or
 * the run moved on); false when the session is still leased (by the attempt that died, until its
 * lease expires): try again later.
 */
export async function abandonRun(
  ctx: RunJobContext,
  record: RunRecord,
  rootAgentName: string,
): Promise<RunRecord | boolean> {
  const key = { appName: record.appName, userId: record.userId, sessionId: record.sessionId };
  const lease = supportsLeases(ctx.store)
    ? await ctx.store.leaseSession({ ...key, owner: `abandon:${record.runId}:${randomUUID()}`, ttlMs: ctx.leaseTtlMs })
    : undefined;
  if (supportsLeases(ctx.store) && !lease) return false;
  const invocationId = runIdOf(record);
  const message = `Run '${invocationId}' was abandoned after ${record.attempts} attempts: each time, the worker running it stopped (crashed, was killed or froze) before the run ended. The session is free; start a new run, and look at the last step of this one (it may crash its process or hold the event loop longer than lockDurationMs).`;
  try {
    const session = await ctx.store.getSession(key);
    if (!session) return true;
    const event = createEvent({
      invocationId,
      author: rootAgentName,
      path: rootAgentName,
      errorCode: 'RUN_ABANDONED',
      errorMessage: message,
    });
    // Under the lease nobody else runs it: the event first, so a record that says abandoned always has it.
    const stored = await ctx.store.appendEvent({ session, event, lease });
    const ended = await ctx.store.updateRun(
      record.runId,
      { status: 'abandoned', error: { code: 'RUN_ABANDONED', message } },
      { status: ['running'], attempts: record.attempts },
    );
    if (!ended) return true;
    const writer = new RunStreamWriter(
      ctx.redis,
      ctx.keys,
      record.runId,
      `abandon:${randomUUID()}`,
      ctx.ttls,
      () => undefined,
      (e) => ctx.onError(e, invocationId),
    );
    await writer.claim();
    writer.publish(stored);
    await writer.end('abandoned').catch((e: unknown) => ctx.onError(e, invocationId));
    return ended;
  } finally {
    if (lease && supportsLeases(ctx.store)) await ctx.store.releaseLease(lease).catch(() => undefined);
  }
}
