import type { Event } from '../events/event.js';
import type { Session } from '../sessions/session.js';

/**
 * After a stored append: brings the caller's live session up to date. It gets the whole delta,
 * `temp:` keys included (they live for this invocation), and `undefined` removes a key, as in store.
 */
export function updateLiveSession(
  session: Session,
  delta: Record<string, unknown>,
  stored: Event,
  version: number,
  lastUpdateTime: number,
): void {
  for (const key in delta) {
    if (delta[key] === undefined) delete session.state[key];
    else session.state[key] = delta[key];
  }
  session.events.push(stored);
  session.version = version;
  session.lastUpdateTime = lastUpdateTime;
}
