import type { Event, RunResult } from '@troupe/core';
import { translatedRun } from '../translated-run.js';
import { ChunkTranslator } from './chunk-translator.js';
import type { UiMessageChunk } from './ui-message-chunk.js';

/** A run's events as the runner yields them (`runAsync`, `resumeAsync`, `start`, `startResume`). */
export type RunEventStream = AsyncGenerator<Event, RunResult, undefined>;

/** Options of {@link uiMessageStreamOf}. */
export interface UiMessageStreamOptions {
  /**
   * The id of the assistant message the chunks fill, sent on `start`. A resumed run continues the
   * message that asked for approval: give that message's id, and `useChat` adds the rest to it
   * instead of showing a second assistant message.
   * @default the run's invocation id
   */
  messageId?: string;
  /**
   * The `toolCallId`s of tool parts whose approval the user denied (`approval.approved: false`) in
   * the request that resumed this run: their calls end with `tool-output-denied`, as the AI SDK
   * ends a denied call, instead of an error output.
   * @default none
   */
  deniedToolCallIds?: Iterable<string>;
  /**
   * Told of a failure of the run that the runner did not report as an error event itself (a bug).
   * The client gets an `error` chunk without its detail either way; without this listener the
   * stream then errors with the failure, so it is not lost.
   */
  onError?: (error: unknown) => void;
}

/**
 * A run's events as a Vercel AI SDK UI message stream (the chunks `useChat` reads): one assistant
 * message from `start` to `finish`, with text and reasoning parts per agent message, tool parts,
 * approval requests for confirmations and `data-<name>` parts for custom events (see
 * {@link ChunkTranslator} for the mapping). The stream pulls the run: the run goes on only as the
 * stream is read, and cancelling the stream cancels the run. It is the stream that
 * `createUIMessageStreamResponse` and `readUIMessageStream` of the `ai` package take.
 *
 * @example
 * // A route of your own (Next.js, Hono, ...): the user's message in, the UI message stream out.
 * const events = runner.runAsync({ userId, sessionId, newMessage: text, runConfig: { streaming: 'sse' } });
 * return createUIMessageStreamResponse({ stream: uiMessageStreamOf(events) });
 */
export function uiMessageStreamOf(
  run: RunEventStream,
  options: UiMessageStreamOptions = {},
): ReadableStream<UiMessageChunk> {
  const translator = new ChunkTranslator({
    messageId: options.messageId,
    deniedToolCallIds: new Set(options.deniedToolCallIds ?? []),
  });
  let unreported: { error: unknown } | undefined;
  const onFailure = (error: unknown) => {
    if (options.onError) options.onError(error);
    else unreported = { error };
  };
  const chunks = uiMessageChunks(run, translator, onFailure);
  return new ReadableStream<UiMessageChunk>(
    {
      async pull(controller) {
        const step = await chunks.next();
        if (!step.done) return controller.enqueue(step.value);
        if (unreported) controller.error(unreported.error);
        else controller.close();
      },
      async cancel() {
        // Leaves the run, which ends cancelled and gives its session back. A stream cancelled
        // before its first read never started `chunks`, whose return() then skips the run's, so
        // the run is returned here too (a no-op once it has ended).
        await chunks.return();
        await run.return(undefined as never).catch(() => undefined);
      },
    },
    // Nothing is read ahead: the run waits for its reader.
    { highWaterMark: 0 },
  );
}

/**
 * The chunks of a started run, from `start` to `finish` (or `abort`, or `error` then `finish`).
 * Stopping early (`return()`) leaves the run, which the runner then ends as cancelled.
 */
export function uiMessageChunks(
  run: RunEventStream,
  translator: ChunkTranslator,
  onFailure: (error: unknown) => void,
): AsyncGenerator<UiMessageChunk, void, undefined> {
  return translatedRun(run, translator, onFailure);
}
