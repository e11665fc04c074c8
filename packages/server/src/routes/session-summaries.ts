import { Hono } from 'hono';
import type { Event } from '@troupe/core';
import { assertMayAccess } from '../auth.js';
import type { SessionSummary } from '../dev-ui-wire.js';
import type { ServerContext, ServerEnv } from '../server-context.js';
import { msToSeconds } from '../wire.js';

/** Longest title kept, in characters (an ellipsis marks a cut). */
const TITLE_LENGTH = 60;
/** Most sessions summarised in one answer, most recently updated first. */
const MOST_SESSIONS = 200;

/**
 * `GET /apps/{app}/users/{user}/session_summaries`: the user's sessions, most recently updated
 * first, each named after its first message, for the dev UI's session list (ADK's list of sessions
 * carries no events to name them by).
 */
export function sessionSummaryRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();
  routes.get('/apps/:app/users/:user/session_summaries', async (c) => {
    const { app: appName, user: userId } = c.req.param();
    assertMayAccess(c.get('principal'), userId);
    await ctx.registry.runner(appName); // 404 for an unknown app.
    const { sessions } = await ctx.sessionService.listSessions({ appName, userId });
    // Newest update first; sessions updated in the same millisecond keep the reverse of the store's
    // order (the stores list oldest first), so the one made last comes first (the sort is stable).
    const recent = [...sessions]
      .reverse()
      .sort((a, b) => b.lastUpdateTime - a.lastUpdateTime)
      .slice(0, MOST_SESSIONS);
    const summaries = await Promise.all(
      recent.map(async (listed): Promise<SessionSummary | undefined> => {
        const session = await ctx.sessionService.getSession({ appName, userId, sessionId: listed.id });
        if (!session) return undefined; // deleted meanwhile
        const first = session.events[0];
        return {
          id: session.id,
          title: titleOf(session.events),
          ...(first ? { startTime: msToSeconds(first.timestamp) } : {}),
          lastUpdateTime: msToSeconds(session.lastUpdateTime),
          eventCount: session.events.length,
        };
      }),
    );
    return c.json(summaries.filter((summary) => summary !== undefined));
  });
  return routes;
}

/** The text of the first user message (or its structured input, as JSON), on one line. */
function titleOf(events: readonly Event[]): string {
  for (const event of events) {
    if (event.author !== 'user') continue;
    const text = (event.content?.parts ?? [])
      .map((part) => ('text' in part ? part.text : ''))
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim();
    const input = (event.actions.agentState as { input?: unknown } | undefined)?.input;
    const title = text !== '' ? text : input !== undefined ? JSON.stringify(input) : '';
    if (title === '') continue;
    return title.length > TITLE_LENGTH ? `${title.slice(0, TITLE_LENGTH - 1).trimEnd()}…` : title;
  }
  return '';
}
