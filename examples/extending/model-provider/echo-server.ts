/**
 * A local Echo API for the tests: it answers each call with the next scripted turn, as the real
 * provider would put it on the wire, and keeps the last request it received.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReceivedModelRequest, ScriptedProviderTurn } from '@troupe/core/testing/contracts';

interface EchoRequestBody {
  system?: string;
  tools: { name: string }[];
  messages: { role: string; text: string }[];
  stream: boolean;
}

export class EchoServer {
  private readonly turns: ScriptedProviderTurn[] = [];
  private last: EchoRequestBody | undefined;

  private constructor(private readonly server: Server) {}

  /** Starts a server on a free loopback port. */
  static async start(): Promise<EchoServer> {
    const echo: EchoServer = new EchoServer(createServer((req, res) => void echo.handle(req, res)));
    await new Promise<void>((resolve) => echo.server.listen(0, '127.0.0.1', resolve));
    return echo;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The answer to the next call. */
  next(turn: ScriptedProviderTurn): void {
    this.turns.push(turn);
  }

  /** The last request, in the contract suite's terms. */
  lastRequest(): ReceivedModelRequest {
    if (!this.last) throw new Error('The Echo server has received no request yet.');
    return {
      systemInstruction: this.last.system,
      toolNames: this.last.tools.map((tool) => tool.name),
      userText: this.last.messages.filter((m) => m.role === 'user').at(-1)?.text ?? '',
    };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    const body = JSON.parse(raw) as EchoRequestBody;
    this.last = body;
    const turn = this.turns.shift() ?? {
      error: { status: 500, message: 'The Echo test server had no scripted answer.' },
    };
    if ('hang' in turn) return;
    if ('error' in turn) {
      res
        .writeHead(turn.error.status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: turn.error.message } }));
      return;
    }
    const calls = (turn.calls ?? []).map((call) => ({ id: call.id, name: call.name, arguments: call.args ?? {} }));
    const { usage: counts } = turn;
    const usage = counts
      ? {
          input: counts.inputTokens,
          output: counts.outputTokens,
          cached: counts.cachedTokens,
          thought: counts.thoughtTokens,
        }
      : undefined;
    if (!body.stream) {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ text: turn.text ?? '', calls, usage }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const text = turn.text ?? '';
    const size = Math.max(1, Math.ceil(text.length / 3));
    for (let at = 0; at < text.length; at += size)
      res.write(`${JSON.stringify({ type: 'delta', text: text.slice(at, at + size) })}\n`);
    res.end(`${JSON.stringify({ type: 'done', calls, usage })}\n`);
  }
}
