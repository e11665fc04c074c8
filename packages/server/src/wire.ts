import type { Event, Session } from '@troupe/core';

/**
 * The one place where core's values become JSON for the wire and back. Core keeps times in
 * milliseconds; ADK's Python server, whose clients Troupe serves, sends seconds as a float
 * (`timestamp`, `lastUpdateTime`), so every conversion happens here and nowhere else.
 */

/** An event as sent over HTTP: core's event with `timestamp` in seconds. */
export type WireEvent = Omit<Event, 'timestamp'> & { timestamp: number };

/** A session as sent over HTTP. `events` is absent in session lists. */
export interface WireSession {
  id: string;
  appName: string;
  userId: string;
  state: Record<string, unknown>;
  events?: WireEvent[];
  /** Seconds since the epoch. */
  lastUpdateTime: number;
}

/** Milliseconds (in process) to seconds (on the wire). */
export function msToSeconds(ms: number): number {
  return ms / 1000;
}

/** Seconds (on the wire) to milliseconds (in process). */
export function secondsToMs(seconds: number): number {
  return Math.round(seconds * 1000);
}

/** Encodes one event. Every field of core's event is kept, `id` included. */
export function encodeEvent(event: Event): WireEvent {
  return { ...event, timestamp: msToSeconds(event.timestamp) };
}

/** Encodes a session, with its events unless `withEvents` is false (session lists). */
export function encodeSession(session: Session, withEvents = true): WireSession {
  const wire: WireSession = {
    id: session.id,
    appName: session.appName,
    userId: session.userId,
    state: session.state,
    lastUpdateTime: msToSeconds(session.lastUpdateTime),
  };
  if (withEvents) wire.events = session.events.map(encodeEvent);
  return wire;
}

/**
 * One server-sent-events frame: a single `data:` line holding the event's JSON, then the blank
 * line that ends the frame. JSON.stringify escapes CR and LF, so the JSON never spans lines.
 */
export function sseFrame(event: Event): string {
  return `data: ${JSON.stringify(encodeEvent(event))}\n\n`;
}
