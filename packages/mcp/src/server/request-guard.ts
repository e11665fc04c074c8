import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  type JSONRPCRequest,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** The requests this server answers, by method, with the schema of their params. */
const SCHEMAS = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
} as const;

/**
 * Makes every transport `server` connects to answer a request whose params do not fit its method
 * with JSON-RPC's invalid-params error (-32602) naming the field: the SDK would parse them inside
 * the handler and answer a bare internal error (-32603) holding the parser's issue list.
 */
export function guardRequests(server: Server): void {
  const connect = server.connect.bind(server);
  server.connect = async (transport: Transport) => {
    await connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const problem = isJSONRPCRequest(message) ? paramsProblem(message) : undefined;
      if (problem === undefined || !isJSONRPCRequest(message)) return deliver?.(message, extra);
      transport
        .send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: problem } })
        .catch((error: unknown) => transport.onerror?.(error instanceof Error ? error : new Error(String(error))));
    };
  };
}

/** What is wrong with a request's params, or undefined when they fit (or its method is not one answered here). */
function paramsProblem(request: JSONRPCRequest): string | undefined {
  const method = request.method;
  if (!Object.hasOwn(SCHEMAS, method)) return undefined;
  const checked = SCHEMAS[method as keyof typeof SCHEMAS].safeParse(request);
  if (checked.success) return undefined;
  const issues = checked.error.issues
    .slice(0, 5)
    .map((issue) => `'${issue.path.join('.') || '(request)'}': ${issue.message}`);
  return `Invalid params of '${method}': ${issues.join('; ')}. Send them as the MCP specification of '${method}' describes${method === 'tools/call' ? ', e.g. { "name": "<tool>", "arguments": { "message": "..." } }' : ''}.`;
}
