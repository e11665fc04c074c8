import {
  InterruptAnsweredError,
  InterruptResponseError,
  PendingInterruptError,
  SessionBusyError,
  type TroupeError,
} from '@troupe/core';
import { RESUME_TOOL } from './resume-tool.js';

/**
 * Core's errors name their fix as code calling the library applies it (`runner.resume(...)`); an
 * MCP client has tools instead. The message with the fix an MCP client applies, for the errors a
 * call can meet; the others keep their problem alone when core's fix is an in-process call.
 */
export function mcpMessage(error: TroupeError): string {
  const remedy = mcpRemedy(error);
  if (remedy !== undefined) return `${error.problem} ${remedy}`;
  return error.remedy === undefined ? error.message : error.problem;
}

function mcpRemedy(error: TroupeError): string | undefined {
  if (error instanceof PendingInterruptError)
    return `The session waits for a person's answer: answer it with the '${RESUME_TOOL}' tool ({ sessionId, interruptId, answer }), or leave sessionId out to start a new session.`;
  if (error instanceof SessionBusyError)
    return error.retryAfterMs === undefined
      ? 'Another call is running in this session: wait for it to end (or cancel it), or leave sessionId out to start a new session.'
      : `Retry in ${Math.ceil(error.retryAfterMs / 1000)} s, or leave sessionId out to start a new session.`;
  if (error instanceof InterruptResponseError)
    return `The run still waits: call '${RESUME_TOOL}' again with an answer of the shape asked for.`;
  if (error instanceof InterruptAnsweredError)
    return 'That answer was given already; the session has moved on. Continue it with a new message.';
  return undefined;
}
