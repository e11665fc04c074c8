import { randomUUID } from 'node:crypto';
import type { Task } from '@a2a-js/sdk';
import { A2AError, TaskNotCancelableError } from '@a2a-js/sdk/errors';
import { createEvent, type SessionKey } from '@troupe/core';
import { isSessionBusy } from '@troupe/core/hosting';
import { type SessionLease, supportsLeases } from '@troupe/core/stores';
import { taskNotFound } from './a2a-errors.js';
import { outcomeOf, storedTask } from './stored-task.js';
import { findTask, type TaskContext } from './task-context.js';

/** How long a cancel waits for a running task to store its cancellation. */
const CANCEL_WAIT_MS = 10_000;

const REASON = 'The task was cancelled by its A2A client (tasks/cancel).';

/**
 * Cancels a task and answers with it as stored, `canceled`. A task running here is stopped through
 * its run (which stores one `CANCELLED` event); a task waiting for input, or one whose process died
 * mid-run, gets that event stored here, under the conversation's lease so that no run of it can
 * start meanwhile. A task that already ended cannot be cancelled; one cancelled before is answered
 * as it is.
 */
export async function cancelTask(ctx: TaskContext, taskId: string, userId: string): Promise<Task> {
  const live = ctx.live.get(taskId, userId);
  if (live) {
    live.cancel(REASON);
    await waitFor(live.ended, taskId);
    return live.snapshot();
  }
  const { session } = await findTask(ctx, taskId, userId);
  const outcome = outcomeOf(
    session,
    taskId,
    session.events.filter((e) => e.invocationId === taskId),
  );
  if (outcome.state === 'canceled') return storedTask(session, taskId, false)!;
  if (outcome.state === 'completed' || outcome.state === 'failed') {
    throw new TaskNotCancelableError(
      `Task '${taskId}' already ${outcome.state === 'completed' ? 'completed' : 'failed'}; only a working task or one waiting for input can be cancelled.`,
    );
  }
  return storeCancellation(ctx, taskId, { appName: ctx.runner.appName, userId, sessionId: session.id });
}

async function storeCancellation(ctx: TaskContext, taskId: string, key: SessionKey): Promise<Task> {
  const service = ctx.runner.sessionService;
  if (isSessionBusy(service, key.appName, key.userId, key.sessionId)) {
    throw new TaskNotCancelableError(
      `Task '${taskId}' cannot be cancelled now: its conversation is running another run in this server. Retry once that run has ended.`,
    );
  }
  const leasing = supportsLeases(service) ? service : undefined;
  let lease: SessionLease | undefined;
  if (leasing) {
    lease = await leasing.leaseSession({
      ...key,
      owner: `a2a-cancel:${process.pid}:${randomUUID()}`,
      ttlMs: CANCEL_WAIT_MS,
    });
    if (!lease) {
      throw new TaskNotCancelableError(
        `Task '${taskId}' is running in another server process (it holds the conversation's lease) and can only be cancelled there. Retry later: if that process died, its lease expires and the cancel goes through here.`,
      );
    }
  }
  try {
    // Read again under the lease: what it says now cannot change until the cancellation is stored.
    const current = await service.getSession(key);
    const events = current?.events.filter((e) => e.invocationId === taskId) ?? [];
    if (!current || events.length === 0) throw taskNotFound(taskId);
    const outcome = outcomeOf(current, taskId, events);
    if (outcome.state !== 'input-required' && outcome.state !== 'working') return storedTask(current, taskId, false)!;
    const root = ctx.rootAgent.name;
    await service.appendEvent({
      session: current,
      event: createEvent({
        invocationId: taskId,
        author: root,
        path: root,
        errorCode: 'CANCELLED',
        errorMessage: REASON,
      }),
      lease,
    });
    return storedTask(current, taskId, false)!;
  } finally {
    if (lease) await leasing?.releaseLease(lease).catch(() => undefined);
  }
}

async function waitFor(ended: Promise<void>, taskId: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new A2AError(
            `Task '${taskId}' was told to stop but has not ended within ${CANCEL_WAIT_MS} ms; its session store may be slow. Read it later with tasks/get.`,
          ),
        ),
      CANCEL_WAIT_MS,
    );
  });
  try {
    await Promise.race([ended, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
