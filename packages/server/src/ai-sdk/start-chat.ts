import { randomUUID } from 'node:crypto';
import type { RunConfig, Runner, Session } from '@troupe/core';
import type { ClientGone } from '../client-gone.js';
import type { ServerContext } from '../server-context.js';
import { startTrackedRun, type StartedTrackedRun } from '../start-tracked-run.js';
import type { ChatBody } from './chat-body.js';
import { planChatTurn } from './chat-turn.js';
import { ChunkTranslator } from './chunk-translator.js';

/** A chat request's run, which holds its session and has not sent anything yet. */
export type StartedChat = StartedTrackedRun<ChunkTranslator>;

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
  const { userId, id: sessionId } = session;
  const plan = planChatTurn(body, session);
  const invocationId = `chat-${randomUUID()}`;
  return startTrackedRun(
    ctx,
    session,
    clientGone,
    async (abortSignal) => {
      if (plan.kind === 'resume')
        return runner.startResume({ userId, sessionId, responses: plan.responses, runConfig: RUN_CONFIG, abortSignal });
      if (plan.kind === 'regenerate') await runner.rewind({ userId, sessionId, beforeInvocationId: plan.rewindBefore });
      return runner.start({
        userId,
        sessionId,
        newMessage: plan.newMessage,
        invocationId,
        runConfig: RUN_CONFIG,
        abortSignal,
      });
    },
    () =>
      plan.kind === 'resume'
        ? new ChunkTranslator({ messageId: plan.messageId, deniedToolCallIds: plan.deniedToolCallIds })
        : new ChunkTranslator({ messageId: invocationId }),
  );
}
