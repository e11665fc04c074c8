import type { Event, InterruptInfo } from '@troupe/core';

/**
 * RemoteA2aAgent's progress record (`actions.agentState` on its own events, see the resume protocol
 * in docs/agents.md). It is stored as soon as the remote task's id is known, when the remote asks
 * a question, and with the final answer, so that a resume, in any process and also after a crash
 * mid-stream, follows the same remote task instead of sending the message again, and stores the
 * answer once. A later turn reads the last record to continue the remote conversation (contextId).
 */
export interface RemoteA2aProgress {
  remoteTask: RemoteTaskRecord;
}

/** Where the remote task stood. */
export interface RemoteTaskRecord {
  /** The remote agent (card URL or endpoint): a record of another remote is not followed. */
  url: string;
  /** The remote task; '' when the remote answered with a plain message (no task). */
  taskId: string;
  contextId: string;
  /** `working`: sent, no answer stored yet; `input-required`: waiting for the human; `completed`: answer stored. */
  state: 'working' | 'input-required' | 'completed';
  /** How many times the remote asked a question on this task in this invocation. */
  round: number;
  /** On `input-required`: the interrupts raised, with the remote's own interrupt ids (Troupe peers). */
  asked?: AskedInterrupt[];
  /** On `input-required`: which remote status asked (message id or timestamp), to tell a new question from the same one. */
  statusKey?: string;
  /** Interrupt ids whose answers were sent on this task. */
  answered?: string[];
}

/** An interrupt raised for a remote question. */
export interface AskedInterrupt {
  interrupt: InterruptInfo;
  /** The interrupt id on the remote side, when the remote is a Troupe agent that said it. */
  remoteId?: string;
}

type Json = Record<string, unknown>;

const STATES = new Set(['working', 'input-required', 'completed']);

/** The record in an agentState, or undefined when it holds none (or one of another shape). */
export function readProgress(state: Json | undefined): RemoteTaskRecord | undefined {
  const record = state?.remoteTask as Partial<RemoteTaskRecord> | undefined;
  if (typeof record !== 'object' || record === null) return undefined;
  if (typeof record.url !== 'string' || typeof record.taskId !== 'string' || typeof record.contextId !== 'string')
    return undefined;
  if (!STATES.has(record.state as string) || !Number.isInteger(record.round)) return undefined;
  return record as RemoteTaskRecord;
}

export function progressState(record: RemoteTaskRecord): Json {
  const progress: RemoteA2aProgress = { remoteTask: record };
  return { ...progress };
}

/** Is this event a record of this agent on this branch (any invocation)? */
function ownRecord(event: Event, agentName: string, branch: string): RemoteTaskRecord | undefined {
  return event.author === agentName && event.branch === branch ? readProgress(event.actions.agentState) : undefined;
}

/**
 * The remote conversation to continue: the contextId of the agent's last record on this branch for
 * the same remote, and the index after that record (what the remote has not seen starts there).
 */
export function lastExchange(
  events: readonly Event[],
  agentName: string,
  branch: string,
  url: string,
): { contextId: string | undefined; after: number } {
  for (let i = events.length - 1; i >= 0; i--) {
    const record = ownRecord(events[i]!, agentName, branch);
    if (record)
      return { contextId: record.url === url && record.contextId ? record.contextId : undefined, after: i + 1 };
  }
  return { contextId: undefined, after: 0 };
}

/** Every answer given in an invocation so far, by interrupt id (the runner records them on resume). */
export function answersOf(events: readonly Event[], invocationId: string): Map<string, unknown> {
  const answers = new Map<string, unknown>();
  for (const event of events) {
    if (event.invocationId !== invocationId || event.author !== 'user') continue;
    const resume = event.actions.agentState?.resume as { responses?: unknown } | undefined;
    const responses = resume?.responses;
    if (typeof responses !== 'object' || responses === null) continue;
    for (const [id, value] of Object.entries(responses)) answers.set(id, value);
  }
  return answers;
}
