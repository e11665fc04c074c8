import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** What the test server saw. */
export interface HttpServerLog {
  /** Sessions opened (one per client connection) and ended by the client. */
  opened: string[];
  ended: string[];
  /** Calls of `wait` that were cancelled by the client. */
  cancelled: number;
  /** Calls of `wait` in progress. */
  waiting: number;
  /** The Authorization header of each request. */
  authorizations: (string | undefined)[];
}

/** A real MCP server over Streamable HTTP on 127.0.0.1 (a free port), one McpServer per session. */
export async function startHttpServer(
  options: { token?: string } = {},
): Promise<{ url: string; log: HttpServerLog; close: () => Promise<void> }> {
  const log: HttpServerLog = { opened: [], ended: [], cancelled: 0, waiting: 0, authorizations: [] };
  const transports = new Map<string, StreamableHTTPServerTransport>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    log.authorizations.push(req.headers.authorization);
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') {
      res.writeHead(404).end('not found');
      return;
    }
    if (options.token !== undefined && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId !== undefined) {
        res.writeHead(404).end('unknown session');
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          transports.set(id, created);
          log.opened.push(id);
        },
        onsessionclosed: (id) => {
          transports.delete(id);
          log.ended.push(id);
        },
      });
      await newServer(log).connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    log,
    close: async () => {
      await Promise.all([...transports.values()].map((t) => t.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function newServer(log: HttpServerLog): McpServer {
  const server = new McpServer({ name: 'troupe-http-fixture', version: '1.0.0' });
  server.registerTool(
    'add',
    { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }),
  );
  server.registerTool('picture', { description: 'A picture and where it comes from.' }, async () => ({
    content: [
      { type: 'text', text: 'A red dot.' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png', annotations: { audience: ['user'] } },
      { type: 'resource', resource: { uri: 'file:///dot.txt', mimeType: 'text/plain', text: 'dot' } },
      { type: 'resource_link', uri: 'file:///dot.png', name: 'dot.png' },
    ],
  }));
  server.registerTool('wait', { description: 'Waits until cancelled.' }, async (extra) => {
    log.waiting++;
    await new Promise<void>((resolve) => {
      extra.signal.addEventListener('abort', () => {
        log.waiting--;
        log.cancelled++;
        resolve();
      });
    });
    return { content: [{ type: 'text', text: 'cancelled' }] };
  });
  return server;
}
