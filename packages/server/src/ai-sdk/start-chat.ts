import { randomUUID } from 'node:crypto';
import type { RunConfig, Runner, Session } from '@troupe/core';
import type { ClientGone } from '../client-gone.js';
import { toHttpError } from '../http-error.js';
import type { RunEvents } from '../run-stream.js';
import { sessionKey, type TrackedRun } from '../run-tracker.js';
import type { ServerContext } from '../server-context.js';
import type { ChatBody } from './chat-body.js';
import { planChatTurn } from './chat-turn.js';
import { ChunkTranslator } from './chunk-translator.js';

/** A chat request's run, which holds its session and has not sent anything yet. */
export interface StartedChat {
  tracked: TrackedRun;
  events: RunEvents;
  translator: ChunkTranslator;
}

// The model's text is streamed: useChat shows it as it comes.
const RUN_CONFIG: RunConfig = { streaming: 'sse' };

/**
 * Starts what a `useChat` request asks of the session (see {@link planChatTurn}): a new turn, whose
 * invocation id is also the id of the assistant message it writes; the same user message answered
 * again (regenerate) after its answer is rewound; or the resume of the paused invocation, whose
 * stream goes on filling the assistant message that asked. Everything that can be refused is
 * refused here, before a byte is sent: the plan, and the runner's own checks (a busy session, open
 * interrupts before a new turn, answers that do not fit).
 */
export async function startChat(
  ctx: ServerContext,
  runner: Runner,
  session: Session,
  body: ChatBody,
  clientGone: ClientGone,
): Promise<StartedChat> {
  const { appName, userId, id: sessionId } = session;
  const plan = planChatTurn(body, session);
  const tracked = ctx.runs.begin(sessionKey(appName, userId, sessionId), clientGone);
  let events: RunEvents | undefined;
  try {
    if (plan.kind === 'resume') {
      events = await runner.startResume({
        userId,
        sessionId,
        responses: plan.responses,
        runConfig: RUN_CONFIG,
        abortSignal: tracked.signal,
      });
      const translator = new ChunkTranslator({ messageId: plan.messageId, deniedToolCallIds: plan.deniedToolCallIds });
      return { tracked, events, translator };
    }
    if (plan.kind === 'regenerate') await runner.rewind({ userId, sessionId, beforeInvocationId: plan.rewindBefore });
    const invocationId = `chat-${randomUUID()}`;
    events = await runner.start({
      userId,
      sessionId,
      newMessage: plan.newMessage,
      invocationId,
      runConfig: RUN_CONFIG,
      abortSignal: tracked.signal,
    });
    return { tracked, events, translator: new ChunkTranslator({ messageId: invocationId }) };
  } catch (error) {
    // Returning a run that has not started gives its session back.
    await events?.return(undefined as never).catch(() => undefined);
    tracked.end();
    throw toHttpError(error);
  }
}
