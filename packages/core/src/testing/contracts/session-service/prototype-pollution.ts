import { expect, it } from 'vitest';
import { InvalidStateKeyError } from '../../../index.js';
import { sessionCalls, type SessionContractContext } from './context.js';
import { USER, event, expectPrototypeClean } from './helpers.js';

/** State keys that would reach `Object.prototype` are refused and never pollute it. */
export function prototypePollutionTests(ctx: SessionContractContext): void {
  const { mustGet } = sessionCalls(ctx);

  it('prototype pollution attempts never modify Object.prototype', async () => {
    const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
    const attempts = [
      '{"__proto__": {"polluted": "yes"}}',
      '{"constructor": {"prototype": {"polluted": "yes"}}}',
      '{"prototype": {"polluted": "yes"}}',
      '{"user:__proto__": {"polluted": "yes"}}',
      '{"app:constructor": {"prototype": {"polluted": "yes"}}}',
      '{"temp:__proto__": {"polluted": "yes"}}',
    ];
    for (const json of attempts) {
      const stateDelta = JSON.parse(json) as Record<string, unknown>;
      await ctx.service.appendEvent({ session, event: event({ actions: { stateDelta } }) }).catch(() => undefined);
      await ctx.service
        .createSession({ appName: ctx.app, userId: USER, state: JSON.parse(json) as Record<string, unknown> })
        .catch(() => undefined);
      expectPrototypeClean();
    }
    // Nested forbidden keys are refused too (at any depth, naming the path), and nothing is stored.
    const nested = JSON.parse('{"safe": {"list": [{"__proto__": {"polluted": "yes"}}]}}') as Record<string, unknown>;
    await expect(
      ctx.service.appendEvent({
        session: await mustGet(session.id),
        event: event({ actions: { stateDelta: nested } }),
      }),
    ).rejects.toThrow("State key 'safe' holds the key '__proto__' at safe.list[0].__proto__");
    await expect(ctx.service.createSession({ appName: ctx.app, userId: USER, state: nested })).rejects.toThrow(
      InvalidStateKeyError,
    );
    const got = await mustGet(session.id);
    expect(got.state).not.toHaveProperty('safe');
    for (const s of [got, ...(await ctx.service.listSessions({ appName: ctx.app, userId: USER })).sessions]) {
      expect(Object.getPrototypeOf(s.state) === Object.prototype || Object.getPrototypeOf(s.state) === null).toBe(true);
      expect((s.state as { polluted?: unknown }).polluted).toBeUndefined();
    }
    expectPrototypeClean();
  });
}
