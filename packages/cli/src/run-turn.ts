import {
  type Content,
  type Event,
  GuardrailTrippedError,
  type InterruptInfo,
  InterruptResponseError,
  RunCancelledError,
  RunLimitError,
  type Runner,
  type RunResult,
  type RunStatus,
} from '@troupe/core';
import type { EventSink } from './event-sinks.js';
import { askerOf } from './workflow-nodes.js';

/** One user message to run: a text `message`, or a structured `input` (`ctx.input`), or both. */
export interface TurnRequest {
  userId: string;
  sessionId: string;
  /** Text, or a message with files (`--attach`). */
  message?: string | Content;
  /** A structured input, checked against the agent's `inputSchema` by the runner. */
  input?: Record<string, unknown>;
  abortSignal?: AbortSignal;
}

/** Answers to the open interrupts of a session, to resume its paused run with. */
export interface ResumeRequest {
  userId: string;
  sessionId: string;
  /** Answers by interrupt id, as `runner.resume` takes them. */
  responses: Record<string, unknown>;
  abortSignal?: AbortSignal;
}

/** How a turn (or the resumed part of one) ended. */
export interface TurnOutcome {
  status: RunStatus;
  /** The interrupts still waiting for an answer when the status is `'interrupted'`. */
  interrupts: InterruptInfo[];
  /** The error of a turn that did not complete. */
  error?: Error;
  /** True when the runner yielded an error event for `error` (the sink has shown it). */
  errorEventShown: boolean;
}

/**
 * Runs one turn with streaming on, showing every event through `sink`, and reports how it ended.
 * Never throws for a failed run: the failure is the outcome.
 */
export function runTurn(runner: Runner, request: TurnRequest, sink: EventSink): Promise<TurnOutcome> {
  const { userId, sessionId, message, input, abortSignal } = request;
  return showTurn(
    () =>
      runner.runAsync({
        userId,
        sessionId,
        ...(message !== undefined ? { newMessage: message } : {}),
        ...(input !== undefined ? { input } : {}),
        runConfig: { streaming: 'sse' },
        abortSignal,
      }),
    abortSignal,
    sink,
  );
}

/**
 * Resumes the paused run of a session with answers, showing the events through `sink` like a
 * turn. An answer the runner refuses (a wrong id, an input that does not match its
 * `responseSchema`) ends it with status `'failed'` before anything is stored: see
 * {@link isRejectedAnswer}.
 */
export function resumeTurn(runner: Runner, request: ResumeRequest, sink: EventSink): Promise<TurnOutcome> {
  const { userId, sessionId, responses, abortSignal } = request;
  return showTurn(
    () => runner.resumeAsync({ userId, sessionId, responses, runConfig: { streaming: 'sse' }, abortSignal }),
    abortSignal,
    sink,
  );
}

/** True when a resume failed because the runner refused the answers, so they can be asked again. */
export function isRejectedAnswer(outcome: TurnOutcome): boolean {
  return outcome.status === 'failed' && outcome.error instanceof InterruptResponseError;
}

async function showTurn(
  start: () => AsyncGenerator<Event, RunResult, undefined>,
  signal: AbortSignal | undefined,
  sink: EventSink,
): Promise<TurnOutcome> {
  let errorEventShown = false;
  try {
    sink.beginTurn?.();
    const events = start();
    for (;;) {
      const step = await events.next();
      if (step.done) {
        if (step.value.status === 'completed') sink.showOutput?.(step.value.output);
        return {
          status: step.value.status,
          interrupts: step.value.status === 'interrupted' ? step.value.interrupts : [],
          errorEventShown,
        };
      }
      if (step.value.errorCode !== undefined) errorEventShown = true;
      sink.write(step.value);
    }
  } catch (caught) {
    const error = caught instanceof Error ? caught : new Error(String(caught));
    return { status: statusOf(error, signal), interrupts: [], error, errorEventShown };
  } finally {
    sink.endTurn();
  }
}

/** The run status an error ends a turn with, as `runner.run` would report it. */
function statusOf(error: Error, signal: AbortSignal | undefined): RunStatus {
  if (error instanceof RunLimitError) return 'limit';
  if (error instanceof GuardrailTrippedError) return 'blocked';
  if (error instanceof RunCancelledError || signal?.aborted) return 'cancelled';
  return 'failed';
}

/**
 * The line to print on stderr after a turn that did not complete, unless the sink already showed
 * it. For a paused run, `resumeHint` tells how to answer later.
 */
export function outcomeMessage(outcome: TurnOutcome, sink: EventSink, resumeHint = ''): string | undefined {
  if (outcome.status === 'interrupted') {
    const list = outcome.interrupts
      .map((i) => `${i.id} (${i.kind === 'confirmation' ? 'confirm' : 'input for'} ${askerOf(i)})`)
      .join(', ');
    return `The run is waiting for a human answer to ${list}.${resumeHint ? ` ${resumeHint}` : ''}`;
  }
  if (!outcome.error || (outcome.errorEventShown && sink.errorsOnStderr)) return undefined;
  return `${outcome.status === 'cancelled' ? 'Cancelled' : outcome.status === 'blocked' ? 'Blocked' : 'Error'}: ${outcome.error.message}`;
}
