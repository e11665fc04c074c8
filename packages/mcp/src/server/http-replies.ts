/**
 * The HTTP answers of `handleRequest` that are not the SDK transport's own: a JSON-RPC error body
 * (`id: null`, as the transport words its own refusals) with an HTTP status.
 */
export function jsonRpcErrorResponse(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

/** JSON-RPC's and the transport's error codes used here. */
export const JsonRpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  internalError: -32603,
  /** The transport's code for its own refusals (bad headers, methods, auth). */
  transport: -32000,
  /** The transport's code for an unknown `Mcp-Session-Id`. */
  sessionNotFound: -32001,
} as const;
