import { A2A_VERSION_HEADER, type AgentCard } from '@a2a-js/sdk';
import { isLegacyJsonRpcMethod, isV1JsonRpcMethod } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import { jsonValueProblem, MAX_ID_LENGTH, nestingProblem, readLimitedBody } from '@troupe/core/hosting';
import type { Context } from 'hono';
import { A2aUser } from './a2a-user.js';
import { type A2aAuthenticator, UnauthorizedError } from './auth.js';
import type { TroupeRequestHandler } from './request-handler.js';
import { bodyTooLargeMessage, idProblem, partsProblem, limitMessage, type RequestLimits } from './request-limits.js';
import { sseResponse } from './sse-response.js';

type JsonRpcId = string | number | null;

const METHODS =
  'A2A 1.0: SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask; A2A 0.3: message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe';
const EXAMPLE = `{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "Hello"}]}}}`;

/**
 * `POST <baseUrl>`: A2A's JSON-RPC binding, 1.0 and 0.3. Authenticates the caller, checks the
 * envelope (naming what is wrong and how a request looks) and the body against the HTTP API's input
 * limits (over the byte limit: HTTP 413; nesting, sizes, id lengths: a -32602 naming the limit),
 * picks the SDK transport by the method's
 * spelling (`SendMessage` is 1.0, `message/send` 0.3), and answers with one JSON-RPC response or,
 * for the streaming methods, server-sent events.
 */
export function jsonRpcRoute(
  handler: TroupeRequestHandler,
  auth: A2aAuthenticator,
  card: AgentCard,
  limits: RequestLimits,
): (c: Context) => Promise<Response> {
  const v1 = new JsonRpcTransportHandler(handler);
  const legacy = new LegacyJsonRpcTransportHandler(handler);
  return async (c) => {
    let userId: string;
    try {
      userId = await auth.userOf(c.req.header('Authorization'));
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
      return rpcError(null, -32600, error.message, 401, { 'WWW-Authenticate': 'Bearer' });
    }
    const mediaType = (c.req.header('Content-Type') ?? 'application/json').split(';', 1)[0]!.trim().toLowerCase();
    if (mediaType !== 'application/json' && mediaType !== 'application/a2a+json') {
      return rpcError(
        null,
        -32600,
        `The request's Content-Type is '${mediaType}'; A2A's JSON-RPC binding takes 'application/json'. Send the JSON-RPC request as JSON, e.g. ${EXAMPLE}.`,
        415,
      );
    }
    const text = await readLimitedBody(c.req.raw, limits.bodyLimit);
    if (typeof text !== 'string') {
      return text.tooLarge
        ? rpcError(null, -32600, bodyTooLargeMessage(limits.bodyLimit), 413)
        : rpcError(null, -32600, `The client stopped sending the request body (${text.reason}).`, 400);
    }
    // Scanned before parsing: a deep body would cost the parser, then overflow the SDK's recursion.
    const tooDeep = nestingProblem(text, limits.json.maxDepth);
    if (tooDeep) return rpcError(null, -32602, limitMessage(tooDeep), 200);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      return rpcError(
        null,
        -32700,
        `The request body is not JSON (${(error as Error).message}). Send a JSON-RPC 2.0 request, e.g. ${EXAMPLE}.`,
        400,
      );
    }
    const problem = envelopeProblem(body);
    if (problem) return rpcError(problem.id, problem.code, problem.message, 200);
    const { method, id = null, params } = body as { method: string; id?: JsonRpcId; params?: unknown };
    const overLimit = jsonValueProblem(body, limits.json);
    if (overLimit) return rpcError(id, -32602, limitMessage(overLimit), 200);
    const longId = idProblem(params);
    if (longId) return rpcError(id, -32602, longId, 200);
    const badParts = partsProblem(params);
    if (badParts) return rpcError(id, -32602, badParts, 200);
    const useLegacy = !isV1JsonRpcMethod(method);
    const context = new ServerCallContext({
      user: new A2aUser(userId),
      requestedVersion: c.req.header(A2A_VERSION_HEADER) || undefined,
    });
    const mapError = (error: unknown): unknown =>
      useLegacy
        ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error)
        : JsonRpcTransportHandler.mapToJSONRPCError(error);
    try {
      validateVersion(context.requestedVersion, card, 'JSONRPC');
    } catch (error) {
      return Response.json({ jsonrpc: '2.0', id, error: mapError(error) });
    }
    const response = await (useLegacy ? legacy : v1).handle(body as Record<string, unknown>, context);
    if (!isAsyncGenerator(response)) return Response.json(response);
    // The first frame is awaited before answering, so a refused stream is a plain JSON-RPC error.
    let first: IteratorResult<unknown, void>;
    try {
      first = await response.next();
    } catch (error) {
      return Response.json({ jsonrpc: '2.0', id, error: mapError(error) });
    }
    if (first.done)
      return Response.json({
        jsonrpc: '2.0',
        id,
        error: { code: -32603, message: 'The stream ended before its first event.' },
      });
    return sseResponse(first.value, response, (error) => ({ jsonrpc: '2.0', id, error: mapError(error) }));
  };
}

/** What is wrong with a JSON-RPC envelope, if anything, with the fix. */
function envelopeProblem(body: unknown): { id: JsonRpcId; code: number; message: string } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return {
      id: null,
      code: -32600,
      message: `The request is ${Array.isArray(body) ? 'an array (batches are not supported)' : shown(body)}; send one JSON-RPC 2.0 request object, e.g. ${EXAMPLE}.`,
    };
  }
  const request = body as Record<string, unknown>;
  const id =
    typeof request.id === 'string' || (typeof request.id === 'number' && Number.isInteger(request.id))
      ? request.id
      : null;
  if (request.id !== undefined && request.id !== null && id === null)
    return {
      id: null,
      code: -32600,
      message: `The request's id is ${shown(request.id)}; use a string, a whole number or null.`,
    };
  // Every answer echoes the id: a long one is refused rather than sent back.
  if (typeof id === 'string' && id.length > MAX_ID_LENGTH)
    return {
      id: null,
      code: -32600,
      message: `The request's id has ${id.length} characters, over the limit of ${MAX_ID_LENGTH}; use a short string or a number.`,
    };
  if (request.jsonrpc !== '2.0')
    return {
      id,
      code: -32600,
      message: `The request's jsonrpc is ${shown(request.jsonrpc)}; it must be "2.0".`,
    };
  if (typeof request.method !== 'string' || request.method === '')
    return { id, code: -32600, message: `The request has no method; name one of ${METHODS}.` };
  if (!isV1JsonRpcMethod(request.method) && !isLegacyJsonRpcMethod(request.method)) {
    return {
      id,
      code: -32601,
      message: `There is no method ${JSON.stringify(request.method.slice(0, 100))}. Use one of ${METHODS}.`,
    };
  }
  const cardMethod =
    request.method === 'GetExtendedAgentCard' || request.method === 'agent/getAuthenticatedExtendedCard';
  if (!cardMethod && (typeof request.params !== 'object' || request.params === null || Array.isArray(request.params))) {
    return {
      id,
      code: -32602,
      message: `${request.method} needs params, an object (got ${request.params === undefined ? 'none' : shown(request.params)}), e.g. ${EXAMPLE}.`,
    };
  }
  return undefined;
}

/** A value of the request as a message shows it: JSON, cut at 100 characters (answers never echo a body back). */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 100 ? `${text.slice(0, 100)}...` : text;
}

function rpcError(
  id: JsonRpcId,
  code: number,
  message: string,
  status: number,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ jsonrpc: '2.0', id, error: { code, message } }, { status, headers });
}

function isAsyncGenerator(value: unknown): value is AsyncGenerator<unknown, void, undefined> {
  return (
    typeof value === 'object' && value !== null && typeof (value as AsyncGenerator)[Symbol.asyncIterator] === 'function'
  );
}
