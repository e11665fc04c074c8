import { expect, it } from 'vitest';
import { describeRedis, useRedis } from '../../../queue/test/redis-server.js';
import type { BackgroundScheduleInfo } from '../../src/index.js';
import { call, createSession, expectError, message } from '../helpers.js';
import { queuedApp, scriptedAgent } from './queued-app.js';

const tokens = { 'alice-token': 'alice', 'bob-token': 'bob', 'admin-token': '*' };
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

describeRedis('schedules over HTTP', () => {
  const redis = useRedis();

  it('creates, lists, reads, replaces and deletes a schedule; only its user and admins see it', async () => {
    // No worker: the routes only keep schedules; the queue's own tests cover the ticks.
    const api = await queuedApp(redis().url, { chat: scriptedAgent([]) }, { auth: { tokens }, worker: false });
    try {
      const s = await createSession(api.app, 'chat', 'alice', undefined, as('alice-token'));
      const body = {
        id: 'daily-digest',
        userId: 'alice',
        sessionId: s.id,
        newMessage: message('digest'),
        pattern: '0 9 * * 1-5',
        tz: 'Europe/Paris',
      };
      const created = await call(api.app, 'POST', '/apps/chat/schedules', body, as('alice-token'));
      expect(created.status).toBe(201);
      expect(await created.json()).toMatchObject({
        id: 'daily-digest',
        appName: 'chat',
        userId: 'alice',
        sessionId: s.id,
        pattern: '0 9 * * 1-5',
        tz: 'Europe/Paris',
        multitaskStrategy: 'enqueue',
      });
      const hourly = await call(
        api.app,
        'POST',
        '/apps/chat/schedules',
        { userId: 'bob', input: { report: true }, everyMs: 3_600_000 },
        as('bob-token'),
      );
      expect(hourly.status).toBe(201);
      const bobs = (await hourly.json()) as BackgroundScheduleInfo;
      expect(bobs).toMatchObject({ userId: 'bob', everyMs: 3_600_000 });
      expect(bobs.sessionId).toBeUndefined();

      const ids = async (token: string) =>
        (
          (await (
            await call(api.app, 'GET', '/apps/chat/schedules', undefined, as(token))
          ).json()) as BackgroundScheduleInfo[]
        )
          .map((x) => x.id)
          .sort();
      expect(await ids('alice-token')).toEqual(['daily-digest']);
      expect(await ids('bob-token')).toEqual([bobs.id]);
      expect(await ids('admin-token')).toEqual([bobs.id, 'daily-digest'].sort());
      expect(
        await (await call(api.app, 'GET', '/apps/chat/schedules/daily-digest', undefined, as('alice-token'))).json(),
      ).toMatchObject({ id: 'daily-digest' });
      await expectError(
        await call(api.app, 'GET', '/apps/chat/schedules/daily-digest', undefined, as('bob-token')),
        404,
        'SCHEDULE_NOT_FOUND',
      );
      await expectError(
        await call(api.app, 'DELETE', '/apps/chat/schedules/daily-digest', undefined, as('bob-token')),
        404,
        'SCHEDULE_NOT_FOUND',
      );

      // Bob can neither schedule for Alice nor take her schedule's id; Alice replaces her own by id.
      await expectError(
        await call(api.app, 'POST', '/apps/chat/schedules', { ...body, sessionId: undefined }, as('bob-token')),
        403,
        'FORBIDDEN',
      );
      await expectError(
        await call(
          api.app,
          'POST',
          '/apps/chat/schedules',
          { ...body, userId: 'bob', sessionId: undefined },
          as('bob-token'),
        ),
        409,
        'SCHEDULE_EXISTS',
      );
      const replaced = await call(
        api.app,
        'POST',
        '/apps/chat/schedules',
        { ...body, pattern: undefined, tz: undefined, everyMs: 60_000 },
        as('alice-token'),
      );
      expect(await replaced.json()).toMatchObject({ id: 'daily-digest', everyMs: 60_000 });
      expect(await ids('alice-token')).toEqual(['daily-digest']);

      expect(
        (await call(api.app, 'DELETE', '/apps/chat/schedules/daily-digest', undefined, as('alice-token'))).status,
      ).toBe(204);
      await expectError(
        await call(api.app, 'GET', '/apps/chat/schedules/daily-digest', undefined, as('alice-token')),
        404,
        'SCHEDULE_NOT_FOUND',
      );
      expect(await ids('admin-token')).toEqual([bobs.id]);
    } finally {
      await api.close();
    }
  });

  it('a bad schedule is a 400 naming the field; an unknown session or app a 404', async () => {
    const api = await queuedApp(redis().url, { chat: scriptedAgent([]) }, { worker: false });
    try {
      const field = async (body: unknown) => {
        const res = await call(api.app, 'POST', '/apps/chat/schedules', body);
        expect(res.status).toBe(400);
        return ((await res.json()) as { error: { field?: string } }).error.field;
      };
      const base = { userId: 'alice', newMessage: message('x') };
      expect(await field(base)).toBe('pattern');
      expect(await field({ ...base, pattern: '* * * * *', everyMs: 5_000 })).toBe('everyMs');
      expect(await field({ ...base, everyMs: 10 })).toBe('everyMs');
      expect(await field({ userId: 'alice', everyMs: 5_000 })).toBe('newMessage');
      expect(await field({ ...base, everyMs: 5_000, id: 'no spaces' })).toBe('id');
      await expectError(
        await call(api.app, 'POST', '/apps/chat/schedules', { ...base, pattern: 'every tuesday' }),
        400,
        'CONFIGURATION',
      );
      await expectError(
        await call(api.app, 'POST', '/apps/chat/schedules', { ...base, everyMs: 5_000, sessionId: 'missing' }),
        404,
        'SESSION_NOT_FOUND',
      );
      await expectError(await call(api.app, 'GET', '/apps/nope/schedules'), 404, 'APP_NOT_FOUND');
      expect(await (await call(api.app, 'GET', '/apps/chat/schedules')).json()).toEqual([]);
    } finally {
      await api.close();
    }
  });
});
