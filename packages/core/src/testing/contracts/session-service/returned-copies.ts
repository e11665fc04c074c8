import { describe, expect, it } from 'vitest';
import { sessionCalls, type SessionContractContext } from './context.js';
import { USER, event, text, textOfEvent } from './helpers.js';

/** Sessions and events handed out are copies: changing them never changes what is stored. */
export function returnedCopyTests(ctx: SessionContractContext): void {
  const { mustGet, append } = sessionCalls(ctx);

  describe('returned sessions are copies', () => {
    it('changing the state or the events list of a returned session does not change the store', async () => {
      const created = await ctx.service.createSession({
        appName: ctx.app,
        userId: USER,
        state: { a: 1, 'user:u': 1, 'app:x': 1 },
      });
      await append(created, { content: text('one') });

      const got = await mustGet(created.id);
      got.state.a = 'changed';
      got.state['user:u'] = 'changed';
      delete got.state['app:x'];
      got.state.added = true;
      got.events.push(event({ content: text('injected') }));
      got.events.shift();
      created.state.a = 'changed too';

      const listed = (await ctx.service.listSessions({ appName: ctx.app, userId: USER })).sessions[0]!;
      listed.state.a = 'changed by list';
      listed.events.push(event({ content: text('injected by list') }));

      const again = await mustGet(created.id);
      expect(again.state).toEqual({ a: 1, 'user:u': 1, 'app:x': 1 });
      expect(again.events.map(textOfEvent)).toEqual(['one']);
      expect((await ctx.service.createSession({ appName: ctx.app, userId: USER })).state).toEqual({
        'user:u': 1,
        'app:x': 1,
      });
    });

    it('changing nested state values of a returned session does not change the store', async () => {
      const created = await ctx.service.createSession({
        appName: ctx.app,
        userId: USER,
        state: { doc: { tags: ['a'] }, 'user:prefs': { theme: 'dark' } },
      });
      await append(created, { actions: { stateDelta: { list: [1] } } });

      const got = await mustGet(created.id);
      (got.state.doc as { tags: string[] }).tags.push('b');
      (got.state.list as number[]).push(2);
      (got.state['user:prefs'] as { theme: string }).theme = 'light';
      (created.state.list as number[]).push(3);

      expect((await mustGet(created.id)).state).toEqual({
        doc: { tags: ['a'] },
        list: [1],
        'user:prefs': { theme: 'dark' },
      });
    });

    it('changing the event objects of a returned session does not change the store', async () => {
      const created = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      await append(created, { author: 'Writer', content: text('original'), actions: { stateDelta: { list: [1] } } });

      const got = await mustGet(created.id);
      got.events[0]!.author = 'Changed';
      got.events[0]!.content!.parts[0] = { text: 'changed in copy' };
      got.events[0]!.actions.stateDelta.list = 'changed';

      const again = await mustGet(created.id);
      expect(again.events[0]!.author).toBe('Writer');
      expect(textOfEvent(again.events[0]!)).toBe('original');
      expect(again.events[0]!.actions.stateDelta).toEqual({ list: [1] });
    });

    it('changing an event after appending it, or the event appendEvent returned, does not change the store', async () => {
      const created = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const appended = event({ author: 'Writer', content: text('original'), actions: { stateDelta: { list: [1] } } });
      const returned = await ctx.service.appendEvent({ session: created, event: appended });

      appended.content!.parts[0] = { text: 'changed after append' };
      (appended.actions.stateDelta.list as number[]).push(99);
      returned.author = 'Changed';

      const again = await mustGet(created.id);
      expect(again.state).toEqual({ list: [1] });
      expect(again.events[0]!.author).toBe('Writer');
      expect(textOfEvent(again.events[0]!)).toBe('original');
      expect(again.events[0]!.actions.stateDelta).toEqual({ list: [1] });
    });
  });
}
