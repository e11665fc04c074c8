import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { BasePlugin, type InvocationContext, type RunResult } from '@troupe/core';

/**
 * Writes one line per HTTP request the server answered, once its response has ended: method, path
 * (without the query string, which may carry secrets), status and milliseconds, e.g.
 * `GET /list-apps 200 3ms`. A stream (`/run_sse`) is logged when it ends.
 */
export function logRequests(server: Server, write: (line: string) => void, now: () => number = Date.now): void {
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const started = now();
    response.once('close', () => {
      const path = (request.url ?? '/').split('?')[0];
      const aborted = response.writableFinished ? '' : ' (connection closed early)';
      write(`${request.method ?? '?'} ${path} ${response.statusCode} ${now() - started}ms${aborted}`);
    });
  });
}

/** Writes one line per run the server ran: app, session, user, how it ended and how long it took. */
export class RunLogPlugin extends BasePlugin {
  private readonly started = new Map<string, number>();

  constructor(
    private readonly write: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {
    super('troupe-cli-run-log');
  }

  override beforeRun({ context }: { context: InvocationContext }): undefined {
    this.started.set(context.invocationId, this.now());
    return undefined;
  }

  override afterRun({ context, result }: { context: InvocationContext; result: RunResult }): undefined {
    const started = this.started.get(context.invocationId) ?? this.now();
    this.started.delete(context.invocationId);
    const { appName, id, userId } = context.session;
    const why = result.error && result.status !== 'completed' ? `: ${result.error.message}` : '';
    this.write(`run ${appName} session ${id} user ${userId} ${result.status} ${this.now() - started}ms${why}`);
    return undefined;
  }
}
