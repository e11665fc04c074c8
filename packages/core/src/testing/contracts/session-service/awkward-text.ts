import { describe, expect, it } from 'vitest';
import { sessionCalls, type SessionContractContext } from './context.js';
import { USER } from './helpers.js';

/** Text a store cannot hold as is (NUL bytes, lone surrogates) round-trips exactly. */
export function awkwardTextTests(ctx: SessionContractContext): void {
  const { mustGet, append } = sessionCalls(ctx);

  describe('text a store cannot hold as is', () => {
    // NUL bytes and lone UTF-16 surrogates are valid in JavaScript strings; PostgreSQL's jsonb
    // refuses both. Every store round-trips them the same way (SPEC §12).
    const awkward = [
      'nul \u0000 inside',
      'lone high \ud800 surrogate',
      'lone low \udc00',
      'pair \ud83c\udf89 ok',
      '\u0000',
    ];

    it('NUL bytes and lone surrogates in content, state, keys and output round-trip exactly', async () => {
      const session = await ctx.service.createSession({
        appName: ctx.app,
        userId: USER,
        state: { initial: awkward[0], 'user:u': awkward[1] },
      });
      const e = await append(session, {
        content: { role: 'model', parts: awkward.map((t) => ({ text: t })) },
        output: { list: awkward, 'key \u0000 with nul': awkward[2] },
        actions: { stateDelta: { s: awkward[1], 'k\ud800': awkward[3], 'app:a': awkward[4] } },
      });
      const got = await mustGet(session.id);
      expect(got.events[0]).toEqual(e);
      expect(got.events[0]!.content!.parts).toEqual(awkward.map((t) => ({ text: t })));
      expect(got.state).toEqual({
        initial: awkward[0],
        'user:u': awkward[1],
        s: awkward[1],
        'k\ud800': awkward[3],
        'app:a': awkward[4],
      });
      const listed = (await ctx.service.listSessions({ appName: ctx.app, userId: USER })).sessions.find(
        (x) => x.id === session.id,
      );
      expect(listed?.state.s).toBe(awkward[1]);
    });
  });
}
