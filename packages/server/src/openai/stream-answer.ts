import { toHttpError } from '../http-error.js';
import { pacedSse } from '../paced-sse.js';
import { type RunFailureListener, SSE_HEADERS } from '../run-stream.js';
import { interruptHeader } from './complete-answer.js';
import { completionChunk, type CompletionMeta, usageChunk } from './completion-shapes.js';
import { openAiErrorBody } from './openai-error.js';
import type { StartedChatTurn } from './turn-events.js';
import { TurnReader } from './turn-reader.js';

/** How the streamed answer is made. */
export interface StreamAnswerParams {
  started: StartedChatTurn;
  meta: CompletionMeta;
  includeUsage: boolean;
  /** Headers of the response (the session's id). */
  headers: Record<string, string>;
  onFailure: RunFailureListener;
}

/**
 * Answers with the turn as server-sent `chat.completion.chunk`s, as OpenAI streams: the role
 * first, the content as the agents write it, a last chunk with the finish reason, the usage chunk
 * when asked (`stream_options.include_usage`), then `data: [DONE]`. A failure after the first
 * chunk is a `data: {"error": ...}` frame, which OpenAI's clients raise.
 *
 * The headers wait for the first content: a turn that pauses before its agents wrote anything
 * (a tool asking for approval at once) names its question in `X-Troupe-Interrupt-Id` as a
 * non-streamed answer does, and a turn that fails or is refused before writing anything is
 * answered with an error status. A turn that wrote text before it paused has sent its headers: the
 * question is then in the message's text and the session's events.
 */
export async function streamAnswer(params: StreamAnswerParams): Promise<Response> {
  const { started, meta, includeUsage } = params;
  const reader = new TurnReader();
  let ended = false;
  async function* deltas(): AsyncGenerator<string, void, undefined> {
    for await (const event of started.events) for (const delta of reader.read(event)) if (delta !== '') yield delta;
    ended = true;
    for (const delta of reader.finish()) if (delta !== '') yield delta;
  }
  const source = deltas();
  const first = await source.next();
  const failure = ended ? reader.failure : undefined;
  if (first.done && failure) return Response.json(failure.body, { status: failure.status, headers: params.headers });

  const frame = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
  const chunk = (delta: Parameters<typeof completionChunk>[1], finish: 'stop' | 'content_filter' | null = null) =>
    frame(completionChunk(meta, delta, finish, includeUsage));
  async function* frames(): AsyncGenerator<string, void, undefined> {
    yield chunk({ role: 'assistant', content: '' });
    if (!first.done) yield chunk({ content: first.value });
    for await (const delta of source) yield chunk({ content: delta });
    const end = reader.failure;
    if (end) return yield frame(end.body);
    yield chunk({}, reader.finishReason);
    if (includeUsage) yield frame(usageChunk(meta, reader.usage));
    yield 'data: [DONE]\n\n';
  }
  return pacedSse(
    started.tracked,
    frames(),
    {
      frame: (text) => text,
      onError(error) {
        // Only a bug gets here (the turn's failures are events): the client still gets an end.
        params.onFailure(error);
        const http = toHttpError(error);
        return [frame(openAiErrorBody(http.status, http.code, http.clientMessage, http.field))];
      },
      // The turn's events release the run when they end.
      onEnd: () => undefined,
    },
    {
      status: 200,
      headers: { ...SSE_HEADERS, ...params.headers, ...(ended ? interruptHeader(reader.interruptIds) : {}) },
    },
  );
}
