import { type Event as AgUiEvent, EventType, type RunErrorEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { toHttpError } from '../http-error.js';
import { pacedSse } from '../paced-sse.js';
import { type RunEvents, SSE_HEADERS } from '../run-stream.js';
import type { TrackedRun } from '../run-tracker.js';
import { translatedRun } from '../translated-run.js';
import type { EventTranslator } from './event-translator.js';

/** The AG-UI events of a started run, from RUN_STARTED to RUN_FINISHED or RUN_ERROR. */
export function agUiEvents(
  run: RunEvents,
  translator: EventTranslator,
  onFailure: (error: unknown) => void,
): AsyncGenerator<AgUiEvent, void, undefined> {
  return translatedRun(run, translator, onFailure, () => translator.start());
}

/**
 * Answers with the run's AG-UI events as server-sent events, one frame per event and one write per
 * frame (AG-UI's encoder: a `data:` line of JSON), paced by the client as `/run_sse` is (see
 * {@link pacedSse}): the cancellation of a run nobody reads any more is still stored.
 */
export function agUiResponse(
  tracked: TrackedRun,
  events: AsyncGenerator<AgUiEvent, void, undefined>,
  translator: EventTranslator,
  onFailure: (error: unknown) => void,
): Response {
  const encoder = new EventEncoder();
  return pacedSse(
    tracked,
    events,
    {
      frame: (event) => encoder.encodeSSE(event),
      onError(error): AgUiEvent[] {
        // Only a bug gets here (the run's own failures are events): the client still gets an end.
        onFailure(error);
        const runError: RunErrorEvent = {
          type: EventType.RUN_ERROR,
          message: toHttpError(error).clientMessage,
          code: 'INTERNAL',
        };
        return [runError];
      },
      onEnd: () => tracked.end(translator.lastEvent),
    },
    { status: 200, headers: { ...SSE_HEADERS, 'Content-Type': encoder.getContentType() } },
  );
}
