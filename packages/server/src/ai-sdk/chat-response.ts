import { pacedSse } from '../paced-sse.js';
import { type RunEvents, SSE_HEADERS } from '../run-stream.js';
import type { TrackedRun } from '../run-tracker.js';
import type { ChunkTranslator } from './chunk-translator.js';
import type { UiMessageChunk } from './ui-message-chunk.js';
import { uiMessageChunks } from './ui-message-stream.js';
import { toHttpError } from '../http-error.js';

/** The header by which the AI SDK knows a UI message stream, and its protocol version. */
export const UI_MESSAGE_STREAM_HEADER = 'x-vercel-ai-ui-message-stream';

/** The protocol's last frame: the stream is complete. */
const DONE = Symbol('done');

/**
 * Answers with a started run as the AI SDK's UI message stream: one `data:` frame of JSON per
 * chunk, then `data: [DONE]`, paced by the client as `/run_sse` is (see {@link pacedSse}), so the
 * cancellation of a run nobody reads any more is still stored.
 */
export function chatResponse(
  tracked: TrackedRun,
  events: RunEvents,
  translator: ChunkTranslator,
  onFailure: (error: unknown) => void,
): Response {
  return pacedSse<UiMessageChunk | typeof DONE>(
    tracked,
    framesOf(uiMessageChunks(events, translator, onFailure)),
    {
      frame: (item) => (item === DONE ? 'data: [DONE]\n\n' : `data: ${JSON.stringify(item)}\n\n`),
      onError(error) {
        // Only a bug gets here (the run's own failures are chunks): the client still gets an end.
        onFailure(error);
        return [{ type: 'error', errorText: toHttpError(error).clientMessage }, DONE];
      },
      onEnd: () => tracked.end(translator.lastEvent),
    },
    { status: 200, headers: { ...SSE_HEADERS, [UI_MESSAGE_STREAM_HEADER]: 'v1' } },
  );
}

async function* framesOf(
  chunks: AsyncGenerator<UiMessageChunk, void, undefined>,
): AsyncGenerator<UiMessageChunk | typeof DONE, void, undefined> {
  yield* chunks;
  yield DONE;
}
