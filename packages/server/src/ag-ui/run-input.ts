import { contentToText, type RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { INVOCATION_ID_PATTERN, MAX_ID_LENGTH } from '@troupe/core/hosting';
import type { Context } from 'hono';
import { HttpError } from '../http-error.js';
import { checkEmbeddedJson } from '../json-limits.js';
import { jsonLimitsOf, readBody } from '../request-body.js';
import type { ServerEnv } from '../server-context.js';

/**
 * Reads the body of `POST /ag-ui/{app}`: an AG-UI `RunAgentInput`, checked like every other body
 * (size, JSON limits, reserved keys) and against AG-UI's own schema, plus what Troupe needs of it:
 * the thread id is a session id, the run id an invocation id, the state an object, and the JSON a
 * tool message carries (the result of a client tool, parsed from it) is within the JSON limits. A
 * bad input is a 400 naming the field before any stream starts, as AG-UI asks of malformed input.
 */
export async function readRunInput(c: Context<ServerEnv>): Promise<RunAgentInput> {
  const input = (await readBody(c, RunAgentInputSchema)) as RunAgentInput;
  if (input.threadId.length === 0 || input.threadId.length > MAX_ID_LENGTH) {
    throw invalid(
      'threadId',
      `expected 1 to ${MAX_ID_LENGTH} characters (the thread is a Troupe session); got ${input.threadId.length}`,
    );
  }
  if (!INVOCATION_ID_PATTERN.test(input.runId)) {
    throw invalid(
      'runId',
      'expected 1 to 128 characters of letters, digits, ".", "_", ":" or "-" (the run id becomes the invocation id), such as a UUID',
    );
  }
  const state: unknown = input.state;
  if (state !== undefined && state !== null && (typeof state !== 'object' || Array.isArray(state))) {
    throw invalid(
      'state',
      `expected an object (Troupe state maps keys to values); got ${Array.isArray(state) ? 'an array' : typeof state}`,
    );
  }
  const limits = jsonLimitsOf(c);
  for (const [i, message] of input.messages.entries())
    if (message.role === 'tool') checkEmbeddedJson(contentToText(message.content), limits, `messages.${i}.content`);
  return input;
}

function invalid(field: string, why: string): HttpError {
  return new HttpError(400, 'INVALID_REQUEST', `Invalid request body: field '${field}': ${why}.`, field);
}
