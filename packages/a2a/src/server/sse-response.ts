import { SSE_HEADERS, formatSSEErrorEvent, formatSSEEvent } from '@a2a-js/sdk';

/** How long a quiet stream waits before it sends a comment, so proxies do not cut it as idle. */
const KEEP_ALIVE_MS = 15_000;
const KEEP_ALIVE = Symbol('keep-alive');

/**
 * A JSON-RPC stream as server-sent events, one frame per response. Frames are taken from the
 * generator only when the client reads (a slow client slows its reading, not the task, whose
 * updates wait merged in their queue); a client that goes away stops the generator. A failure
 * mid-stream becomes a last `event: error` frame, as the SDK's clients expect.
 */
export function sseResponse(
  first: unknown,
  rest: AsyncGenerator<unknown, void, undefined>,
  errorFrame: (error: unknown) => unknown,
): Response {
  const encoder = new TextEncoder();
  let pending: Promise<IteratorResult<unknown, void>> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(formatSSEEvent(first)));
    },
    async pull(controller) {
      pending ??= rest.next();
      let timer: NodeJS.Timeout | undefined;
      const quiet = new Promise<typeof KEEP_ALIVE>(
        (resolve) => (timer = setTimeout(() => resolve(KEEP_ALIVE), KEEP_ALIVE_MS)),
      );
      try {
        const next = await Promise.race([pending, quiet]);
        if (next === KEEP_ALIVE) {
          controller.enqueue(encoder.encode(': keep-alive\n\n'));
          return;
        }
        pending = undefined;
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(formatSSEEvent(next.value)));
      } catch (error) {
        controller.enqueue(encoder.encode(formatSSEErrorEvent(errorFrame(error))));
        controller.close();
      } finally {
        clearTimeout(timer);
      }
    },
    async cancel() {
      await rest.return(undefined);
    },
  });
  return new Response(stream, { status: 200, headers: { ...SSE_HEADERS } });
}
