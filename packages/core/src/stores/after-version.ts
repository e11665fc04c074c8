import { ConfigurationError } from '../errors.js';
import type { GetSessionParams } from '../sessions/session.js';

/**
 * The `afterVersion` of a `getSession` call, checked the same way by every store: undefined when
 * not given, else a whole number of at least 0 (a `ConfigurationError` naming the value otherwise).
 */
export function checkAfterVersion(params: GetSessionParams): number | undefined {
  const after = params.afterVersion;
  if (after === undefined) return undefined;
  if (typeof after !== 'number' || !Number.isInteger(after) || after < 0) {
    throw new ConfigurationError(
      `getSession's afterVersion for session '${params.sessionId}' must be a whole number of at least 0 (a version the caller read); got ${JSON.stringify(after)}. Leave it out to read the whole session.`,
    );
  }
  return after;
}
