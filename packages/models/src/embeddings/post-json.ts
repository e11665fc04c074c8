import { messageOf, providerError, throwIfAborted, type ProviderIdentity } from '../shared/errors.js';
import type { HttpEmbedderOptions } from './embedder-options.js';

/** What the provider's error body says: its message and, for Gemini, how long to wait. */
export interface ErrorBodyDetails {
  message?: string | undefined;
  retryAfterMs?: number | undefined;
}

/** One JSON POST to an embedding endpoint. */
export interface JsonPost {
  url: string;
  /** The adapter's own headers (the key); the user's `headers` option is sent over them. */
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal | undefined;
  /** The user's connection options. */
  connection: Pick<HttpEmbedderOptions, 'headers' | 'timeoutMs' | 'fetch'>;
  /** Reads the provider's error body (already parsed from JSON, or the raw text when it was not JSON). */
  readError: (body: unknown) => ErrorBodyDetails;
}

/**
 * The failed HTTP response, kept as the cause of the ProviderError: the retry policy reads its
 * `status` and its `Retry-After` / `retry-after-ms` headers from there.
 */
export class HttpResponseError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly body: string,
  ) {
    super(`HTTP ${status}: ${body.slice(0, 500)}`);
    this.name = 'HttpResponseError';
  }
}

/**
 * Sends the request and returns the parsed JSON answer. A failure is a ProviderError naming the
 * provider, the model, the status and the provider's own message (secrets masked); a cancelled
 * call rejects with the signal's reason instead.
 */
export async function postJson(who: ProviderIdentity, model: string, post: JsonPost): Promise<unknown> {
  const { timeoutMs, fetch = globalThis.fetch } = post.connection;
  const timeout = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
  const signals = [post.signal, timeout].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  let response: Response;
  let text: string;
  try {
    response = await fetch(post.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...post.headers, ...post.connection.headers },
      body: JSON.stringify(post.body),
      ...(signal === undefined ? {} : { signal }),
    });
    text = await response.text();
  } catch (error) {
    throwIfAborted(post.signal);
    // A request over its time limit is worth another try, as the SDKs behind the chat adapters do.
    const timedOut = timeout?.aborted === true;
    throw providerError(who, model, { message: messageOf(error), ...(timedOut ? { retryable: true } : {}) }, error);
  }
  const parsed = parseJson(text);
  if (!response.ok) {
    const details = post.readError(parsed === undefined ? text : parsed.value);
    throw providerError(
      who,
      model,
      {
        status: response.status,
        message: details.message ?? (text.trim().slice(0, 500) || response.statusText),
        retryAfterMs: details.retryAfterMs,
      },
      new HttpResponseError(response.status, response.headers, text),
    );
  }
  if (parsed === undefined) {
    throw providerError(
      who,
      model,
      { message: `the answer is not JSON: ${text.slice(0, 200)}` },
      undefined,
      'response',
    );
  }
  return parsed.value;
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}
