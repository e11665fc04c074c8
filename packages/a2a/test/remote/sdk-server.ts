// An A2A server made of the official SDK's pieces (DefaultRequestHandler, InMemoryTaskStore, the
// JSON-RPC transport handler) on node:http, bound to 127.0.0.1, as RemoteA2aAgent's peer in tests.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { A2A_VERSION_HEADER, SSE_HEADERS, formatSSEEvent, type AgentCard } from '@a2a-js/sdk';
import {
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
  defaultServerCallContextBuilder,
  type AgentExecutor,
} from '@a2a-js/sdk/server';

export interface SdkServerOptions {
  executor: AgentExecutor;
  name?: string;
  description?: string;
  /** The card says the agent streams. @default true */
  streaming?: boolean;
  /** Answer every request (card included) with this HTTP status instead. */
  status?: number;
}

export interface SdkServer {
  /** The server's base URL (the card is at /.well-known/agent-card.json). */
  url: string;
  card: AgentCard;
  /** Headers of every JSON-RPC request received, with its method. */
  requests: { method: string; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

export async function startSdkServer(options: SdkServerOptions): Promise<SdkServer> {
  const requests: SdkServer['requests'] = [];
  // Both need the URL, known once the server listens.
  const made: { transport?: JsonRpcTransportHandler; card?: AgentCard } = {};
  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (options.status !== undefined) {
      res.writeHead(options.status, { 'content-type': 'application/json' }).end('{"error":"refused by the test"}');
      return;
    }
    if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(made.card));
      return;
    }
    const body = JSON.parse(await readBody(req)) as { method: string };
    requests.push({ method: body.method, headers: req.headers });
    const requestedVersion = req.headers[A2A_VERSION_HEADER.toLowerCase()];
    const context = defaultServerCallContextBuilder({
      extensions: undefined,
      user: new UnauthenticatedUser(),
      headers: req.headers,
      ...(typeof requestedVersion === 'string' ? { requestedVersion } : {}),
    });
    const result = await made.transport!.handle(body, context);
    if (Symbol.asyncIterator in result) {
      res.writeHead(200, SSE_HEADERS);
      // Like the SDK's express handler: the stream is read to its end even when the client left,
      // so the task store keeps every update (a client that crashed can get the task later).
      for await (const event of result) res.write(formatSSEEvent(event));
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card: AgentCard = {
    name: options.name ?? 'Scripted',
    description: options.description ?? 'A scripted A2A agent for tests.',
    supportedInterfaces: [{ url: `${url}/`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version: '1.0.0',
    capabilities: {
      streaming: options.streaming ?? true,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text'],
    defaultOutputModes: ['text'],
    skills: [],
    signatures: [],
  };
  made.card = card;
  made.transport = new JsonRpcTransportHandler(
    new DefaultRequestHandler(card, new InMemoryTaskStore(), options.executor),
  );
  return {
    url,
    card,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
