import { type Event, InterruptResponseError, redact, type Runner, type RunResult } from '@troupe/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { askPerson } from './ask-person.js';
import { completedResult, endedResult, pendingResult, type RunError } from './call-results.js';
import { mcpMessage } from './mcp-remedy.js';
import type { ResolvedMcpOptions } from './mcp-server-options.js';
import type { CallExtra, ProgressReporter } from './progress-reporter.js';

/** A started run, as `runner.start` and `runner.startResume` return it. */
export type RunEvents = AsyncGenerator<Event, RunResult, undefined>;

/** Who runs, where, and how the call talks back. */
export interface CallRun {
  runner: Runner;
  userId: string;
  sessionId: string;
  options: ResolvedMcpOptions;
  extra: CallExtra;
  progress: ProgressReporter;
  /** The client takes form elicitations: interrupts are asked in the call. */
  canElicit: boolean;
}

/**
 * Runs one call's turn to its end: starts it (`start` rejects for misuse, before anything is
 * stored: the caller answers that), sends its events as progress, asks the person each pause's
 * interrupts and resumes with the answers when the client takes elicitations, and returns the
 * result. The client's cancel (the request's signal) and the host's tracker cancel the run. Every
 * progress notification is flushed before the result goes out.
 */
export async function runCall(
  call: CallRun,
  start: (signal: AbortSignal) => Promise<RunEvents>,
): Promise<CallToolResult> {
  const { runner, userId, sessionId, extra, progress } = call;
  const tracked = call.options.runTracker.begin({ appName: runner.appName, userId, sessionId });
  const signal = AbortSignal.any([tracked.signal, extra.signal]);
  try {
    let events = await start(signal);
    let elicit = call.canElicit;
    let note: string | undefined;
    for (;;) {
      const ended = await follow(events, progress);
      if (ended.result?.status === 'completed') return completedResult(ended.result, sessionId);
      if (ended.result?.status !== 'interrupted')
        return endedResult(ended.result?.status ?? 'failed', ended.error, sessionId);
      const { interrupts, invocationId } = ended.result;
      if (!elicit || signal.aborted) return pendingResult(interrupts, sessionId, note);
      const asked = await askPerson(interrupts, extra, signal, call.options.elicitationTimeoutMs);
      if (asked.stopped !== undefined) {
        // Asked once and not answered: the rest of this call does not ask again.
        elicit = false;
        note = asked.stopped;
      }
      if (Object.keys(asked.responses).length === 0 || signal.aborted)
        return pendingResult(interrupts, sessionId, note);
      try {
        events = await runner.startResume({
          userId,
          sessionId,
          invocationId,
          responses: asked.responses,
          runConfig: call.options.runConfig,
          abortSignal: signal,
        });
      } catch (error) {
        // An answer the run does not take (not of its responseSchema's shape): it still waits.
        if (error instanceof InterruptResponseError) return pendingResult(interrupts, sessionId, mcpMessage(error));
        throw error;
      }
    }
  } finally {
    tracked.end();
    await progress.flush();
  }
}

/** How a run's events ended: its result (undefined when it threw), and the last error it stored or threw. */
interface Ended {
  result: RunResult | undefined;
  error: RunError | undefined;
}

async function follow(events: RunEvents, progress: ProgressReporter): Promise<Ended> {
  let error: RunError | undefined;
  try {
    for (;;) {
      const step = await events.next();
      if (step.done) return { result: step.value, error };
      const event: Event = step.value;
      if (event.errorCode !== undefined) error = { code: event.errorCode, message: event.errorMessage ?? '' };
      await progress.report(event);
    }
  } catch (thrown) {
    // A failed run yields its stored error event, then throws: the event says it all (the runner
    // redacted it). A failure it could not store (its store failed) is said here, redacted too.
    return {
      result: undefined,
      error: error ?? { code: 'ERROR', message: redact(thrown instanceof Error ? thrown.message : String(thrown)) },
    };
  }
}
