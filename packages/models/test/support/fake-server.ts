import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** A request the fake provider received. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** The body's bytes as sent (UTF-8), for tests that compare requests byte for byte. */
  raw: string;
  /** Resolves when the client closed the connection (e.g. after an abort). */
  closed: Promise<void>;
}

/** Writes the answer to one request. */
export type Reply = (res: ServerResponse, req: RecordedRequest) => void | Promise<void>;

/**
 * A provider stand-in on 127.0.0.1: answers each request with the next scripted reply and
 * records what it received. A request without a scripted reply gets HTTP 599 and fails the test
 * through {@link FakeServer.unexpected}.
 */
export class FakeServer {
  readonly requests: RecordedRequest[] = [];
  readonly unexpected: RecordedRequest[] = [];
  private readonly replies: Reply[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeServer> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('The fake server has no TCP address.');
    const fake = new FakeServer(server, `http://127.0.0.1:${address.port}`);
    server.on('connection', (socket) => {
      fake.sockets.add(socket);
      socket.on('close', () => fake.sockets.delete(socket));
    });
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
        const recorded: RecordedRequest = {
          method: req.method ?? 'GET',
          path: req.url ?? '/',
          headers: req.headers,
          body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
          raw: text,
          closed,
        };
        const reply = fake.replies.shift();
        if (!reply) {
          fake.unexpected.push(recorded);
          res
            .writeHead(599, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: { message: 'no scripted reply' } }));
          return;
        }
        fake.requests.push(recorded);
        void Promise.resolve(reply(res, recorded)).catch((error: unknown) => {
          res.destroy(error instanceof Error ? error : new Error(String(error)));
        });
      });
    });
    return fake;
  }

  /** Queues replies for the next requests, in order. */
  reply(...replies: Reply[]): this {
    this.replies.push(...replies);
    return this;
  }

  /** Resolves once `count` requests have arrived. */
  async waitForRequests(count: number, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.requests.length < count) {
      if (Date.now() > deadline)
        throw new Error(
          `The fake server got ${this.requests.length} of ${count} expected requests within ${timeoutMs} ms.`,
        );
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** Scripted replies not used yet. */
  get pending(): number {
    return this.replies.length;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A JSON answer. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return (res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
}

/**
 * A server-sent-event stream of the given frames (each a complete `data: ...` or
 * `event: ...\ndata: ...` block). With `cut`, the connection drops after the frames instead of
 * ending cleanly.
 */
export function sse(frames: readonly string[], options: { cut?: boolean } = {}): Reply {
  return async (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    for (const frame of frames) {
      // Each frame handed to the OS before the next (and before a cut, so none is lost with it).
      await new Promise<void>((resolve) => res.write(`${frame}\n\n`, () => resolve()));
      // Separate TCP writes, so the client sees the chunks arrive one by one.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    if (options.cut) {
      res.socket?.destroy();
      return;
    }
    res.end();
  };
}

/** Never answers: headers never come, the connection stays open until the client gives up. */
export function hang(): Reply {
  return () => undefined;
}

/** Splits a string into `n` pieces of about equal length (for streamed text and argument fragments). */
export function pieces(text: string, n: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / n));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
