import type { ResolvedMcpOptions } from './mcp-server-options.js';
import { JsonRpcCode, jsonRpcErrorResponse } from './http-replies.js';

/** The user id a token of `'*'` (an admin) stands for: any user; over MCP, which names none, `defaultUserId`. */
const ADMIN = '*';

/**
 * The user an HTTP request acts as: the one its bearer token stands for (an admin token, and every
 * request without auth configured, act as `defaultUserId`), or the 401 to answer.
 */
export async function userOf(request: Request, options: ResolvedMcpOptions): Promise<string | Response> {
  if (!options.verifyToken) return options.defaultUserId;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.get('authorization') ?? '');
  if (!match) return unauthorized("This MCP server requires a token: send the header 'Authorization: Bearer <token>'.");
  const userId = await options.verifyToken(match[1]!);
  if (typeof userId !== 'string' || userId === '')
    return unauthorized('The bearer token was not accepted. Check the token the server was configured with.');
  return userId === ADMIN ? options.defaultUserId : userId;
}

function unauthorized(message: string): Response {
  return jsonRpcErrorResponse(401, JsonRpcCode.transport, message, { 'WWW-Authenticate': 'Bearer' });
}
