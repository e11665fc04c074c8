import type { Context } from 'hono';
import { type ErrorListener, reportErrorAndHeaders } from '../error-response.js';
import { toHttpError } from '../http-error.js';
import type { ServerEnv } from '../server-context.js';

/**
 * OpenAI's error body, which its clients read (`error.message`, `error.code`, `error.param`):
 * `type` is `invalid_request_error` for the client's mistakes and `server_error` for the server's,
 * as OpenAI answers; `code` is Troupe's code in OpenAI's lower-case spelling
 * (`session_not_found`, `pending_interrupt`), or OpenAI's own where it has one
 * (`model_not_found`, `invalid_api_key`).
 */
export interface OpenAiErrorBody {
  error: {
    message: string;
    type: 'invalid_request_error' | 'server_error';
    /** The request field at fault, in OpenAI's spelling (`messages[2].content`), else null. */
    param: string | null;
    code: string | null;
  };
}

/** Troupe codes that OpenAI's clients know by another name. */
const OPENAI_CODES: Readonly<Record<string, string>> = {
  APP_NOT_FOUND: 'model_not_found',
  UNAUTHORIZED: 'invalid_api_key',
};

/** The OpenAI error body of a status, Troupe code, message and field. */
export function openAiErrorBody(
  status: number,
  code: string,
  message: string,
  field: string | undefined,
): OpenAiErrorBody {
  return {
    error: {
      message,
      type: status >= 500 ? 'server_error' : 'invalid_request_error',
      param: field === undefined ? null : openAiParam(field),
      code: OPENAI_CODES[code] ?? code.toLowerCase(),
    },
  };
}

/**
 * A field path as OpenAI names parameters: `messages.2.content` → `messages[2].content`. The
 * body checks shared with the other routes (JSON limits, reserved keys) name paths the dotted way.
 */
export function openAiParam(field: string): string {
  return field.replace(/\.(\d+)(?=\.|$)/g, '[$1]');
}

/**
 * The `onError` of the OpenAI routes: anything thrown while handling one of their requests as
 * OpenAI's error shape, with the status the rest of the server would give it, and the report to
 * createApp's `onError` the other routes make (every 5xx, with what caused it).
 */
export function openAiErrorResponse(
  error: unknown,
  c: Context<ServerEnv>,
  onError: ErrorListener | undefined,
): Response {
  const http = toHttpError(error);
  const headers = reportErrorAndHeaders(http, c, onError);
  const message = http.status >= 500 ? `${http.clientMessage} Request id: ${c.get('requestId')}.` : http.clientMessage;
  return c.json(openAiErrorBody(http.status, http.code, message, http.field), http.status, headers);
}
