import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, createEvent } from '@troupe/core';
import { PostgresSessionService, SCHEMA_VERSION, SchemaVersionError } from '../src/index.js';
import { MIGRATIONS, migrate, type Migration } from '../src/schema.js';
import { inTransaction } from '../src/transaction.js';
import { PG_URL, adminQuery, describePostgres, dropSchema, requirePostgres, uniqueSchema } from './pg-test-env.js';

describePostgres('PostgresSessionService schema', () => {
  const schemas: string[] = [];
  const newSchema = (label: string): string => {
    const name = uniqueSchema(label);
    schemas.push(name);
    return name;
  };
  beforeAll(requirePostgres);
  afterAll(async () => {
    if (PG_URL !== '') for (const s of schemas) await dropSchema(s);
  });

  const versions = async (schema: string): Promise<number[]> =>
    (await adminQuery<{ version: number }>(`SELECT version FROM "${schema}".schema_version ORDER BY version`)).map(
      (r) => r.version,
    );

  it('first use creates the schema and every migration, recorded in schema_version; re-opening applies nothing', async () => {
    const schema = newSchema('fresh');
    const first = new PostgresSessionService({ connectionString: PG_URL, schema });
    const session = await first.createSession({ appName: 'app', userId: 'u', state: { kept: true } });
    await first.close();
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
    expect(await versions(schema)).toEqual(MIGRATIONS.map((m) => m.version));
    const tables = await adminQuery<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [schema],
    );
    expect(tables.map((t) => t.table_name)).toEqual([
      'app_state',
      'events',
      'runs',
      'schema_version',
      'sessions',
      'user_state',
    ]);

    const again = new PostgresSessionService({ connectionString: PG_URL, schema });
    expect((await again.getSession({ appName: 'app', userId: 'u', sessionId: session.id }))!.state).toEqual({
      kept: true,
    });
    await again.close();
    expect(await versions(schema)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('services starting together on a new schema migrate it once (advisory lock)', async () => {
    const schema = newSchema('race');
    const services = Array.from({ length: 4 }, () => new PostgresSessionService({ connectionString: PG_URL, schema }));
    const sessions = await Promise.all(services.map((s, i) => s.createSession({ appName: 'app', userId: `u${i}` })));
    expect(sessions).toHaveLength(4);
    expect(await versions(schema)).toEqual(MIGRATIONS.map((m) => m.version));
    for (const s of services) await s.close();
  });

  it('a schema with a newer version fails on first use, naming both versions, every time, and is left untouched', async () => {
    const schema = newSchema('newer');
    const newer = SCHEMA_VERSION + 5;
    await adminQuery(`CREATE SCHEMA "${schema}"`);
    await adminQuery(
      `CREATE TABLE "${schema}".schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    await adminQuery(`INSERT INTO "${schema}".schema_version (version, description) VALUES ($1, 'from the future')`, [
      newer,
    ]);

    const service = new PostgresSessionService({ connectionString: PG_URL, schema });
    const attempt = service.listSessions({ appName: 'app', userId: 'u' });
    await expect(attempt).rejects.toBeInstanceOf(SchemaVersionError);
    await expect(service.getSession({ appName: 'app', userId: 'u', sessionId: 'x' })).rejects.toThrow(
      new RegExp(
        `schema '${schema}' has schema version ${newer}, but this @troupe/postgres knows versions up to ${SCHEMA_VERSION}.*upgrade @troupe/postgres`,
      ),
    );
    await expect(attempt).rejects.toMatchObject({ code: 'SCHEMA_VERSION', found: newer, supported: SCHEMA_VERSION });
    await service.close();
    expect(await versions(schema)).toEqual([newer]);
    const tables = await adminQuery(
      'SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2',
      [schema, 'sessions'],
    );
    expect(tables).toEqual([]);
  });

  it('a database at schema version 1 migrates to the current version and keeps its data, awkward old text included', async () => {
    const schema = newSchema('v1');
    const pool = new pg.Pool({ connectionString: PG_URL });
    const M = '\uFFFD';
    try {
      // What release 1 wrote: plain JSON (format 1), which could hold the marker character unescaped.
      await inTransaction(pool, (client) => migrate(client, schema, MIGRATIONS.slice(0, 1)));
      const event = createEvent({
        id: 'old-1',
        invocationId: 'i1',
        author: 'A',
        content: { role: 'model', parts: [{ text: `old ${M}cafe` }] },
        actions: { stateDelta: { n: 1 } },
      });
      const [{ pk }] = (await adminQuery<{ pk: string }>(
        `INSERT INTO "${schema}".sessions (app_name, user_id, id, state_format, state, version, last_update_time) VALUES ('app', 'u', 's1', 1, $1::jsonb, 1, 1000) RETURNING pk`,
        [JSON.stringify({ n: 1, odd: `${M}beef`, [`k${M}`]: 'v' })],
      )) as [{ pk: string }];
      await adminQuery(
        `INSERT INTO "${schema}".events (session_pk, seq, id, timestamp, format, data) VALUES ($1, 1, 'old-1', $2, 1, $3::jsonb)`,
        [pk, event.timestamp, JSON.stringify(event)],
      );
      await adminQuery(
        `INSERT INTO "${schema}".app_state (app_name, key, format, value) VALUES ('app', $1, 1, $2::jsonb)`,
        [`app:${M}dead`, JSON.stringify(`${M}0000`)],
      );
      await adminQuery(
        `INSERT INTO "${schema}".user_state (app_name, user_id, key, format, value) VALUES ('app', 'u', 'user:plain', 1, '"x"')`,
      );

      const service = new PostgresSessionService({ connectionString: PG_URL, schema });
      const key = { appName: 'app', userId: 'u', sessionId: 's1' };
      const expected = { n: 1, odd: `${M}beef`, [`k${M}`]: 'v', [`app:${M}dead`]: `${M}0000`, 'user:plain': 'x' };
      const session = (await service.getSession(key))!;
      expect(await versions(schema)).toEqual(MIGRATIONS.map((m) => m.version));
      expect(session.state).toEqual(expected);
      expect(session.events).toEqual([event]);
      expect(session.version).toBe(1);

      // Old sessions lease like new ones, and take escaped changes without misreading their old text.
      const lease = await service.leaseSession({ ...key, owner: 'w', ttlMs: 10_000 });
      expect(lease?.epoch).toBe(1);
      await service.appendEvent({
        session,
        lease,
        event: createEvent({ author: 'A', actions: { stateDelta: { nul: '\u0000', [`app:${M}dead`]: 'new' } } }),
      });
      const again = new PostgresSessionService({ connectionString: PG_URL, schema });
      const after = (await again.getSession(key))!;
      expect(after.state).toEqual({ ...expected, nul: '\u0000', [`app:${M}dead`]: 'new' });
      expect(after.events[0]).toEqual(event);
      expect(await adminQuery(`SELECT key FROM "${schema}".app_state WHERE app_name = 'app'`)).toHaveLength(1);
      await service.close();
      await again.close();
    } finally {
      await pool.end();
    }
  });

  it('a database at schema version 2 (before run records) gets the runs table; its sessions take runs, and deleting one deletes them', async () => {
    const schema = newSchema('v2');
    const pool = new pg.Pool({ connectionString: PG_URL });
    try {
      await inTransaction(pool, (client) => migrate(client, schema, MIGRATIONS.slice(0, 2)));
      await adminQuery(
        `INSERT INTO "${schema}".sessions (app_name, user_id, id, state_format, state, version, last_update_time) VALUES ('app', 'u', 's1', 1, '{"n":1}', 0, 1000)`,
      );
      expect(await versions(schema)).toEqual([1, 2]);

      const service = new PostgresSessionService({ connectionString: PG_URL, schema });
      const key = { appName: 'app', userId: 'u', sessionId: 's1' };
      expect((await service.getSession(key))!.state).toEqual({ n: 1 });
      expect(await versions(schema)).toEqual([1, 2, 3]);
      const run = await service.createRun({ ...key, runId: 'r1', request: { newMessage: 'hi' }, exclusive: true });
      expect(await service.getRun('r1')).toEqual(run);
      await expect(service.createRun({ ...key, runId: 'r2', request: {}, exclusive: true })).rejects.toMatchObject({
        code: 'SESSION_BUSY',
      });
      const indexes = await adminQuery<{ indexname: string }>(
        `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'runs' ORDER BY indexname`,
        [schema],
      );
      expect(indexes.map((i) => i.indexname)).toEqual(['runs_pkey', 'runs_session', 'runs_status']);
      await service.deleteSession(key);
      expect(await adminQuery(`SELECT run_id FROM "${schema}".runs`)).toEqual([]);
      await service.close();
    } finally {
      await pool.end();
    }
  });

  it('migrations run forward in order, each once; a failing step rolls back the whole migration', async () => {
    const schema = newSchema('steps');
    const pool = new pg.Pool({ connectionString: PG_URL });
    const step = (version: number, table: string): Migration => ({
      version,
      description: `add ${table}`,
      sql: (s) => `CREATE TABLE ${s}.${table} (x INTEGER)`,
    });
    const run = (steps: Migration[]) => inTransaction(pool, (client) => migrate(client, schema, steps));
    try {
      expect(await run([step(1, 'a')])).toEqual([1]);
      expect(await run([step(1, 'a')])).toEqual([]);
      expect(await run([step(1, 'a'), step(2, 'b'), step(3, 'c')])).toEqual([2, 3]);
      const broken: Migration = { version: 5, description: 'broken', sql: (s) => `CREATE TABLE ${s}.broken (` };
      await expect(run([step(1, 'a'), step(2, 'b'), step(3, 'c'), step(4, 'd'), broken])).rejects.toThrow();
      expect(await versions(schema)).toEqual([1, 2, 3]);
      const d = await adminQuery(
        'SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2',
        [schema, 'd'],
      );
      expect(d).toEqual([]);
      await expect(run([step(1, 'a')])).rejects.toThrow(
        /schema version 3, but this @troupe\/postgres knows versions up to 1/,
      );
      await expect(run([{ ...step(1, 'a'), version: 2 }])).rejects.toBeInstanceOf(ConfigurationError);
    } finally {
      await pool.end();
    }
  });
});

describe('PostgresSessionService options', () => {
  it.each([
    [{}, /'connectionString' must be a non-empty string; got undefined/],
    [{ connectionString: '' }, /'connectionString' must be a non-empty string; got ""/],
    [{ connectionString: 'postgres://x', pool: new pg.Pool() }, /both 'connectionString' and 'pool'\. Give one/],
    [{ pool: {} as pg.Pool }, /'pool' must be a pg Pool/],
    [
      { connectionString: 'postgres://x', schema: 'bad-name; DROP' },
      /'schema' must be 1 to 63 letters, digits or '_'.*got "bad-name; DROP"/,
    ],
    [{ connectionString: 'postgres://x', schema: '1abc' }, /not starting with a digit; got "1abc"/],
    [
      { connectionString: 'postgres://x', applicationName: '' },
      /'applicationName' must be 1 to 63 printable ASCII characters; got ""/,
    ],
    [{ connectionString: 'postgres://x', applicationName: 'x'.repeat(64) }, /'applicationName' must be 1 to 63/],
    [
      { pool: new pg.Pool(), applicationName: 'mine' },
      /'applicationName' applies to the pool the service opens, but 'pool' was given/,
    ],
    [
      { connectionString: 'postgres://x', connectTimeoutMs: 0 },
      /'connectTimeoutMs' must be a positive whole number of milliseconds; got 0/,
    ],
    [
      { connectionString: 'postgres://x', healthTimeoutMs: 1.5 },
      /'healthTimeoutMs' must be a positive whole number of milliseconds; got 1.5/,
    ],
  ])('rejects %j with the option, the value and the fix', (options, message) => {
    expect(() => new PostgresSessionService(options)).toThrow(ConfigurationError);
    expect(() => new PostgresSessionService(options)).toThrow(message);
  });
});
