import type { Session } from '@troupe/core';
import type { ClientGone } from './client-gone.js';
import { toHttpError } from './http-error.js';
import type { RunEvents } from './run-stream.js';
import { sessionKey, type TrackedRun } from './run-tracker.js';
import type { ServerContext } from './server-context.js';

/** A run that holds its session and has not sent anything yet, with what translates its events. */
export interface StartedTrackedRun<Translator> {
  tracked: TrackedRun;
  events: RunEvents;
  translator: Translator;
}

/**
 * Tracks a run of `session` (cancelled when the client goes away or the server closes), starts it
 * with `start` and makes its translator with `translatorFor`. What either refuses is thrown as an
 * HTTP error, before a byte is sent, after a run already started has given its session back and
 * the tracking has ended.
 */
export async function startTrackedRun<Translator>(
  ctx: ServerContext,
  session: Session,
  clientGone: ClientGone,
  start: (signal: AbortSignal) => Promise<RunEvents>,
  translatorFor: () => Translator | Promise<Translator>,
): Promise<StartedTrackedRun<Translator>> {
  const tracked = ctx.runs.begin(sessionKey(session.appName, session.userId, session.id), clientGone);
  let events: RunEvents | undefined;
  try {
    events = await start(tracked.signal);
    return { tracked, events, translator: await translatorFor() };
  } catch (error) {
    // Returning a run that has not started gives its session back.
    await events?.return(undefined as never).catch(() => undefined);
    tracked.end();
    throw toHttpError(error);
  }
}
