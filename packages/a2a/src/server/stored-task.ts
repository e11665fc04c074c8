import type { Artifact, Message, Task } from '@a2a-js/sdk';
import { type Event, isFinalResponse, type Session } from '@troupe/core';
import { openInterrupts } from '@troupe/core/hosting';
import { A2A_INTERRUPT_PART_TYPE, peerAsk } from './interrupt-parts.js';
import { agentMessage, dataPart, toA2aParts, userMessage } from './parts.js';
import { statusOf, type TaskOutcome } from './task-outcome.js';

/**
 * A task as the session store records it: the events of its invocation. Undefined when the session
 * holds no invocation with that id (another user's session never reaches here: the lookup is by
 * the caller's user). `running` says that this process is running it right now.
 */
export function storedTask(session: Session, taskId: string, running: boolean): Task | undefined {
  const events = session.events.filter((e) => e.invocationId === taskId);
  if (events.length === 0) return undefined;
  const outcome = running ? ({ state: 'working' } as const) : outcomeOf(session, taskId, events);
  const ids = { taskId, contextId: session.id };
  return {
    id: taskId,
    contextId: session.id,
    status: statusOf(outcome, ids),
    artifacts: artifactsOf(events),
    history: historyOf(events, ids),
    metadata: undefined,
  };
}

/** What the stored events say about a task that no run of this process is executing. */
export function outcomeOf(session: Session, taskId: string, events: readonly Event[]): TaskOutcome {
  const last = events[events.length - 1]!;
  if (last.errorCode === 'CANCELLED')
    return { state: 'canceled', message: last.errorMessage ?? 'The task was cancelled.', at: last.timestamp };
  if (last.errorCode === 'GUARDRAIL_TRIPPED')
    return { state: 'rejected', message: last.errorMessage ?? 'A guardrail blocked the task.', at: last.timestamp };
  if (last.errorCode !== undefined)
    return {
      state: 'failed',
      code: last.errorCode,
      message: last.errorMessage ?? `The run failed (${last.errorCode}).`,
      at: last.timestamp,
    };
  const open = openInterrupts(session.events, taskId);
  if (open.length > 0) return { state: 'input-required', interrupts: open, at: last.timestamp };
  // A run ends on an agent's final answer; anything else (a tool call in flight) means it is still
  // running in another process, or its process died mid-run (`runner.resume({ invocationId })`).
  if (last.author === 'user' || !isFinalResponse(last)) return { state: 'working' };
  return { state: 'completed', output: outputOf(events), at: last.timestamp };
}

/** The run's output: the `output` of its last event that carries one (as `RunResult.output`). */
function outputOf(events: readonly Event[]): unknown {
  for (let i = events.length - 1; i >= 0; i--) if (events[i]!.output !== undefined) return events[i]!.output;
  return undefined;
}

/** One artifact per agent event that says something (text or files), numbered in order. */
export function artifactsOf(events: readonly Event[]): Artifact[] {
  const artifacts: Artifact[] = [];
  for (const event of events) {
    if (event.author === 'user' || event.partial) continue;
    const parts = toA2aParts(event.content);
    if (parts.length > 0) artifacts.push(responseArtifact(artifacts.length + 1, event.author, parts));
  }
  return artifacts;
}

/** The `n`-th response artifact of a task, by `author`. Live and stored views number them alike. */
export function responseArtifact(n: number, author: string, parts: Artifact['parts']): Artifact {
  return {
    artifactId: `response-${n}`,
    name: author,
    description: `What ${author} said.`,
    parts,
    metadata: { author },
    extensions: [],
  };
}

/** The user's message, the agent's questions and the user's answers, in order. */
function historyOf(events: readonly Event[], ids: { taskId: string; contextId: string }): Message[] {
  const history: Message[] = [];
  for (const event of events) {
    const messageIds = { messageId: event.id, ...ids };
    if (event.author === 'user' && event.content) history.push(userMessage(messageIds, toA2aParts(event.content)));
    const responses = event.author === 'user' ? event.actions.agentState?.resume : undefined;
    if (typeof responses === 'object' && responses !== null)
      history.push(userMessage(messageIds, [dataPart(responses)]));
    if (event.interrupt)
      history.push(agentMessage(messageIds, [dataPart(peerAsk(event.interrupt), { type: A2A_INTERRUPT_PART_TYPE })]));
  }
  return history;
}
