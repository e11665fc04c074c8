import { beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError, LeaseLostError, SessionNotFoundError, type Session } from '../../../index.js';
import { supportsLeases, type LeasingSessionService } from '../../../stores/index.js';
import { sessionCalls, type SessionContractContext } from './context.js';
import { USER, event, text, textOfEvent, sleep } from './helpers.js';

/** Session leases (`LeasingSessionService`): one owner at a time, takeover after expiry, lost leases. */
export function leaseTests(ctx: SessionContractContext): void {
  const { mustGet, append } = sessionCalls(ctx);

  describe('session leases', () => {
    let leasing: LeasingSessionService;
    const key = (session: Session) => ({ appName: ctx.app, userId: USER, sessionId: session.id });

    beforeEach(() => {
      expect(supportsLeases(ctx.service), 'the store should implement leaseSession, renewLease and releaseLease').toBe(
        true,
      );
      leasing = ctx.service as LeasingSessionService;
    });

    it('one owner at a time: a second owner gets undefined until the lease is released, then a higher epoch', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const a = await leasing.leaseSession({ ...key(session), owner: 'a', ttlMs: 30_000 });
      expect(a).toMatchObject({ ...key(session), owner: 'a' });
      expect(a!.expiresAt).toBeGreaterThan(Date.now() + 20_000);
      expect(await leasing.leaseSession({ ...key(session), owner: 'b', ttlMs: 30_000 })).toBeUndefined();
      await leasing.releaseLease(a!);
      const b = await leasing.leaseSession({ ...key(session), owner: 'b', ttlMs: 30_000 });
      expect(b?.owner).toBe('b');
      expect(b!.epoch).toBeGreaterThan(a!.epoch);
    });

    it('leases of different sessions are independent; leasing a missing session throws SessionNotFoundError', async () => {
      const one = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const two = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      expect(await leasing.leaseSession({ ...key(one), owner: 'a', ttlMs: 30_000 })).toBeDefined();
      expect(await leasing.leaseSession({ ...key(two), owner: 'b', ttlMs: 30_000 })).toBeDefined();
      await expect(
        leasing.leaseSession({
          appName: ctx.app,
          userId: USER,
          sessionId: ctx.uid('missing'),
          owner: 'a',
          ttlMs: 1000,
        }),
      ).rejects.toBeInstanceOf(SessionNotFoundError);
    });

    it('an expired lease is taken over by another owner with a higher epoch', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const a = await leasing.leaseSession({ ...key(session), owner: 'a', ttlMs: 50 });
      await sleep(120);
      const b = await leasing.leaseSession({ ...key(session), owner: 'b', ttlMs: 30_000 });
      expect(b?.owner).toBe('b');
      expect(b!.epoch).toBeGreaterThan(a!.epoch);
    });

    it('appending with a lease that was taken over fails with LeaseLostError and stores nothing', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER, state: { n: 0 } });
      const a = await leasing.leaseSession({ ...key(session), owner: 'a', ttlMs: 50 });
      await ctx.service.appendEvent({
        session,
        event: event({ content: text('by a'), actions: { stateDelta: { n: 1 } } }),
        lease: a,
      });
      await sleep(120);
      const b = await leasing.leaseSession({ ...key(session), owner: 'b', ttlMs: 30_000 });
      expect(b).toBeDefined();

      const late = event({ content: text('late by a'), actions: { stateDelta: { n: 99 } } });
      await expect(ctx.service.appendEvent({ session, event: late, lease: a })).rejects.toBeInstanceOf(LeaseLostError);
      const got = await mustGet(session.id);
      expect(got.events.map(textOfEvent)).toEqual(['by a']);
      expect(got.state).toEqual({ n: 1 });

      await ctx.service.appendEvent({ session: got, event: event({ content: text('by b') }), lease: b });
      expect((await mustGet(session.id)).events.map(textOfEvent)).toEqual(['by a', 'by b']);
    });

    it('an expired lease nobody took over still appends and renews', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const a = await leasing.leaseSession({ ...key(session), owner: 'a', ttlMs: 50 });
      await sleep(120);
      await ctx.service.appendEvent({ session, event: event({ content: text('still a') }), lease: a });
      const renewed = await leasing.renewLease(a!, 30_000);
      expect(renewed.epoch).toBe(a!.epoch);
      expect(renewed.expiresAt).toBeGreaterThan(Date.now() + 20_000);
      expect(await leasing.leaseSession({ ...key(session), owner: 'b', ttlMs: 30_000 })).toBeUndefined();
    });

    it('renewing a lease that was taken over throws LeaseLostError; releasing it does not free the new owner', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const a = await leasing.leaseSession({ ...key(session), owner: 'a', ttlMs: 50 });
      await sleep(120);
      const b = await leasing.leaseSession({ ...key(session), owner: 'b', ttlMs: 30_000 });
      await expect(leasing.renewLease(a!, 30_000)).rejects.toBeInstanceOf(LeaseLostError);
      await leasing.releaseLease(a!);
      expect(await leasing.leaseSession({ ...key(session), owner: 'c', ttlMs: 30_000 })).toBeUndefined();
      await leasing.releaseLease(b!);
      expect(await leasing.leaseSession({ ...key(session), owner: 'c', ttlMs: 30_000 })).toBeDefined();
    });

    it('an empty owner, or a ttlMs that is not a positive number, is refused with ConfigurationError naming it; nothing is taken', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      for (const owner of ['', 42 as unknown as string, undefined as unknown as string]) {
        const refused = leasing.leaseSession({ ...key(session), owner, ttlMs: 30_000 });
        await expect(refused, String(owner)).rejects.toBeInstanceOf(ConfigurationError);
        await expect(refused, String(owner)).rejects.toThrow(/leaseSession needs 'owner'/);
      }
      for (const ttlMs of [0, -5, Number.NaN, Infinity, '1000' as unknown as number]) {
        const refused = leasing.leaseSession({ ...key(session), owner: 'a', ttlMs });
        await expect(refused, String(ttlMs)).rejects.toBeInstanceOf(ConfigurationError);
        await expect(refused, String(ttlMs)).rejects.toThrow(`leaseSession needs 'ttlMs'`);
      }
      await expect(leasing.leaseSession({ ...key(session), owner: 'a', ttlMs: -5 })).rejects.toThrow(/got -5/);

      // Nothing was taken by the refused calls: any owner gets the lease at once.
      const b = await leasing.leaseSession({ ...key(session), owner: 'b', ttlMs: 30_000 });
      expect(b?.owner).toBe('b');
      for (const ttlMs of [0, -1, Number.NaN]) {
        const refused = leasing.renewLease(b!, ttlMs);
        await expect(refused, String(ttlMs)).rejects.toBeInstanceOf(ConfigurationError);
        await expect(refused, String(ttlMs)).rejects.toThrow(`renewLease needs 'ttlMs'`);
      }
      // The refused renewals changed nothing: the lease is still b's, at its epoch.
      expect(await leasing.leaseSession({ ...key(session), owner: 'c', ttlMs: 30_000 })).toBeUndefined();
      expect((await leasing.renewLease(b!, 30_000)).epoch).toBe(b!.epoch);
    });

    it('appends without a lease are not affected by one (version checks still apply)', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      await leasing.leaseSession({ ...key(session), owner: 'a', ttlMs: 30_000 });
      await append(session, { content: text('plain') });
      expect((await mustGet(session.id)).events.map(textOfEvent)).toEqual(['plain']);
    });
  });
}
