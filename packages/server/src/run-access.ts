import type { Context } from 'hono';
import { assertMayAccess } from './auth.js';
import type { BackgroundRunInfo, BackgroundRuns } from './background-runs.js';
import { HttpError } from './http-error.js';
import type { ServerContext, ServerEnv } from './server-context.js';

/** The session a background-run route names in its path. */
export interface SessionPath {
  appName: string;
  userId: string;
  sessionId: string;
}

/** The session of the path (`/apps/{app}/users/{user}/sessions/{session}`), once the principal may touch it and the app exists. */
export async function sessionOfPath(ctx: ServerContext, c: Context<ServerEnv>): Promise<SessionPath> {
  const {
    app: appName,
    user: userId,
    session: sessionId,
  } = c.req.param() as { app: string; user: string; session: string };
  assertMayAccess(c.get('principal'), userId);
  await ctx.registry.runner(appName);
  return { appName, userId, sessionId };
}

/**
 * A background run of the session of the path. The queue looks it up in that session (a run id its
 * caller chose is that session's), and a run of another session, user or app is answered exactly as
 * one that does not exist (404 `RUN_NOT_FOUND`), so run ids tell nothing about other users.
 */
export async function runOfSession(
  queue: BackgroundRuns,
  runId: string,
  session: SessionPath,
): Promise<BackgroundRunInfo> {
  let info: BackgroundRunInfo;
  try {
    info = await queue.status(runId, session);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'RUN_NOT_FOUND') throw runNotFound(runId, session);
    throw error;
  }
  if (info.appName !== session.appName || info.userId !== session.userId || info.sessionId !== session.sessionId)
    throw runNotFound(runId, session);
  return info;
}

function runNotFound(runId: string, session: SessionPath): HttpError {
  const { appName, userId, sessionId } = session;
  return new HttpError(
    404,
    'RUN_NOT_FOUND',
    `There is no run '${runId}' in session '${sessionId}' (app '${appName}', user '${userId}'). GET /apps/${appName}/users/${userId}/sessions/${sessionId}/runs lists its runs.`,
  );
}
