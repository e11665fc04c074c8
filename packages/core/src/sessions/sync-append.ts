import type { Event } from '../events/event.js';
import type { AppendEventParams } from './session.js';

/**
 * The key of a store's synchronous append, for the runner's event path. A store whose append does
 * no I/O (the in-memory store) offers one, and the runner then stores each event in the same turn
 * as it is pushed: no promise per event. Internal: a store's public contract is `appendEvent`.
 */
export const SYNC_APPEND = Symbol('troupe.syncAppend');

/** `appendEvent` done synchronously: the same result, the same errors (thrown). */
export type SyncAppend = (params: AppendEventParams) => Event;

interface OffersSyncAppend {
  [SYNC_APPEND](): SyncAppend | undefined;
}

/** The store's synchronous append, when it offers one (and its `appendEvent` is not overridden). */
export function syncAppendOf(service: object): SyncAppend | undefined {
  const offer = (service as Partial<OffersSyncAppend>)[SYNC_APPEND];
  return typeof offer === 'function' ? offer.call(service) : undefined;
}
