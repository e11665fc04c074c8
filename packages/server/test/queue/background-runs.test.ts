import { describe, expect, it } from 'vitest';
import { describeRedis, useRedis } from '../../../queue/test/redis-server.js';
import type { BackgroundRunInfo, WireSession } from '../../src/index.js';
import { call, createSession, eventually, expectError, message, runBody, scriptedApp } from '../helpers.js';
import { parseIdFrames, queuedApp, readIdFrames, scriptedAgent, slowAgent } from './queued-app.js';

// The background-run routes of createApp({ queue }), end to end: a real RunQueue and RunWorker in
// this process, a private redis-server, an in-memory store.

const tokens = { 'alice-token': 'alice', 'bob-token': 'bob', 'admin-token': '*' };
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

describeRedis('background runs over HTTP', () => {
  const redis = useRedis();

  it('POST .../runs answers 202 with the pending run; its status and the session list follow it to completed', async () => {
    const api = await queuedApp(redis().url, { chat: scriptedAgent(['Hello from a worker.']) });
    try {
      const s = await createSession(api.app, 'chat', 'alice');
      const res = await call(api.app, 'POST', `/apps/chat/users/alice/sessions/${s.id}/runs`, {
        newMessage: message('hi'),
        runId: 'run-1',
      });
      expect(res.status).toBe(202);
      expect(await res.json()).toMatchObject({
        runId: 'run-1',
        status: 'pending',
        appName: 'chat',
        userId: 'alice',
        sessionId: s.id,
        attempts: 0,
      });

      const statusPath = `/apps/chat/users/alice/sessions/${s.id}/runs/run-1`;
      await eventually(async () =>
        expect(((await (await call(api.app, 'GET', statusPath)).json()) as BackgroundRunInfo).status).toBe('completed'),
      );
      const list = (await (
        await call(api.app, 'GET', `/apps/chat/users/alice/sessions/${s.id}/runs`)
      ).json()) as BackgroundRunInfo[];
      expect(list.map((r) => [r.runId, r.status, r.attempts])).toEqual([['run-1', 'completed', 1]]);
      const session = (await (
        await call(api.app, 'GET', `/apps/chat/users/alice/sessions/${s.id}`)
      ).json()) as WireSession;
      expect(session.events!.map((e) => e.invocationId)).toEqual(['run-1', 'run-1']);
      expect(session.events!.at(-1)!.content!.parts).toEqual([{ text: 'Hello from a worker.' }]);

      // A run id already taken is a 409; an unknown run a 404; a bad strategy a 400 naming the field.
      await expectError(
        await call(api.app, 'POST', `/apps/chat/users/alice/sessions/${s.id}/runs`, {
          newMessage: message('again'),
          runId: 'run-1',
        }),
        409,
        'INVOCATION_EXISTS',
      );
      await expectError(
        await call(api.app, 'GET', `/apps/chat/users/alice/sessions/${s.id}/runs/nope`),
        404,
        'RUN_NOT_FOUND',
      );
      const bad = await call(api.app, 'POST', `/apps/chat/users/alice/sessions/${s.id}/runs`, {
        newMessage: message('x'),
        multitaskStrategy: 'queue-it',
      });
      expect(await bad.json()).toMatchObject({ error: { code: 'INVALID_REQUEST', field: 'multitaskStrategy' } });
      await expectError(
        await call(api.app, 'POST', `/apps/chat/users/alice/sessions/missing/runs`, { newMessage: message('x') }),
        404,
        'SESSION_NOT_FOUND',
      );
    } finally {
      await api.close();
    }
  });

  it('GET .../stream sends frames with id:, one write each; reconnecting with Last-Event-ID mid-run delivers only the later frames', async () => {
    const api = await queuedApp(redis().url, { slow: slowAgent(300, 'all done', 2) });
    try {
      const s = await createSession(api.app, 'slow', 'alice');
      const { runId } = (await (
        await call(api.app, 'POST', `/apps/slow/users/alice/sessions/${s.id}/runs`, { newMessage: message('go') })
      ).json()) as BackgroundRunInfo;
      const streamPath = `/apps/slow/users/alice/sessions/${s.id}/runs/${runId}/stream`;

      // Read the first frame, then go away while the run goes on.
      const first = await call(api.app, 'GET', streamPath);
      const reader = first.body!.getReader();
      const { value } = await reader.read();
      const [head] = parseIdFrames(new TextDecoder().decode(value));
      await reader.cancel();
      expect(head!.event.content!.parts[0]).toMatchObject({ functionCall: { name: 'wait' } });

      const rest = await readIdFrames(await call(api.app, 'GET', streamPath, undefined, { 'Last-Event-ID': head!.id }));
      expect(rest.chunks).toHaveLength(rest.frames.length);
      const session = (await (
        await call(api.app, 'GET', `/apps/slow/users/alice/sessions/${s.id}`)
      ).json()) as WireSession;
      // The user's message is stored but not streamed; every other stored event comes exactly once.
      expect([head!, ...rest.frames].map((f) => f.event.id)).toEqual(session.events!.slice(1).map((e) => e.id));
      expect(rest.frames.at(-1)!.event.content!.parts).toEqual([{ text: 'all done' }]);
      expect(new Set(rest.frames.map((f) => f.id)).size).toBe(rest.frames.length);

      // After the end, a stream replays; a Last-Event-ID that is not one of its ids is a 400 only when it cannot be one.
      const replay = await readIdFrames(await call(api.app, 'GET', streamPath));
      expect(replay.frames.map((f) => f.id)).toEqual([head!.id, ...rest.frames.map((f) => f.id)]);
      await expectError(
        await call(api.app, 'GET', streamPath, undefined, { 'Last-Event-ID': 'x'.repeat(300) }),
        400,
        'INVALID_REQUEST',
      );
    } finally {
      await api.close();
    }
  });

  it("a second turn on a busy session is a 409 with the default strategy; 'enqueue' runs it after the first", async () => {
    const api = await queuedApp(redis().url, { slow: slowAgent(400, 'done', 1, 2) });
    try {
      const s = await createSession(api.app, 'slow', 'alice');
      const runs = `/apps/slow/users/alice/sessions/${s.id}/runs`;
      const first = (await (
        await call(api.app, 'POST', runs, { newMessage: message('one') })
      ).json()) as BackgroundRunInfo;
      await expectError(await call(api.app, 'POST', runs, { newMessage: message('two') }), 409, 'SESSION_BUSY');
      await expectError(await call(api.app, 'POST', '/run_sse', runBody(s, 'two')), 409, 'SESSION_BUSY');
      await expectError(await call(api.app, 'POST', '/run', runBody(s, 'two')), 409, 'SESSION_BUSY');
      // Deleting a session with a run on it is refused too.
      await expectError(await call(api.app, 'DELETE', `/apps/slow/users/alice/sessions/${s.id}`), 409, 'SESSION_BUSY');

      const second = await call(api.app, 'POST', runs, { newMessage: message('two'), multitaskStrategy: 'enqueue' });
      expect(second.status).toBe(202);
      const { runId } = (await second.json()) as BackgroundRunInfo;
      // Its stream waits for it: the first run ends, then the second one runs to its end.
      const { frames } = await readIdFrames(await call(api.app, 'GET', `${runs}/${runId}/stream`));
      expect(frames.every((f) => f.event.invocationId === runId)).toBe(true);
      expect((await api.queue.status(first.runId)).status).toBe('completed');
      expect((await api.queue.status(runId)).status).toBe('completed');
    } finally {
      await api.close();
    }
  });

  it('POST .../runs/{runId}/cancel stops a running run: one CANCELLED event is stored and the run ends cancelled', async () => {
    const api = await queuedApp(redis().url, { slow: slowAgent(5_000) });
    try {
      const s = await createSession(api.app, 'slow', 'alice');
      const runs = `/apps/slow/users/alice/sessions/${s.id}/runs`;
      const { runId } = (await (
        await call(api.app, 'POST', runs, { newMessage: message('go') })
      ).json()) as BackgroundRunInfo;
      await eventually(async () => expect((await api.queue.status(runId)).status).toBe('running'));
      const res = await call(api.app, 'POST', `${runs}/${runId}/cancel`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as BackgroundRunInfo).runId).toBe(runId);
      await eventually(async () =>
        expect(((await (await call(api.app, 'GET', `${runs}/${runId}`)).json()) as BackgroundRunInfo).status).toBe(
          'cancelled',
        ),
      );
      const session = (await (
        await call(api.app, 'GET', `/apps/slow/users/alice/sessions/${s.id}`)
      ).json()) as WireSession;
      expect(session.events!.filter((e) => e.errorCode === 'CANCELLED')).toHaveLength(1);
    } finally {
      await api.close();
    }
  });

  it("another user's runs answer 404 (or 403 for the other user's path); an app: state key needs an admin token", async () => {
    const api = await queuedApp(redis().url, { chat: scriptedAgent(['one', 'two']) }, { auth: { tokens } });
    try {
      const s = await createSession(api.app, 'chat', 'alice', undefined, as('alice-token'));
      const { runId } = (await (
        await call(
          api.app,
          'POST',
          `/apps/chat/users/alice/sessions/${s.id}/runs`,
          { newMessage: message('hi') },
          as('alice-token'),
        )
      ).json()) as BackgroundRunInfo;
      const bobSession = await createSession(api.app, 'chat', 'bob', undefined, as('bob-token'));

      // Bob cannot use Alice's path, and her run id under his own session path is not found.
      await expectError(
        await call(api.app, 'GET', `/apps/chat/users/alice/sessions/${s.id}/runs/${runId}`, undefined, as('bob-token')),
        403,
        'FORBIDDEN',
      );
      for (const [method, suffix] of [
        ['GET', ''],
        ['GET', '/stream'],
        ['POST', '/cancel'],
      ] as const) {
        await expectError(
          await call(
            api.app,
            method,
            `/apps/chat/users/bob/sessions/${bobSession.id}/runs/${runId}${suffix}`,
            undefined,
            as('bob-token'),
          ),
          404,
          'RUN_NOT_FOUND',
        );
        await expectError(
          await call(
            api.app,
            method,
            `/apps/chat/users/bob/sessions/${s.id}/runs/${runId}${suffix}`,
            undefined,
            as('bob-token'),
          ),
          404,
          'RUN_NOT_FOUND',
        );
      }
      expect(
        await (
          await call(api.app, 'GET', `/apps/chat/users/bob/sessions/${bobSession.id}/runs`, undefined, as('bob-token'))
        ).json(),
      ).toEqual([]);
      // The resume of another user's run by id is refused the same way, before anything changes.
      await expectError(
        await call(
          api.app,
          'POST',
          `/apps/chat/users/bob/sessions/${bobSession.id}/resume`,
          { invocationId: runId, responses: { x: true } },
          as('bob-token'),
        ),
        404,
        'RUN_NOT_FOUND',
      );

      const forbidden = await call(
        api.app,
        'POST',
        `/apps/chat/users/bob/sessions/${bobSession.id}/runs`,
        { newMessage: message('x'), stateDelta: { 'app:flag': true } },
        as('bob-token'),
      );
      expect(forbidden.status).toBe(403);
      expect(((await forbidden.json()) as { error: { code: string } }).error.code).toBe('STATE_KEY_FORBIDDEN');
      await eventually(async () => expect((await api.queue.status(runId)).status).toBe('completed'));
      // The admin token reads any user's run.
      expect(
        (
          await call(
            api.app,
            'GET',
            `/apps/chat/users/alice/sessions/${s.id}/runs/${runId}`,
            undefined,
            as('admin-token'),
          )
        ).status,
      ).toBe(200);
    } finally {
      await api.close();
    }
  });
});

describe('without a queue', () => {
  it('the background-run and schedule routes are not served; a queue without the RunQueue methods is refused', async () => {
    const { app } = scriptedApp([]);
    const s = await createSession(app, 'chat', 'alice');
    await expectError(
      await call(app, 'POST', `/apps/chat/users/alice/sessions/${s.id}/runs`, { newMessage: message('hi') }),
      404,
      'NOT_FOUND',
    );
    await expectError(await call(app, 'GET', '/apps/chat/schedules'), 404, 'NOT_FOUND');
    expect(() => scriptedApp([], { queue: {} as never })).toThrow(/queue must be a RunQueue from @troupe\/queue/);
  });
});
