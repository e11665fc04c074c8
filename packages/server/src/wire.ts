import type { Event, Session } from '@troupe/core';
import type { BackgroundRunInfo } from './background-runs.js';
import { HttpError } from './http-error.js';

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
 * One server-sent-events frame: an `id:` line when the frame has an id (a background run's stream
 * entry, which a reconnecting client sends back as `Last-Event-ID`), a single `data:` line holding
 * the event's JSON, then the blank line that ends the frame. JSON.stringify escapes CR and LF, so
 * the JSON never spans lines; an id with a line break could not be sent back and is left out.
 */
export function sseFrame(event: Event, id?: string): string {
  const idLine = id !== undefined && !/[\r\n\0]/.test(id) ? `id: ${id}\n` : '';
  return `${idLine}data: ${JSON.stringify(encodeEvent(event))}\n\n`;
}

/**
 * A background run's status as sent over HTTP: as the queue reports it (times in milliseconds,
 * as the run routes document), except the message of a failure on the server's side (the store,
 * a bug), which may hold internal detail and is replaced by what a client of a 5xx is told. Only
 * the documented fields are sent.
 */
export function encodeRunInfo(info: BackgroundRunInfo): BackgroundRunInfo {
  const { runId, appName, userId, sessionId, status, attempts, error, createdAt, updatedAt } = info;
  const wire: BackgroundRunInfo = { runId, appName, userId, sessionId, status, attempts, createdAt, updatedAt };
  if (error) wire.error = { code: error.code, message: clientRunErrorMessage(error.code, error.message) };
  return wire;
}

/** Codes of run failures whose messages are the server's business (see {@link HttpError.clientMessage}). */
const SERVER_SIDE_RUN_ERRORS: ReadonlySet<string> = new Set(['STORAGE', 'INTERNAL']);

/** The message of a run failure as a client may see it. */
export function clientRunErrorMessage(code: string, message: string): string {
  return SERVER_SIDE_RUN_ERRORS.has(code) ? new HttpError(500, code, message).clientMessage : message;
}
