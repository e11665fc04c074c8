/** A body that was not read: over the byte limit, or cut off by the client. */
export type UnreadBody = { tooLarge: true } | { tooLarge: false; reason: string };

/**
 * Reads a request body as UTF-8, held to `limit` bytes, as the HTTP API reads its bodies: one whose
 * Content-Length is over `limit` bytes is refused without touching its stream (Node then discards
 * the bytes and the connection stays usable: refusing after the body stream was opened would leave
 * it half-read and break the client's next request on that connection); a chunked body is counted
 * as it arrives and dropped as soon as it passes the limit. Resolves with the text, or with why it
 * was not read; the caller answers in its protocol.
 */
export async function readLimitedBody(request: Request, limit: number): Promise<string | UnreadBody> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > limit) return { tooLarge: true };
  try {
    if (Number.isInteger(declared) || !request.body) return await request.text();
    const reader = request.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel();
        return { tooLarge: true };
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks, size).toString('utf8');
  } catch (error) {
    // The body comes from the client's connection: reading it fails only when that connection does.
    return { tooLarge: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
