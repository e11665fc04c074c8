import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConfigurationError, StaleSessionError, createEvent, type SessionService } from '@troupe/core';
import { PostgresSessionService, SchemaVersionError, VALUE_FORMAT } from '../src/index.js';
import { PG_URL, adminQuery, describePostgres, dropSchema, requirePostgres, uniqueSchema } from './pg-test-env.js';
import { PLAIN_FORMAT as PLAIN } from '../src/codec.js';
import { fullEvent, richState } from '@troupe/core/testing/contracts';

describePostgres('PostgresSessionService persistence', () => {
  const schema = uniqueSchema('persist');
  const open = () => new PostgresSessionService({ connectionString: PG_URL, schema });
  const app = `app-${Math.random().toString(36).slice(2, 8)}`;
  /** Every test its own app, so app: keys of one never show in another. */
  const keyFor = (label: string) => ({ appName: `${app}-${label}`, userId: 'alice' });
  beforeAll(requirePostgres);
  afterAll(async () => {
    if (PG_URL !== '') await dropSchema(schema);
  });

  it('round trip: state and events saved, closed and loaded by a new service are equal to what was saved', async () => {
    const writer = open();
    const session = await writer.createSession({ ...keyFor('round-trip'), state: richState });
    const event = fullEvent();
    await writer.appendEvent({ session, event: structuredClone(event) });
    const saved = await writer.getSession({ ...keyFor('round-trip'), sessionId: session.id });
    await writer.close();

    const reader = open();
    const loaded = await reader.getSession({ ...keyFor('round-trip'), sessionId: session.id });
    await reader.close();
    expect(loaded).toEqual(saved);
    expect(loaded!.state).toEqual({ ...richState, count: 1, 'user:seen': true });
    expect(loaded!.events).toEqual([event]);
    expect(loaded!.version).toBe(1);
    expect(({} as { polluted?: string }).polluted).toBeUndefined();
  });

  it('every stored value carries the value format it was written in; an unknown format fails naming both', async () => {
    const service = open();
    const session = await service.createSession({ ...keyFor('formats'), state: { a: 1, 'user:b': 2 } });
    await service.appendEvent({ session, event: fullEvent() });
    const formats = async (): Promise<number[]> =>
      (
        await adminQuery<{ f: number }>(
          `SELECT state_format AS f FROM "${schema}".sessions WHERE id = $1
           UNION ALL SELECT format FROM "${schema}".events e JOIN "${schema}".sessions s ON s.pk = e.session_pk WHERE s.id = $1
           UNION ALL SELECT format FROM "${schema}".user_state WHERE app_name = $2 AND user_id = 'alice'`,
          [session.id, `${app}-formats`],
        )
      ).map((r) => r.f);
    // Values that need no escaping are plain JSON, as earlier releases wrote them.
    expect(await formats()).toEqual([PLAIN, PLAIN, PLAIN, PLAIN]);

    await adminQuery(`UPDATE "${schema}".events SET format = $1 WHERE id = $2`, [
      VALUE_FORMAT + 1,
      session.events[0]!.id,
    ]);
    const read = service.getSession({ ...keyFor('formats'), sessionId: session.id });
    await expect(read).rejects.toBeInstanceOf(SchemaVersionError);
    await expect(read).rejects.toThrow(
      new RegExp(`value format ${VALUE_FORMAT + 1}, but this @troupe/postgres reads only formats 1 to ${VALUE_FORMAT}`),
    );
    await service.close();
  });

  it('text JSONB refuses is stored escaped in format 2, readable and queryable as JSONB; everything else in it stays plain', async () => {
    const service = open();
    const session = await service.createSession({ ...keyFor('escaped') });
    const content = { role: 'model' as const, parts: [{ text: 'a\u0000b \ud800 c \uFFFD d' }, { text: 'plain' }] };
    await service.appendEvent({
      session,
      event: createEvent({
        author: 'A',
        content,
        actions: { stateDelta: { note: 'x\u0000', 'user:k\u0000': 1, plain: 'p' } },
      }),
    });
    const [row] = await adminQuery<{ format: number; first: string; second: string }>(
      `SELECT e.format, e.data->'content'->'parts'->0->>'text' AS first, e.data->'content'->'parts'->1->>'text' AS second
       FROM "${schema}".events e JOIN "${schema}".sessions s ON s.pk = e.session_pk WHERE s.id = $1`,
      [session.id],
    );
    expect(row).toEqual({ format: VALUE_FORMAT, first: 'a\uFFFD0000b \uFFFDd800 c \uFFFDfffd d', second: 'plain' });
    const [state] = await adminQuery<{ state_format: number; plain: string }>(
      `SELECT state_format, state->>'plain' AS plain FROM "${schema}".sessions WHERE id = $1`,
      [session.id],
    );
    expect(state).toEqual({ state_format: VALUE_FORMAT, plain: 'p' });
    const keys = await adminQuery<{ key: string }>(`SELECT key FROM "${schema}".user_state WHERE app_name = $1`, [
      `${app}-escaped`,
    ]);
    expect(keys).toEqual([{ key: 'user:k\uFFFD0000' }]);

    const reader = open();
    const got = (await reader.getSession({ ...keyFor('escaped'), sessionId: session.id }))!;
    expect(got.events[0]!.content).toEqual(content);
    expect(got.state).toEqual({ note: 'x\u0000', 'user:k\u0000': 1, plain: 'p' });
    // Removing keys that needed escaping finds them.
    await reader.appendEvent({
      session: got,
      event: createEvent({ author: 'A', actions: { stateDelta: { note: undefined, 'user:k\u0000': undefined } } }),
    });
    expect((await service.getSession({ ...keyFor('escaped'), sessionId: session.id }))!.state).toEqual({ plain: 'p' });
    await reader.close();
    await service.close();
  });

  it('the marker character itself, in state values and keys, survives escaped changes and key updates', async () => {
    const service = open();
    const session = await service.createSession({
      ...keyFor('merge'),
      state: { kept: 'odd \uFFFDcafe text', 'odd\uFFFD': 1 },
    });
    await service.appendEvent({
      session,
      event: createEvent({ author: 'A', actions: { stateDelta: { added: '\u0000' } } }),
    });
    await service.appendEvent({
      session,
      event: createEvent({ author: 'A', actions: { stateDelta: { 'odd\uFFFD': 2 } } }),
    });
    expect((await service.getSession({ ...keyFor('merge'), sessionId: session.id }))!.state).toEqual({
      kept: 'odd \uFFFDcafe text',
      'odd\uFFFD': 2,
      added: '\u0000',
    });
    await service.close();
  });

  it('appends continue from the stored version after reopening; a copy from before is stale', async () => {
    const first = open();
    const a = await first.createSession({ ...keyFor('reopen'), state: { n: 0 } });
    for (let i = 1; i <= 3; i++)
      await first.appendEvent({ session: a, event: createEvent({ author: 'A', actions: { stateDelta: { n: i } } }) });
    await first.close();

    const second = open();
    const reloaded = (await second.getSession({ ...keyFor('reopen'), sessionId: a.id }))!;
    expect(reloaded.version).toBe(3);
    await second.appendEvent({
      session: reloaded,
      event: createEvent({ author: 'A', actions: { stateDelta: { n: 4 } } }),
    });
    await expect(second.appendEvent({ session: a, event: createEvent({ author: 'A' }) })).rejects.toThrow(
      /version 3, the store at 4/,
    );
    const last = (await second.getSession({ ...keyFor('reopen'), sessionId: a.id }))!;
    expect(last.events.map((e) => e.actions.stateDelta.n)).toEqual([1, 2, 3, 4]);
    expect(last.state).toEqual({ n: 4 });
    await second.close();
  });

  it('a state value of undefined removes the key in every scope', async () => {
    const service = open();
    const session = await service.createSession({
      ...keyFor('undef'),
      state: { a: 1, 'user:b': 2, 'app:c': 3, keep: true },
    });
    await service.appendEvent({
      session,
      event: createEvent({
        author: 'A',
        actions: { stateDelta: { a: undefined, 'user:b': undefined, 'app:c': undefined } },
      }),
    });
    expect((await service.getSession({ ...keyFor('undef'), sessionId: session.id }))!.state).toEqual({ keep: true });
    await service.close();
  });

  it('values PostgreSQL cannot store are refused with the reason and the fix, and nothing is stored', async () => {
    const service = open();
    const session = await service.createSession({ ...keyFor('bad-values') });
    const bigint = service.appendEvent({
      session,
      event: createEvent({ author: 'A', actions: { stateDelta: { 'user:big': 10n } } }),
    });
    await expect(bigint).rejects.toBeInstanceOf(ConfigurationError);
    await expect(bigint).rejects.toThrow(/BigInt.*Store plain JSON data/);
    const nulId = service.appendEvent({
      session,
      event: createEvent({ id: 'e\u0000', author: 'A', actions: { stateDelta: { 'user:x': 1 } } }),
    });
    await expect(nulId).rejects.toBeInstanceOf(ConfigurationError);
    await expect(nulId).rejects.toThrow(/event ids and lease owners cannot contain the character \\u0000/);
    const got = (await service.getSession({ ...keyFor('bad-values'), sessionId: session.id }))!;
    expect(got.events).toEqual([]);
    expect(got.state).toEqual({});
    expect(got.version).toBe(0);
    // The connection that saw the failures is fine for the next append.
    await service.appendEvent({ session, event: createEvent({ author: 'A', actions: { stateDelta: { ok: 1 } } }) });
    expect((await service.getSession({ ...keyFor('bad-values'), sessionId: session.id }))!.state).toEqual({ ok: 1 });
    await service.close();
  });

  it('a pool passed in is used and left open by close()', async () => {
    const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
    try {
      const service = new PostgresSessionService({ pool, schema });
      const session = await service.createSession({ ...keyFor('pooled') });
      await service.close();
      await expect(service.getSession({ ...keyFor('pooled'), sessionId: session.id })).rejects.toThrow(
        /is closed\. Create a new PostgresSessionService/,
      );
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".sessions WHERE id = $1`, [
        session.id,
      ]);
      expect(rows).toEqual([{ n: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('two services incrementing one counter concurrently lose no update and interleave nothing', async () => {
    const [one, two] = [open(), open()];
    const created = await one.createSession({ ...keyFor('counter'), state: { count: 0 } });
    const perService = 40;
    const work = async (service: SessionService, author: string): Promise<number> => {
      let retries = 0;
      for (let done = 0; done < perService;) {
        const session = (await service.getSession({ ...keyFor('counter'), sessionId: created.id }))!;
        try {
          await service.appendEvent({
            session,
            event: createEvent({ author, actions: { stateDelta: { count: (session.state.count as number) + 1 } } }),
          });
          done++;
        } catch (error) {
          if (!(error instanceof StaleSessionError)) throw error;
          retries++;
        }
      }
      return retries;
    };
    const [retriesOne, retriesTwo] = await Promise.all([work(one, 'one'), work(two, 'two')]);
    const got = (await two.getSession({ ...keyFor('counter'), sessionId: created.id }))!;
    expect(got.state.count).toBe(2 * perService);
    expect(got.events.map((e) => e.actions.stateDelta.count)).toEqual(
      Array.from({ length: 2 * perService }, (_, i) => i + 1),
    );
    // Both loops interleave on one event loop, so some appends must have met a newer version.
    expect(retriesOne + retriesTwo).toBeGreaterThan(0);
    await one.close();
    await two.close();
  });
});
