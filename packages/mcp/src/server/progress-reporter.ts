import type { Event } from '@troupe/core';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  EmptyResultSchema,
  type ProgressToken,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { progressMessages } from './progress-messages.js';

/** The request handler context of one tool call, as the SDK gives it. */
export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How long the client gets to answer the ping that ends a call's progress (see {@link ProgressReporter.flush}). */
const FLUSH_TIMEOUT_MS = 5_000;

/**
 * Sends a call's events as `notifications/progress` when the client asked for progress (sent a
 * progress token), on the call's own stream (the SDK's related-request mechanism), each awaited so
 * they go out in order.
 */
export class ProgressReporter {
  private sent = 0;
  private unflushed = false;
  private broken = false;

  constructor(
    private readonly token: ProgressToken | undefined,
    private readonly extra: CallExtra,
  ) {}

  /** Sends the event's progress messages (none when the client sent no progress token). */
  async report(event: Event): Promise<void> {
    if (this.token === undefined || this.broken) return;
    for (const message of progressMessages(event)) {
      try {
        await this.extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: this.token, progress: ++this.sent, message },
        });
      } catch {
        // The connection that carries the call is gone: the run goes on (its events are stored), and
        // the call's result, if it can still be sent, says how it ended.
        this.broken = true;
        return;
      }
      this.unflushed = true;
    }
  }

  /**
   * Makes sure the client has taken in every notification before the call's result is sent. A
   * client reads the notifications that arrive in one chunk with the result after it (the SDK
   * handles notifications a microtask later than responses) and then drops them, their progress
   * token being gone. A ping, answered by the client once it has read everything before it, proves
   * they are in; the result follows.
   */
  async flush(): Promise<void> {
    if (!this.unflushed || this.broken || this.extra.signal.aborted) return;
    this.unflushed = false;
    try {
      await this.extra.sendRequest({ method: 'ping' }, EmptyResultSchema, {
        timeout: FLUSH_TIMEOUT_MS,
        signal: this.extra.signal,
      });
    } catch {
      // A client that does not answer pings (or has left) still gets its result: without the proof,
      // the notifications were at least written before it.
    }
  }
}
