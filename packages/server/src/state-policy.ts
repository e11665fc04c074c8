import { APP_PREFIX } from '@troupe/core';
import { ADMIN } from './auth.js';
import { HttpError } from './http-error.js';

/**
 * Sizes of the state a request may write (a session's initial `state`, a run's `stateDelta`),
 * measured as the UTF-8 bytes of the JSON. State is stored with the session and sent with every
 * session read and list, and `user:` state with every session of the user, so one large value would
 * weigh on every later request.
 */
export interface StateLimits {
  /** Largest value of one key. @default 65_536 (64 KiB) */
  maxValueBytes?: number;
  /** Largest `state` or `stateDelta` of one request, keys and values together. @default 262_144 (256 KiB) */
  maxDeltaBytes?: number;
}

/** The default {@link StateLimits}. */
export const DEFAULT_STATE_LIMITS: Readonly<Required<StateLimits>> = Object.freeze({
  maxValueBytes: 65_536,
  maxDeltaBytes: 262_144,
});

/**
 * Checks the state a request writes, for the request's principal:
 *
 * - `app:` keys are shared by every session of every user of the app (and reach their agents'
 *   instructions through `{app:key}`), so only an admin token (`'*'`, which is also what every
 *   request is without auth) may write them: 403 `STATE_KEY_FORBIDDEN` naming the key otherwise.
 *   The app's own code (agents, tools, callbacks) is not a request and may write them.
 * - Each value, and the whole, must fit the {@link StateLimits}: 400 `STATE_TOO_LARGE` naming the
 *   key (or the field) otherwise.
 */
export function checkStateWrite(
  field: 'state' | 'stateDelta',
  state: Readonly<Record<string, unknown>>,
  principal: string,
  limits: Required<StateLimits>,
): void {
  let total = 2; // the braces
  for (const [key, value] of Object.entries(state)) {
    if (key.startsWith(APP_PREFIX) && principal !== ADMIN) {
      throw new HttpError(
        403,
        'STATE_KEY_FORBIDDEN',
        `The token of user '${principal}' cannot write the state key '${key}' (field '${field}'): 'app:' keys are shared by the sessions of every user of the app. ` +
          `Write it with an admin token ('*') or from the app's own code (a tool or callback), or use a 'user:' key, which only this user's sessions share.`,
        `${field}.${key}`,
      );
    }
    const bytes = Buffer.byteLength(JSON.stringify(value) ?? 'null');
    if (bytes > limits.maxValueBytes) {
      throw new HttpError(
        400,
        'STATE_TOO_LARGE',
        `The value of state key '${key}' (field '${field}') is ${bytes} bytes of JSON, over the limit of ${limits.maxValueBytes}. Keep large data out of state (e.g. in an artifact or your own store, with its id in state), or raise createApp's stateLimits.maxValueBytes.`,
        `${field}.${key}`,
      );
    }
    total += Buffer.byteLength(JSON.stringify(key)) + 2 + bytes;
  }
  if (total > limits.maxDeltaBytes) {
    throw new HttpError(
      400,
      'STATE_TOO_LARGE',
      `The field '${field}' is ${total} bytes of JSON, over the limit of ${limits.maxDeltaBytes}. Write less state in one request, or raise createApp's stateLimits.maxDeltaBytes.`,
      field,
    );
  }
}
