import { ConfigurationError, type Content, type SessionKey } from '@troupe/core';
import { INVOCATION_ID_PATTERN } from '@troupe/core/hosting';
import { assertValidDelta } from '@troupe/core/stores';
import type { EnqueueParams, MultitaskStrategy } from '@troupe/core/hosting';

/**
 * What a run record keeps of its request, so that any worker (or the sweeper, after Redis lost the
 * job) can start it from the session store alone. A `resume` carries the answers to a paused run.
 */
export type StoredRequest = (
  | {
      kind: 'run';
      newMessage?: Content | string;
      input?: Record<string, unknown>;
      stateDelta?: Record<string, unknown>;
      streaming: boolean;
    }
  | { kind: 'resume'; responses: Record<string, unknown>; streaming: boolean }
) & {
  /** The run id its caller chose, which is the invocation id (the record's id is then its scoped key: see run-keys.ts). */
  invocationId?: string;
};

const STRATEGIES: readonly MultitaskStrategy[] = ['reject', 'enqueue', 'interrupt'];

/** Checks an enqueue call and returns the request to store; bad input throws naming the field and the fix. */
export function runRequestOf(params: EnqueueParams): StoredRequest {
  checkSessionKey(params, 'enqueue');
  if (params.newMessage === undefined && params.input === undefined) {
    throw new ConfigurationError(
      `enqueue needs a newMessage (string or Content) or an input object for session '${params.sessionId}'.`,
    );
  }
  if (
    params.input !== undefined &&
    (typeof params.input !== 'object' || params.input === null || Array.isArray(params.input))
  ) {
    throw new ConfigurationError(`enqueue's input must be a plain object; got ${JSON.stringify(params.input)}.`);
  }
  if (params.stateDelta !== undefined) assertValidDelta(params.stateDelta);
  if (params.runId !== undefined) checkRunId(params.runId);
  strategyOf(params.multitaskStrategy, 'enqueue');
  return {
    kind: 'run',
    ...(params.newMessage !== undefined ? { newMessage: params.newMessage } : {}),
    ...(params.input !== undefined ? { input: params.input } : {}),
    ...(params.stateDelta !== undefined ? { stateDelta: params.stateDelta } : {}),
    streaming: params.streaming === true,
  };
}

/** The strategy, defaulted and checked. */
export function strategyOf(value: unknown, what: string, fallback: MultitaskStrategy = 'reject'): MultitaskStrategy {
  if (value === undefined) return fallback;
  if (!STRATEGIES.includes(value as MultitaskStrategy)) {
    throw new ConfigurationError(
      `${what}: multitaskStrategy is ${JSON.stringify(value)}; use 'reject', 'enqueue' or 'interrupt'.`,
    );
  }
  return value as MultitaskStrategy;
}

/** A run id is an invocation id that is also a BullMQ job id, which cannot hold ':'. */
export function checkRunId(runId: unknown): asserts runId is string {
  if (typeof runId !== 'string' || !INVOCATION_ID_PATTERN.test(runId) || runId.includes(':')) {
    throw new ConfigurationError(
      `runId ${JSON.stringify(runId)} is not valid: use 1–128 characters of A-Za-z0-9._- (it is also the invocation id and the job id), or omit it.`,
    );
  }
}

export function checkSessionKey(key: Partial<SessionKey>, what: string): asserts key is SessionKey {
  for (const field of ['appName', 'userId', 'sessionId'] as const) {
    if (typeof key[field] !== 'string' || key[field] === '') {
      throw new ConfigurationError(`${what} needs ${field} as a non-empty string; got ${JSON.stringify(key[field])}.`);
    }
  }
}

/** Reads a stored request back; a record written by something else fails loudly rather than running garbage. */
export function storedRequestOf(runId: string, request: Record<string, unknown>): StoredRequest {
  if (request.kind === 'run' || request.kind === 'resume') return request as StoredRequest;
  throw new ConfigurationError(
    `Run '${runId}' has a stored request of unknown kind ${JSON.stringify(request.kind)}; it was not written by this version of @troupe/queue.`,
  );
}
