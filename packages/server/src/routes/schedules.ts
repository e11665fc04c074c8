import { type Context, Hono } from 'hono';
import { ADMIN, assertMayAccess } from '../auth.js';
import type { BackgroundRuns, BackgroundScheduleInfo } from '../background-runs.js';
import { HttpError } from '../http-error.js';
import { readBody, scheduleBody } from '../request-body.js';
import type { ServerContext, ServerEnv } from '../server-context.js';

/**
 * Runs on a timer, executed by the workers (createApp's `queue`): `POST /apps/{app}/schedules`
 * (create, or replace one's own by id), `GET /apps/{app}/schedules[/{id}]`, `DELETE /apps/{app}/schedules/{id}`.
 * A schedule belongs to its `userId`: only that user's token or an admin's sees or changes it; any
 * other user is answered as if it did not exist.
 */
export function scheduleRoutes(ctx: ServerContext, queue: BackgroundRuns): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();

  async function appOfPath(c: Context<ServerEnv>): Promise<string> {
    const appName = c.req.param('app')!;
    await ctx.registry.runner(appName);
    return appName;
  }

  /** The schedule of the path, when it is of this app and the principal may see it. */
  async function ownSchedule(c: Context<ServerEnv>): Promise<BackgroundScheduleInfo> {
    const appName = await appOfPath(c);
    const id = c.req.param('id')!;
    const schedule = await queue.getSchedule(id);
    if (!schedule || !visible(schedule, appName, c.get('principal'))) {
      throw new HttpError(
        404,
        'SCHEDULE_NOT_FOUND',
        `There is no schedule '${id}' of app '${appName}' for this user. GET /apps/${appName}/schedules lists them.`,
      );
    }
    return schedule;
  }

  routes.post('/apps/:app/schedules', async (c) => {
    const appName = await appOfPath(c);
    const body = await readBody(c, scheduleBody);
    const principal = c.get('principal');
    assertMayAccess(principal, body.userId);
    if (body.id) {
      const existing = await queue.getSchedule(body.id);
      // Replacing by id is for the schedule's own user: someone else's id is taken, whoever holds it.
      if (existing && (existing.appName !== appName || existing.userId !== body.userId)) {
        throw new HttpError(
          409,
          'SCHEDULE_EXISTS',
          `The schedule id '${body.id}' is taken. Pick another id, or omit it to get a new one.`,
          'id',
        );
      }
    }
    if (
      body.sessionId &&
      !(await ctx.sessionService.getSession({
        appName,
        userId: body.userId,
        sessionId: body.sessionId,
        numRecentEvents: 0,
      }))
    ) {
      throw new HttpError(
        404,
        'SESSION_NOT_FOUND',
        `Session '${body.sessionId}' not found for app '${appName}' and user '${body.userId}'. Create it first, or omit sessionId to run each tick in a new session.`,
      );
    }
    const schedule = await queue.schedule({
      appName,
      userId: body.userId,
      ...(body.id ? { id: body.id } : {}),
      ...(body.sessionId ? { sessionId: body.sessionId } : {}),
      ...(body.newMessage ? { newMessage: body.newMessage } : {}),
      ...(body.input ? { input: body.input } : {}),
      ...(body.pattern ? { pattern: body.pattern } : {}),
      ...(body.tz ? { tz: body.tz } : {}),
      ...(body.everyMs ? { everyMs: body.everyMs } : {}),
      ...(body.multitaskStrategy ? { multitaskStrategy: body.multitaskStrategy } : {}),
    });
    return c.json(schedule, 201);
  });

  routes.get('/apps/:app/schedules', async (c) => {
    const appName = await appOfPath(c);
    const principal = c.get('principal');
    return c.json((await queue.listSchedules(appName)).filter((schedule) => visible(schedule, appName, principal)));
  });

  routes.get('/apps/:app/schedules/:id', async (c) => c.json(await ownSchedule(c)));

  routes.delete('/apps/:app/schedules/:id', async (c) => {
    const schedule = await ownSchedule(c);
    await queue.removeSchedule(schedule.id);
    return c.body(null, 204);
  });

  return routes;
}

function visible(schedule: BackgroundScheduleInfo, appName: string, principal: string): boolean {
  return schedule.appName === appName && (principal === ADMIN || schedule.userId === principal);
}
