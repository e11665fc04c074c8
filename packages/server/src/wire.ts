import {
  isErrorCode,
  type Content,
  type Event,
  type EventActions,
  type EventCompaction,
  type Part,
  type Session,
} from '@troupe/core';
import { confirmationCall, confirmationResponse, resumeRecordAnswers } from './adk-confirmation.js';
import { inputCall, inputResponse, isInputRequest } from './adk-input.js';
import type { BackgroundRunInfo } from './background-runs.js';
import { HttpError } from './http-error.js';

/**
 * The one place where core's values become JSON for the wire and back. Core keeps times in
 * milliseconds; ADK's Python server, whose clients Troupe serves, sends seconds as a float
 * (`timestamp`, `lastUpdateTime`), so every conversion happens here and nowhere else.
 */

/**
 * An event as sent over HTTP: core's event with `timestamp` in seconds. A confirmation interrupt
 * also carries ADK's form of it: an `adk_request_confirmation` function call in `content`, whose
 * id is in `longRunningToolIds` (see {@link confirmationCall}); a graph workflow's request for
 * input likewise carries an `adk_request_input` call (see {@link inputCall}). A workflow node's
 * `nodeInfo`, `output` and `route` stay top-level, where ADK puts them.
 */
export type WireEvent = Omit<Event, 'timestamp' | 'actions'> & {
  timestamp: number;
  longRunningToolIds?: string[];
  actions: WireActions;
};

/** An event's actions on the wire: a compaction also carries its summary under ADK's name. */
export type WireActions = Omit<EventActions, 'compaction'> & {
  compaction?: EventCompaction & { compactedContent?: Content };
};

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

/**
 * Encodes one event. Every field of core's event is kept, `id` included; a confirmation interrupt
 * gets ADK's `adk_request_confirmation` call beside it, and a workflow's request for input ADK's
 * `adk_request_input` call, so ADK's clients can answer them.
 */
export function encodeEvent(event: Event): WireEvent {
  const wire: WireEvent = { ...event, timestamp: msToSeconds(event.timestamp) };
  // A compaction's times are seconds on the wire too, and its summary is also under ADK's name (EventCompaction.compactedContent).
  const compaction = event.actions.compaction;
  if (compaction) {
    wire.actions = {
      ...event.actions,
      compaction: {
        ...compaction,
        compactedContent: compaction.summary,
        startTimestamp: msToSeconds(compaction.startTimestamp),
        endTimestamp: msToSeconds(compaction.endTimestamp),
      },
    };
  }
  const interrupt = event.interrupt;
  if (!interrupt) return wire;
  const call =
    interrupt.kind === 'confirmation'
      ? confirmationCall(interrupt)
      : isInputRequest(interrupt)
        ? inputCall(interrupt)
        : undefined;
  if (!call) return wire;
  wire.content = {
    role: event.content?.role ?? 'model',
    parts: [...(event.content?.parts ?? []), { functionCall: call }],
  };
  wire.longRunningToolIds = [call.id];
  return wire;
}

/**
 * Encodes a session's events. A resume record that answered confirmations or workflow requests
 * for input also carries ADK's `adk_request_confirmation` / `adk_request_input` responses, so an
 * ADK client reading the session sees them answered.
 */
function encodeEvents(events: readonly Event[]): WireEvent[] {
  const asked = new Map<string, 'confirmation' | 'input'>();
  for (const { interrupt } of events) {
    if (interrupt?.kind === 'confirmation') asked.set(interrupt.id, 'confirmation');
    else if (interrupt && isInputRequest(interrupt)) asked.set(interrupt.id, 'input');
  }
  return events.map((event) => {
    const wire = encodeEvent(event);
    const answers = asked.size > 0 ? resumeRecordAnswers(event) : undefined;
    const parts: Part[] = [];
    for (const [id, answer] of Object.entries(answers ?? {})) {
      const kind = asked.get(id);
      if (kind === 'confirmation') parts.push({ functionResponse: confirmationResponse(id, answer) });
      else if (kind === 'input') parts.push({ functionResponse: inputResponse(id, answer) });
    }
    if (parts.length > 0) wire.content = { role: 'user', parts: [...(event.content?.parts ?? []), ...parts] };
    return wire;
  });
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
  if (withEvents) wire.events = encodeEvents(session.events);
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
  return isErrorCode(code) && SERVER_SIDE_RUN_ERRORS.has(code)
    ? new HttpError(500, code, message).clientMessage
    : message;
}
