import { type Event as AgUiEvent, EventType } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import type { RunResult } from '@troupe/core';
import { toHttpError } from '../http-error.js';
import { type RunEvents, SSE_HEADERS } from '../run-stream.js';
import type { TrackedRun } from '../run-tracker.js';
import type { EventTranslator } from './event-translator.js';

/** The AG-UI events of a started run, from RUN_STARTED to RUN_FINISHED or RUN_ERROR. */
export async function* agUiEvents(run: RunEvents, translator: EventTranslator, onFailure: (error: unknown) => void): AsyncGenerator<AgUiEvent, void, undefined> {
  let result: RunResult;
  try {
    yield* translator.start();
    for (;;) {
      const step = await run.next();
      if (step.done) {
        result = step.value;
        break;
      }
      yield* translator.translate(step.value);
    }
  } catch (error) {
    yield* translator.fail(error, onFailure);
    return;
  } finally {
    // Ends a run this stream stopped following (a failure of the translation itself), so the
    // session is released; a run that ended is left as it is.
    await run.return(undefined as never).catch(() => undefined);
  }
  yield* translator.finish(result);
}

/**
 * Answers with the run's AG-UI events as server-sent events, one frame per event and one write per
 * frame (AG-UI's encoder: a `data:` line of JSON). As on `/run_sse`, the next event is produced
 * once the client has taken the last one, so a slow client slows its run instead of filling a
 * buffer; once the run is cancelled (the client went away, a cancel request, shutdown) the stream
 * stops waiting for the client and runs to its end, so the cancellation is stored and the session
 * released even if nobody reads.
 */
export function agUiResponse(tracked: TrackedRun, events: AsyncGenerator<AgUiEvent, void, undefined>, translator: EventTranslator, onFailure: (error: unknown) => void): Response {
  const encoder = new EventEncoder();
  const bytes = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    wake?.();
    wake = undefined;
  };
  tracked.signal.addEventListener('abort', wakeUp, { once: true });

  const clientWantsMore = async () => {
    while (open && !tracked.signal.aborted && (controller.desiredSize ?? 0) <= 0) {
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  const send = (event: AgUiEvent) => {
    if (!open) return;
    try {
      controller.enqueue(bytes.encode(encoder.encodeSSE(event)));
    } catch {
      // The stream was torn down with the connection; the run goes on to store its end.
      open = false;
    }
  };
  const pump = async () => {
    try {
      for (;;) {
        await clientWantsMore();
        const step = await events.next();
        if (step.done) break;
        send(step.value);
      }
    } catch (error) {
      // Only a bug gets here (the run's own failures are events): the client still gets an end.
      onFailure(error);
      send({ type: EventType.RUN_ERROR, message: toHttpError(error).clientMessage, code: 'INTERNAL' });
    } finally {
      tracked.end(translator.lastEvent);
      if (open) {
        open = false;
        controller.close();
      }
    }
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        void pump();
      },
      pull: wakeUp,
      cancel() {
        open = false;
        tracked.cancel('The client disconnected; the run was cancelled.');
        wakeUp();
      },
    },
    { highWaterMark: 1 },
  );
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, 'Content-Type': encoder.getContentType() } });
}
