import type { RunAgentInput } from '@ag-ui/core';
import { type RunConfig, type Runner, type Session } from '@troupe/core';
import { openInterrupts } from '@troupe/core/hosting';
import type { ClientGone } from '../client-gone.js';
import type { ServerContext } from '../server-context.js';
import { startTrackedRun, type StartedTrackedRun } from '../start-tracked-run.js';
import { checkStateWrite } from '../state-policy.js';
import { clientToolDeclarations } from './client-tools.js';
import { EventTranslator } from './event-translator.js';
import { stateDeltaOf, visibleState } from './state-input.js';
import { planTurn } from './turn-plan.js';

/** A run that holds its thread and has not sent anything yet. */
export type StartedRun = StartedTrackedRun<EventTranslator>;

/**
 * Starts what the input asks of the thread (see {@link planTurn}): a new turn with the user's
 * message and the state the client changed, or the resume of the paused invocation, with the
 * input's frontend tools as client tools and the model's text streamed. Everything that can be
 * refused is refused here, before a byte is sent: the plan, the state policy, and the runner's
 * own checks (a busy session, a run id the thread holds, answers that do not fit).
 */
export async function startRun(
  ctx: ServerContext,
  runner: Runner,
  session: Session,
  input: RunAgentInput,
  principal: string,
  clientGone: ClientGone,
): Promise<StartedRun> {
  const { appName, userId, id: sessionId } = session;
  const plan = planTurn(input, session);
  const stateDelta = plan.kind === 'run' ? stateDeltaOf(input.state, session.state) : undefined;
  if (stateDelta) checkStateWrite('state', stateDelta, principal, ctx.stateLimits);
  const runConfig: RunConfig = {
    streaming: 'sse',
    clientTools: clientToolDeclarations(input.tools, openInterrupts(session.events)),
    ...(plan.kind === 'run' && plan.abandonInterrupts ? { abandonInterrupts: true } : {}),
  };
  return startTrackedRun(
    ctx,
    session,
    clientGone,
    (abortSignal) =>
      plan.kind === 'run'
        ? runner.start({
            userId,
            sessionId,
            newMessage: plan.newMessage,
            invocationId: input.runId,
            runConfig,
            abortSignal,
            ...(stateDelta ? { stateDelta } : {}),
          })
        : runner.startResume({
            userId,
            sessionId,
            invocationId: plan.invocationId,
            responses: plan.responses,
            runConfig,
            abortSignal,
          }),
    async () => {
      // Read once the run holds the session: the state it starts from, which nothing else changes now.
      const claimed = await ctx.sessionService.getSession({ appName, userId, sessionId, numRecentEvents: 0 });
      return new EventTranslator({
        threadId: sessionId,
        runId: input.runId,
        invocationId: plan.kind === 'run' ? input.runId : plan.invocationId,
        userId,
        state: visibleState({ ...claimed?.state, ...stateDelta }),
        clientCalls: plan.kind === 'resume' ? plan.clientCalls : new Set(),
        earlierEvents: session.events,
      });
    },
  );
}
