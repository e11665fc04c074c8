import { randomUUID } from 'node:crypto';
import { redact } from '@troupe/core';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { userOf } from './http-auth.js';
import { readJsonBody } from './http-body.js';
import { JsonRpcCode, jsonRpcErrorResponse } from './http-replies.js';
import type { ResolvedMcpOptions } from './mcp-server-options.js';
import { type CallCount, protocolServer } from './protocol-server.js';

/**
 * MCP sessions (`Mcp-Session-Id`) held at once. Past it, the least recently used one without a call
 * in progress is closed (its client starts a new one on its next request, as after a restart).
 */
const MAX_SESSIONS = 1000;

/** One client's MCP session: its own server and transport, and the user it belongs to. */
interface HttpSession {
  userId: string;
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  calls: CallCount;
}

/**
 * Serves MCP over Streamable HTTP (web-standard Request/Response): each client that initializes
 * gets a session of its own (a server and a transport, so that a call can ask the client and be
 * answered on another request), bound to the user its token stands for. A request naming another
 * user's session is answered as one naming no session.
 */
export class HttpSessions {
  /** By session id, least recently used first. */
  private readonly sessions = new Map<string, HttpSession>();
  private closed = false;

  constructor(private readonly options: ResolvedMcpOptions) {}

  /** Answers one HTTP request; never throws (a failure of the server itself is a JSON-RPC internal error). */
  async handle(request: Request): Promise<Response> {
    try {
      return await this.answer(request);
    } catch (error) {
      return jsonRpcErrorResponse(
        500,
        JsonRpcCode.internalError,
        `The MCP server failed: ${redact(error instanceof Error ? error.message : String(error))}`,
      );
    }
  }

  /** Closes every session (their calls' runs are cancelled by the run tracker first). */
  async close(): Promise<void> {
    this.closed = true;
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(open.map((session) => session.server.close()));
  }

  private async answer(request: Request): Promise<Response> {
    if (this.closed)
      return jsonRpcErrorResponse(
        503,
        JsonRpcCode.transport,
        'The MCP server is closed. Retry against another instance.',
      );
    const method = request.method;
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE')
      return jsonRpcErrorResponse(
        405,
        JsonRpcCode.transport,
        `Method ${method} is not allowed: MCP's Streamable HTTP takes POST (messages), GET (the server's stream) and DELETE (end the session).`,
        { Allow: 'GET, POST, DELETE' },
      );
    const userId = await userOf(request, this.options);
    if (userId instanceof Response) return userId;
    const sessionId = request.headers.get('mcp-session-id');
    if (method !== 'POST') {
      if (sessionId === null) return noSessionHeader(method);
      const session = this.find(sessionId, userId);
      return session ? session.transport.handleRequest(request) : sessionNotFound(sessionId);
    }
    const read = await readJsonBody(request, this.options.bodyLimit, this.options.jsonLimits);
    if (read instanceof Response) return read;
    if (sessionId !== null) {
      const session = this.find(sessionId, userId);
      return session ? session.transport.handleRequest(request, { parsedBody: read.body }) : sessionNotFound(sessionId);
    }
    if (!isInitializeRequest(read.body)) return noSessionHeader(method);
    return this.open(userId, request, read.body);
  }

  /** Starts a session with the client's `initialize` request. */
  private async open(userId: string, request: Request, body: unknown): Promise<Response> {
    if (!this.makeRoom())
      return jsonRpcErrorResponse(
        503,
        JsonRpcCode.transport,
        `The MCP server holds ${MAX_SESSIONS} sessions, each with a call in progress. Retry later, or end unused sessions (DELETE with their Mcp-Session-Id).`,
      );
    const calls: CallCount = { active: 0 };
    const server = protocolServer(this.options, userId, calls);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { userId, server, transport, calls });
      },
      maxRequestBodySize: this.options.bodyLimit,
    });
    // Closed by the client (DELETE), by make-room or by close(): the session is gone.
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody: body });
    // Refused before it began (headers the transport does not take): nothing to keep.
    if (transport.sessionId === undefined) await server.close();
    return response;
  }

  /** This user's session of that id, now the most recently used; undefined for an unknown id or another user's. */
  private find(sessionId: string, userId: string): HttpSession | undefined {
    const session = this.sessions.get(sessionId);
    if (!session || session.userId !== userId) return undefined;
    this.sessions.delete(sessionId);
    this.sessions.set(sessionId, session);
    return session;
  }

  /** Below the limit, or made so by closing the least recently used idle session; false when every one is busy. */
  private makeRoom(): boolean {
    if (this.sessions.size < MAX_SESSIONS) return true;
    for (const [id, session] of this.sessions) {
      if (session.calls.active > 0) continue;
      this.sessions.delete(id);
      void session.server.close();
      return true;
    }
    return false;
  }
}

function noSessionHeader(method: string): Response {
  return jsonRpcErrorResponse(
    400,
    JsonRpcCode.transport,
    method === 'POST'
      ? "Bad Request: this message needs the Mcp-Session-Id header of a session. Start one with an 'initialize' request (its response carries the header), then send it on every request."
      : `Bad Request: ${method} needs the Mcp-Session-Id header of a session; start one with an 'initialize' POST.`,
  );
}

function sessionNotFound(sessionId: string): Response {
  return jsonRpcErrorResponse(
    404,
    JsonRpcCode.sessionNotFound,
    `Session not found: there is no MCP session '${sessionId.length > 64 ? `${sessionId.slice(0, 64)}…` : sessionId}' of this user (it ended, the server restarted, or it is another user's). Start a new one with an 'initialize' request.`,
  );
}
