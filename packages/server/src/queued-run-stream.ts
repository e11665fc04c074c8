import type { RunRecordStatus } from '@troupe/core/stores';
import type { Event } from '@troupe/core';
import type { BackgroundRuns, BackgroundStreamEntry } from './background-runs.js';
import { unreportedEnd } from './queued-run-end.js';
import { failureEvent, type RunFailureListener, SSE_HEADERS } from './run-stream.js';
import type { SessionPath } from './run-access.js';
import type { TrackedRun } from './run-tracker.js';
import { sseFrame } from './wire.js';

/** What to stream: one background run, from the start or after a frame the client already has. */
export interface QueuedStreamParams {
  queue: BackgroundRuns;
  runId: string;
  /** The run's session (a run id its caller chose is that session's). */
  session: SessionPath;
  /** The SSE `Last-Event-ID` of a reconnecting client: only later frames are sent. */
  lastEventId?: string | undefined;
  /** Which frames to send, given the join's entries. @default all of them */
  select?: (entries: AsyncIterable<BackgroundStreamEntry>) => AsyncIterable<BackgroundStreamEntry>;
  /** This server's handle on the stream: aborting its signal (client gone, shutdown) stops following. */
  tracked: TrackedRun;
  onFailure: RunFailureListener;
  /** How long the stream may stay silent before a comment line keeps proxies from closing it. @default 15000 */
  keepAliveMs?: number;
}

/**
 * Silence after which a `: keep-alive` comment is sent: below the idle timeouts of common proxies
 * and load balancers (often 30 to 60 s), which would otherwise cut a stream whose run waits for a
 * worker or runs a long tool. EventSource ignores comments.
 */
const KEEP_ALIVE_MS = 15_000;
const KEEP_ALIVE = ': keep-alive\n\n';

/**
 * Answers with a background run's events as server-sent events, each frame `id: <entry id>` and
 * `data: <event>` in one write, until the run ends or pauses. The frames are read from the queue
 * only as fast as the client takes them (one frame buffered), and the run goes on whatever the
 * client does: a client that goes away only stops following it, and can come back with
 * `Last-Event-ID`. A failure while following (Redis gone) ends the stream with an error event.
 * While nothing happens, a comment line every `keepAliveMs` keeps the connection open.
 */
export function queuedRunStream(params: QueuedStreamParams): Response {
  const { queue, runId, session, tracked, onFailure } = params;
  const encoder = new TextEncoder();
  let endedAs: RunRecordStatus | undefined;
  const joined = queue.join(runId, {
    signal: tracked.signal,
    session,
    onEnd: (status) => (endedAs = status),
    ...(params.lastEventId === undefined ? {} : { lastEventId: params.lastEventId }),
  });
  const entries = params.select ? params.select(joined) : joined;
  let iterator: AsyncIterator<BackgroundStreamEntry> | undefined;
  // The read in progress: after a keep-alive, the next pull waits for the same one.
  let pending: Promise<IteratorResult<BackgroundStreamEntry>> | undefined;
  let last: Event | undefined;
  let done = false;
  const keepAliveMs = params.keepAliveMs ?? KEEP_ALIVE_MS;

  const finish = (controller: ReadableStreamDefaultController<Uint8Array>, final?: Event) => {
    done = true;
    if (final) controller.enqueue(encoder.encode(sseFrame(final)));
    controller.close();
    tracked.end(last);
  };

  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (done) return;
        try {
          iterator ??= entries[Symbol.asyncIterator]();
          pending ??= iterator.next();
          const step = await quietFor(pending, keepAliveMs);
          if (step === SILENT) {
            controller.enqueue(encoder.encode(KEEP_ALIVE));
            return;
          }
          pending = undefined;
          if (!step.done) {
            if (!step.value.event.partial) last = step.value.event;
            controller.enqueue(encoder.encode(sseFrame(step.value.event, step.value.id)));
            return;
          }
          finish(
            controller,
            tracked.signal.aborted ? undefined : await unreportedEnd(queue, runId, session, last, endedAs),
          );
        } catch (error) {
          // Stopped on purpose (the client left, the server shuts down): the run goes on, nothing to tell.
          if (tracked.signal.aborted) return finish(controller);
          onFailure(error);
          finish(controller, failureEvent(error, last));
        }
      },
      async cancel() {
        done = true;
        tracked.cancel('The client stopped following the run; the run goes on.');
        tracked.end(last);
        await iterator?.return?.();
      },
    },
    { highWaterMark: 1 },
  );
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}

const SILENT = Symbol('silent');

/** `read`'s result, or {@link SILENT} when it takes longer than `ms` (the read goes on). */
async function quietFor<T>(read: Promise<T>, ms: number): Promise<T | typeof SILENT> {
  let timer: NodeJS.Timeout | undefined;
  const silence = new Promise<typeof SILENT>((resolve) => {
    timer = setTimeout(() => resolve(SILENT), ms);
  });
  try {
    return await Promise.race([read, silence]);
  } finally {
    clearTimeout(timer);
  }
}
