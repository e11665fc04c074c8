import { describe, expect, it } from 'vitest';
import { sessionCalls, type SessionContractContext } from './context.js';
import { USER, OTHER_USER } from './helpers.js';

/**
 * Which sessions see a state key: unprefixed keys one session, `user:` a user's sessions in the
 * app, `app:` the whole app, `temp:` nobody after the append.
 */
export function stateScopeTests(ctx: SessionContractContext): void {
  const { mustGet, append } = sessionCalls(ctx);

  describe('state scopes', () => {
    it('unprefixed keys belong to one session', async () => {
      const a = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const b = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      await append(a, { actions: { stateDelta: { topic: 'tides' } } });
      expect((await mustGet(a.id)).state).toEqual({ topic: 'tides' });
      expect((await mustGet(b.id)).state).toEqual({});
    });

    it("user: keys are shared by all of a user's sessions in the app, not across users or apps", async () => {
      const before = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const writer = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const otherUser = await ctx.service.createSession({ appName: ctx.app, userId: OTHER_USER });
      const otherApp = await ctx.service.createSession({ appName: ctx.otherApp, userId: USER });

      await append(writer, { actions: { stateDelta: { 'user:lang': 'fr' } } });
      expect(writer.state['user:lang']).toBe('fr');

      expect((await mustGet(before.id)).state).toEqual({ 'user:lang': 'fr' });
      expect((await ctx.service.createSession({ appName: ctx.app, userId: USER })).state).toEqual({
        'user:lang': 'fr',
      });
      expect((await mustGet(otherUser.id, OTHER_USER)).state).toEqual({});
      expect((await mustGet(otherApp.id, USER, ctx.otherApp)).state).toEqual({});

      // A later write from another session of the user wins everywhere.
      const fresh = await mustGet(before.id);
      await append(fresh, { actions: { stateDelta: { 'user:lang': 'de' } } });
      expect((await mustGet(writer.id)).state['user:lang']).toBe('de');
    });

    it('app: keys are shared by every session of the app, not by other apps', async () => {
      const alice = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const bob = await ctx.service.createSession({ appName: ctx.app, userId: OTHER_USER });
      const otherApp = await ctx.service.createSession({ appName: ctx.otherApp, userId: USER });

      await append(alice, { actions: { stateDelta: { 'app:motd': 'maintenance at 5' } } });

      expect((await mustGet(bob.id, OTHER_USER)).state).toEqual({ 'app:motd': 'maintenance at 5' });
      expect((await ctx.service.createSession({ appName: ctx.app, userId: 'carol' })).state).toEqual({
        'app:motd': 'maintenance at 5',
      });
      expect((await mustGet(otherApp.id, USER, ctx.otherApp)).state).toEqual({});
    });

    it('temp: keys apply to the live session during appendEvent but are never stored', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const returned = await append(session, { actions: { stateDelta: { 'temp:scratch': 'x', kept: 1 } } });

      expect(session.state['temp:scratch']).toBe('x');
      expect(session.state.kept).toBe(1);
      expect(returned.actions.stateDelta).not.toHaveProperty('temp:scratch');

      const got = await mustGet(session.id);
      expect(got.state).toEqual({ kept: 1 });
      expect(got.events).toHaveLength(1);
      expect(got.events[0]!.actions.stateDelta).toEqual({ kept: 1 });
      // The live copy keeps working with temp: keys in its state.
      await append(session, { actions: { stateDelta: { more: 2 } } });
      expect((await mustGet(session.id)).state).toEqual({ kept: 1, more: 2 });
    });
  });
}
