import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConfigurationError, createEvent } from '@troupe/core';
import { PostgresSessionService } from '../src/index.js';
import { PG_URL, adminQuery, describePostgres, dropSchema, requirePostgres, uniqueSchema } from './pg-test-env.js';

/** What the shared contract cannot see: where leases live, whose clock they use, and races between processes. */
describePostgres('PostgresSessionService leases in PostgreSQL', () => {
  const schema = uniqueSchema('leases');
  const appName = `app-${Math.random().toString(36).slice(2, 8)}`;
  beforeAll(requirePostgres);
  afterAll(async () => {
    if (PG_URL !== '') await dropSchema(schema);
  });

  const leaseRow = async (sessionId: string) =>
    (
      await adminQuery<{ owner: string; epoch: number; expires_at: number }>(
        `SELECT lease_owner AS owner, lease_epoch AS epoch, (extract(epoch FROM lease_expires_at) * 1000)::float8 AS expires_at FROM "${schema}".sessions WHERE id = $1`,
        [sessionId],
      )
    )[0]!;

  it('the lease is on the session row, its expiry on the database clock; expiry is judged by that clock, not the caller’s', async () => {
    const service = new PostgresSessionService({ connectionString: PG_URL, schema });
    const session = await service.createSession({ appName, userId: 'clock' });
    const key = { appName, userId: 'clock', sessionId: session.id };
    const [{ now }] = (await adminQuery<{ now: number }>(
      'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now',
    )) as [{ now: number }];
    const lease = (await service.leaseSession({ ...key, owner: 'a', ttlMs: 60_000 }))!;
    expect(await leaseRow(session.id)).toEqual({ owner: 'a', epoch: lease.epoch, expires_at: lease.expiresAt });
    expect(Math.abs(lease.expiresAt - (now + 60_000))).toBeLessThan(5_000);

    // Move the expiry into the past on the database's clock only: the caller's copy still says
    // 60 s to go, yet the database decides, so another owner takes it.
    await adminQuery(
      `UPDATE "${schema}".sessions SET lease_expires_at = clock_timestamp() - interval '1 second' WHERE id = $1`,
      [session.id],
    );
    expect(lease.expiresAt).toBeGreaterThan(Date.now() + 30_000);
    const b = await service.leaseSession({ ...key, owner: 'b', ttlMs: 60_000 });
    expect(b).toMatchObject({ owner: 'b', epoch: lease.epoch + 1 });
    await service.releaseLease(b!);
    expect((await leaseRow(session.id)).expires_at).toBe(-Infinity);
    await service.close();
  });

  it('owners racing from separate services (separate pools) for one session: exactly one wins', async () => {
    const services = Array.from({ length: 6 }, () => new PostgresSessionService({ connectionString: PG_URL, schema }));
    try {
      const session = await services[0]!.createSession({ appName, userId: 'race' });
      const key = { appName, userId: 'race', sessionId: session.id };
      // Warm every pool first, so the race is between the UPDATEs and not between connection setups.
      await Promise.all(services.map((s) => s.checkHealth()));
      for (let round = 0; round < 5; round++) {
        const results = await Promise.all(
          services.map((s, i) => s.leaseSession({ ...key, owner: `owner-${round}-${i}`, ttlMs: 60_000 })),
        );
        const winners = results.filter((r) => r !== undefined);
        expect(winners).toHaveLength(1);
        expect(await leaseRow(session.id)).toMatchObject({ owner: winners[0]!.owner, epoch: winners[0]!.epoch });
        await services[0]!.releaseLease(winners[0]!);
      }
    } finally {
      await Promise.all(services.map((s) => s.close()));
    }
  });

  it('an append or a renewal after a takeover fails naming the new epoch, storing nothing', async () => {
    const service = new PostgresSessionService({ connectionString: PG_URL, schema });
    const session = await service.createSession({ appName, userId: 'order' });
    const key = { appName, userId: 'order', sessionId: session.id };
    const a = (await service.leaseSession({ ...key, owner: 'a', ttlMs: 60_000 }))!;
    await adminQuery(`UPDATE "${schema}".sessions SET lease_expires_at = '-infinity' WHERE id = $1`, [session.id]);
    const b = (await service.leaseSession({ ...key, owner: 'b', ttlMs: 60_000 }))!;
    await expect(service.appendEvent({ session, event: createEvent({ author: 'a' }), lease: a })).rejects.toThrow(
      new RegExp(
        `held by 'a' at epoch ${a.epoch} was taken over \\(it is now at epoch ${b.epoch}\\); nothing was stored`,
      ),
    );
    await expect(service.renewLease(a, 1000)).rejects.toThrow(`it is now at epoch ${b.epoch}`);
    await service.close();
  });

  it('ttlMs must be a positive number of milliseconds', async () => {
    const service = new PostgresSessionService({ connectionString: PG_URL, schema });
    const session = await service.createSession({ appName, userId: 'ttl' });
    const key = { appName, userId: 'ttl', sessionId: session.id };
    for (const ttlMs of [0, -5, Number.NaN, Infinity]) {
      await expect(service.leaseSession({ ...key, owner: 'a', ttlMs })).rejects.toBeInstanceOf(ConfigurationError);
    }
    await expect(service.leaseSession({ ...key, owner: 'a', ttlMs: 0 })).rejects.toThrow(
      /leaseSession needs 'ttlMs' as a positive number of milliseconds; got 0/,
    );
    const lease = (await service.leaseSession({ ...key, owner: 'a', ttlMs: 1000 }))!;
    await expect(service.renewLease(lease, -1)).rejects.toThrow(/renewLease needs 'ttlMs'/);
    await service.close();
  });
});
