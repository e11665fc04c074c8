import type { InterruptInfo, Runner } from '@troupe/core';
import { MAX_ID_LENGTH, openInterrupts } from '@troupe/core/hosting';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AppSource } from './app-source.js';
import { describeValue, sessionIdOf } from './app-tool.js';
import { CallRefused } from './call-refused.js';
import { isRecord } from './schemas.js';

/** The name of the server-wide tool that answers a paused run. */
export const RESUME_TOOL = 'resume';

/** The `resume` tool: answers one pending interrupt of a session, and runs on to the next answer or pause. */
export const resumeTool: Tool = {
  name: RESUME_TOOL,
  description:
    "Answers a question a paused run asked (a tool call waiting for approval, or a request for input), given in an earlier result's structuredContent.interrupt, and continues that run: the result is its answer, or its next question.",
  inputSchema: {
    type: 'object',
    properties: {
      sessionId: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_ID_LENGTH,
        description: "The paused session: the earlier result's _meta.sessionId.",
      },
      interruptId: {
        type: 'string',
        minLength: 1,
        description: 'The question answered: structuredContent.interrupt.interruptId of the earlier result.',
      },
      answer: {
        description:
          'For an approval (kind "confirmation"): true to approve, false to reject. For a request for input (kind "input"): the value asked for, matching its responseSchema when it has one.',
      },
    },
    required: ['sessionId', 'interruptId', 'answer'],
  },
};

/** What a `resume` call answers: which app's session, and the answer by interrupt id. */
export interface ResumeCall {
  appName: string;
  runner: Runner;
  sessionId: string;
  interrupt: InterruptInfo;
  answer: unknown;
}

/**
 * The `resume` call's arguments, checked, and the app whose session of this user waits for that
 * interrupt (sessions are found in each app: the tool is the server's, not an app's). A
 * {@link CallRefused} names what is wrong and the fix.
 */
export async function resumeCallOf(
  apps: AppSource,
  userId: string,
  args: Record<string, unknown> | undefined,
): Promise<ResumeCall> {
  const given = args ?? {};
  const unknown = Object.keys(given).filter((key) => !['sessionId', 'interruptId', 'answer'].includes(key));
  if (unknown.length > 0)
    throw new CallRefused(
      `Tool '${RESUME_TOOL}' takes sessionId, interruptId and answer; it got ${unknown.map((k) => `'${k}'`).join(', ')} too. Send { "sessionId": "...", "interruptId": "...", "answer": true }.`,
    );
  const sessionId = sessionIdOf(given.sessionId, RESUME_TOOL);
  if (sessionId === undefined)
    throw new CallRefused(
      `Tool '${RESUME_TOOL}' needs sessionId, the paused session (the earlier result's _meta.sessionId).`,
    );
  const interruptId = given.interruptId;
  if (typeof interruptId !== 'string' || interruptId.length === 0 || interruptId.length > MAX_ID_LENGTH)
    throw new CallRefused(
      `Tool '${RESUME_TOOL}' needs interruptId, the id of the question answered (structuredContent.interrupt.interruptId of the earlier result); got ${given.interruptId === undefined ? 'none' : describeValue(given.interruptId)}.`,
    );
  if (!('answer' in given))
    throw new CallRefused(
      `Tool '${RESUME_TOOL}' needs answer: true or false for an approval, the value asked for for a request for input.`,
    );
  const found = await pausedSession(apps, userId, sessionId, interruptId);
  return { ...found, sessionId, answer: answerOf(found.interrupt, given.answer) };
}

async function pausedSession(
  apps: AppSource,
  userId: string,
  sessionId: string,
  interruptId: string,
): Promise<{ appName: string; runner: Runner; interrupt: InterruptInfo }> {
  const pending: string[] = [];
  let found = false;
  for (const appName of await apps.names()) {
    let runner: Runner;
    try {
      runner = await apps.runner(appName);
    } catch {
      // An app that cannot load has no session this call can resume; its own tool says why.
      continue;
    }
    const session = await runner.sessionService.getSession({ appName, userId, sessionId });
    if (!session) continue;
    found = true;
    const open = openInterrupts(session.events);
    const interrupt = open.find((i) => i.id === interruptId);
    if (interrupt) return { appName, runner, interrupt };
    pending.push(...open.map((i) => `'${i.id}'`));
  }
  if (!found)
    throw new CallRefused(
      `There is no session '${sessionId}' of this user: sessions belong to the user who started them. Pass the _meta.sessionId of the result that asked the question.`,
    );
  throw new CallRefused(
    `Interrupt '${interruptId}' is not pending in session '${sessionId}'${pending.length > 0 ? `; the pending ones are ${pending.join(', ')}` : ': the session waits for no answer (it was given already, or the run moved on)'}. Pass an interruptId from the latest result's structuredContent.interrupt.`,
  );
}

/** An approval takes `{ approve }` too, as its elicitation form gives it. */
function answerOf(interrupt: InterruptInfo, answer: unknown): unknown {
  if (interrupt.kind === 'confirmation' && isRecord(answer) && typeof answer.approve === 'boolean')
    return answer.approve;
  return answer;
}
