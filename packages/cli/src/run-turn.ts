import { RunCancelledError, RunLimitError, type Runner, type RunStatus } from '@troupe/core';
import type { EventSink } from './event-sinks.js';

/** One user message to run. */
export interface TurnRequest {
  userId: string;
  sessionId: string;
  message: string;
  abortSignal?: AbortSignal;
}

/** How a turn ended. */
export interface TurnOutcome {
  status: RunStatus;
  /** The error of a turn that did not complete. */
  error?: Error;
  /** True when the runner yielded an error event for `error` (the sink has shown it). */
  errorEventShown: boolean;
}

/**
 * Runs one turn with streaming on, showing every event through `sink`, and reports how it ended.
 * Never throws for a failed run: the failure is the outcome.
 */
export async function runTurn(runner: Runner, request: TurnRequest, sink: EventSink): Promise<TurnOutcome> {
  let interrupted = false;
  let errorEventShown = false;
  try {
    const events = runner.runAsync({
      userId: request.userId,
      sessionId: request.sessionId,
      newMessage: request.message,
      runConfig: { streaming: 'sse' },
      abortSignal: request.abortSignal,
    });
    for await (const event of events) {
      if (event.interrupt) interrupted = true;
      if (event.errorCode !== undefined) errorEventShown = true;
      sink.write(event);
    }
    return { status: interrupted ? 'interrupted' : 'completed', errorEventShown };
  } catch (caught) {
    const error = caught instanceof Error ? caught : new Error(String(caught));
    return { status: statusOf(error, request.abortSignal), error, errorEventShown };
  } finally {
    sink.endTurn();
  }
}

/** The run status an error ends a turn with, as `runner.run` would report it. */
function statusOf(error: Error, signal: AbortSignal | undefined): RunStatus {
  if (error instanceof RunLimitError) return 'limit';
  if (error instanceof RunCancelledError || signal?.aborted) return 'cancelled';
  return 'failed';
}

/** The line to print on stderr after a turn that did not complete, unless the sink already showed it. */
export function outcomeMessage(outcome: TurnOutcome, sink: EventSink): string | undefined {
  if (outcome.status === 'interrupted') return 'The run paused: a tool is waiting for a human answer (an interrupt), which troupe run cannot give yet.';
  if (!outcome.error || (outcome.errorEventShown && sink.errorsOnStderr)) return undefined;
  return `${outcome.status === 'cancelled' ? 'Cancelled' : 'Error'}: ${outcome.error.message}`;
}
