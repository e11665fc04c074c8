import {
  jsonValueProblem,
  type JsonLimitProblem,
  type JsonLimits,
  nestingProblem,
  readLimitedBody,
} from '@troupe/core/hosting';
import { JsonRpcCode, jsonRpcErrorResponse } from './http-replies.js';

/**
 * Reads a POST body as JSON within the limits, as the HTTP API reads its bodies: one whose
 * Content-Length is over `bodyLimit` is refused without reading it (413), a chunked one as soon as it
 * passes the limit; text nested deeper than `maxDepth` is refused before it is parsed, then strings,
 * arrays and reserved keys are checked (400, naming the field). Resolves with the parsed body, or
 * the refusal to send.
 */
export async function readJsonBody(
  request: Request,
  bodyLimit: number,
  limits: Required<JsonLimits>,
): Promise<{ body: unknown } | Response> {
  const text = await readText(request, bodyLimit);
  if (text instanceof Response) return text;
  const deep = nestingProblem(text, limits.maxDepth);
  if (deep) return limitRefusal(deep);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return jsonRpcErrorResponse(
      400,
      JsonRpcCode.parseError,
      'Parse error: the request body is not JSON. Send one JSON-RPC message (or a batch) as application/json.',
    );
  }
  const problem = jsonValueProblem(body, limits);
  return problem ? limitRefusal(problem) : { body };
}

async function readText(request: Request, limit: number): Promise<string | Response> {
  const text = await readLimitedBody(request, limit);
  if (typeof text === 'string') return text;
  return text.tooLarge
    ? jsonRpcErrorResponse(
        413,
        JsonRpcCode.transport,
        `The request body is larger than the limit of ${limit} bytes. Send less, or raise mcpServer's bodyLimit (createApp's bodyLimit).`,
      )
    : jsonRpcErrorResponse(400, JsonRpcCode.transport, `The request body could not be read: ${text.reason}.`);
}

function limitRefusal(problem: JsonLimitProblem): Response {
  const message =
    problem.kind === 'reserved-key'
      ? `Invalid request: field '${problem.field}': the key '${problem.key}' is reserved (it could change object prototypes); rename it.`
      : `Invalid request: field '${problem.field}' ${problem.what}. Send less, or raise mcpServer's jsonLimits.${problem.option} (createApp's jsonLimits).`;
  return jsonRpcErrorResponse(400, JsonRpcCode.invalidRequest, message);
}
