import type { RunRecordStatus } from '@troupe/core/stores';
import { type Event, isErrorCode, type Runner, type Session, type SessionKey, TroupeError } from '@troupe/core';
import type { BackgroundRuns, BackgroundStreamEntry } from '../background-runs.js';
import type { ClientGone } from '../client-gone.js';
import { type HttpError, isRefusalCode, toHttpError } from '../http-error.js';
import { unreportedEnd } from '../queued-run-end.js';
import { afterResume } from '../resumed-run-entries.js';
import { runOfSession } from '../run-access.js';
import { storeFailureAnswer } from '../run-outcome.js';
import { failureEvent, type RunEvents, type RunFailureListener } from '../run-stream.js';
import { sessionKey, type TrackedRun } from '../run-tracker.js';
import type { ServerContext } from '../server-context.js';
import type { ChatTurn } from './chat-turn.js';

/** A chat turn that has started: its handle on the server, and its events. */
export interface StartedChatTurn {
  tracked: TrackedRun;
  /**
   * The turn's events as they happen (partial ones when streaming), ending with its terminal error
   * event when it failed: a failure after the start is an event. The one throw is a queued run the
   * worker refused before storing anything (an HTTP 4xx, before any event). Ending the iteration
   * early gives the session back (a run in this process is cancelled first by the client going
   * away, see `clientGoneOf`).
   */
  events: AsyncGenerator<Event, void, undefined>;
}

/** What starting a chat turn needs. */
export interface ChatTurnParams {
  runner: Runner;
  session: Session;
  turn: ChatTurn;
  streaming: boolean;
  clientGone: ClientGone;
  onFailure: RunFailureListener;
}

/**
 * Starts the turn in this process (`runner.start`, or `runner.startResume` with the answer) or,
 * with createApp's `queue`, on a worker (the run enqueued, or the paused one put back with the
 * answer) and follows it. What the runner or the queue refuses before anything is stored (a busy
 * session, a bad answer, the server shutting down) is thrown as an HTTP error.
 */
export async function startChatTurn(ctx: ServerContext, params: ChatTurnParams): Promise<StartedChatTurn> {
  const { session } = params;
  const key = { appName: session.appName, userId: session.userId, sessionId: session.id };
  const tracked = ctx.runs.begin(sessionKey(key.appName, key.userId, key.sessionId), params.clientGone);
  try {
    const events = ctx.queue
      ? await queuedTurn(ctx.queue, key, params, tracked)
      : inProcessEvents(await inProcessTurn(params, tracked), tracked, key, params.onFailure);
    return { tracked, events };
  } catch (error) {
    tracked.end();
    throw toHttpError(error);
  }
}

function inProcessTurn(params: ChatTurnParams, tracked: TrackedRun): Promise<RunEvents> {
  const { runner, session, turn } = params;
  const common = {
    userId: session.userId,
    sessionId: session.id,
    runConfig: { streaming: params.streaming ? 'sse' : 'none' } as const,
    abortSignal: tracked.signal,
  };
  // A workflow's request for input takes the message itself: the runner stores it with the answer.
  if (turn.kind === 'run' || turn.message) return runner.start({ ...common, newMessage: turn.message! });
  return runner.startResume({ ...common, invocationId: turn.invocationId, responses: turn.responses });
}

async function* inProcessEvents(
  run: RunEvents,
  tracked: TrackedRun,
  key: SessionKey,
  onFailure: RunFailureListener,
): AsyncGenerator<Event, void, undefined> {
  let last: Event | undefined;
  try {
    for (;;) {
      const step = await run.next();
      if (step.done) break;
      if (!step.value.partial) last = step.value;
      yield step.value;
    }
  } catch (error) {
    // The runner yields its failures as events before throwing; anything else becomes one here.
    if (last?.errorCode === undefined) {
      onFailure(error);
      const answer = storeFailureAnswer(error, key);
      // The run's end is stored; what failed after it (adding the session to memory) is the server's to log.
      if (answer?.answer !== 'events') yield failureEvent(answer?.error ?? error, last);
    }
  } finally {
    await run.return(undefined as never).catch(() => undefined);
    tracked.end(last);
  }
}

async function queuedTurn(
  queue: BackgroundRuns,
  key: SessionKey,
  params: ChatTurnParams,
  tracked: TrackedRun,
): Promise<AsyncGenerator<Event, void, undefined>> {
  const { turn, streaming } = params;
  if (turn.kind === 'run') {
    const { runId } = await queue.enqueue({
      ...key,
      newMessage: turn.message,
      ...(streaming ? { streaming: true } : {}),
      // As in process: a second turn on a busy session is refused (409), not queued behind it.
      multitaskStrategy: 'reject',
    });
    return queuedEvents(queue, runId, key, tracked, params.onFailure, (entries) => entries);
  }
  const { runId } = await runOfSession(queue, turn.invocationId, key);
  // What the run streamed before it paused: the client has it already.
  const before = params.session.events.filter((event) => event.invocationId === runId);
  await queue.resume({ runId, session: key, responses: turn.responses, ...(streaming ? { streaming: true } : {}) });
  return queuedEvents(queue, runId, key, tracked, params.onFailure, (entries) => afterResume(entries, before));
}

async function* queuedEvents(
  queue: BackgroundRuns,
  runId: string,
  key: SessionKey,
  tracked: TrackedRun,
  onFailure: RunFailureListener,
  select: (entries: AsyncIterable<BackgroundStreamEntry>) => AsyncIterable<BackgroundStreamEntry>,
): AsyncGenerator<Event, void, undefined> {
  let last: Event | undefined;
  let followed = false;
  let refusal: HttpError | undefined;
  let endedAs: RunRecordStatus | undefined;
  const onEnd = (status: RunRecordStatus) => (endedAs = status);
  try {
    for await (const { event } of select(queue.join(runId, { signal: tracked.signal, session: key, onEnd }))) {
      followed = true;
      if (!event.partial) last = event;
      yield event;
    }
    // Stopped following (the client left): the run goes on without us.
    if (tracked.signal.aborted) return;
    // A run that failed without streaming its error event (a worker that died, a refusal) still tells it.
    const end = await unreportedEnd(queue, runId, key, last, endedAs);
    const code = end?.errorCode;
    // Refused by the worker's runner before it stored anything (an answer that does not fit): the
    // 4xx it would have been in this process, thrown before the first event.
    if (!followed && code !== undefined && isRefusalCode(code))
      refusal = toHttpError(new TroupeError(isErrorCode(code) ? code : 'ERROR', end!.errorMessage ?? code));
    else if (end) yield end;
  } catch (error) {
    if (!tracked.signal.aborted) {
      onFailure(error);
      yield failureEvent(error, last);
    }
  } finally {
    tracked.end(last);
  }
  if (refusal) throw refusal;
}
