import { describe, expect, it } from 'vitest';
import {
  BaseAgent,
  ConfigurationError,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  Runner,
  createEvent,
  type Event,
  type GetSessionParams,
  type InvocationContext,
  type LlmRequest,
  type Session,
  type SessionService,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { texts } from '../helpers.js';

const APP = 'cache';
const USER = 'u';

/** A model that answers every call with the turn's text, reading the last user message. */
function echoModel(): ScriptedModel {
  return new ScriptedModel(
    Array.from({ length: 200 }, () => (request: LlmRequest) => `re: ${texts(request.contents).at(-1)}`),
  );
}

/** A store that counts reads and what they asked for. */
class CountingStore extends InMemorySessionService {
  readonly reads: GetSessionParams[] = [];
  override async getSession(params: GetSessionParams): Promise<Session | undefined> {
    this.reads.push(params);
    return super.getSession(params);
  }
}

// Shorter sessions are read whole at every turn (cheap), so tests of what is kept start longer.
const EARLIER = 40;

/** Stores `count` earlier user messages (`e0`, `e1`, ...) in the session, as an earlier conversation. */
async function prefill(store: SessionService, sessionId: string, count = EARLIER): Promise<void> {
  const session = (await store.getSession({ appName: APP, userId: USER, sessionId }))!;
  for (let i = 0; i < count; i++) {
    await store.appendEvent({
      session,
      event: createEvent({ author: 'user', content: { role: 'user', parts: [{ text: `e${i}` }] } }),
    });
  }
}

async function turn(runner: Runner, sessionId: string, message: string) {
  const result = await runner.run({ userId: USER, sessionId, newMessage: message });
  expect(result.status, result.error?.message).toBe('completed');
  return result;
}

describe('Runner session cache (incremental session reads between turns)', () => {
  it('after the first turn, a turn reads only what was stored since its previous turn; the model sees the whole conversation', async () => {
    const store = new CountingStore();
    const model = echoModel();
    const runner = new Runner({ appName: APP, agent: new LlmAgent({ name: 'bot', model }), sessionService: store });
    const { id } = await store.createSession({ appName: APP, userId: USER });
    for (let i = 0; i < 20; i++) await turn(runner, id, `m${i}`);

    // Turns 0–15 found fewer than 32 events (read whole, not kept); turn 16 read 32 and kept them;
    // from then on, only the new ones.
    expect(store.reads.map((r) => r.afterVersion)).toEqual([...Array<undefined>(17).fill(undefined), 34, 36, 38]);
    expect(texts(model.requests.at(-1)!.contents)).toEqual([
      ...Array.from({ length: 19 }, (_, i) => [`m${i}`, `re: m${i}`]).flat(),
      'm19',
    ]);
  });

  it('gives the model the same history as a runner that reads every session whole (sessionCacheSize: 0), tools included', async () => {
    const requests: LlmRequest[][] = [];
    for (const sessionCacheSize of [1000, 0]) {
      const lookup = new FunctionTool({
        name: 'lookup',
        description: 'Looks a word up.',
        execute: (args: Record<string, unknown>) => ({ found: String(args.word) }),
      });
      const model = new ScriptedModel(
        Array.from({ length: 40 }, (_, i) =>
          i % 2 === 0 ? { functionCalls: [{ name: 'lookup', args: { word: `w${i}` }, id: `c${i}` }] } : `answer ${i}`,
        ),
      );
      const runner = new Runner({
        appName: APP,
        agent: new LlmAgent({ name: 'bot', model, tools: [lookup] }),
        sessionService: new InMemorySessionService(),
        sessionCacheSize,
      });
      const { id } = await runner.sessionService.createSession({ appName: APP, userId: USER });
      for (let i = 0; i < 20; i++) await turn(runner, id, `q${i}`);
      requests.push(model.requests);
    }
    expect(requests[0]!.map((r) => r.contents)).toEqual(requests[1]!.map((r) => r.contents));
  });

  it('the agent that takes each turn after transfers is the one a whole read finds', async () => {
    const answered: string[][] = [];
    for (const sessionCacheSize of [1000, 0]) {
      const worker = new LlmAgent({
        name: 'worker',
        description: 'Does the work.',
        model: new ScriptedModel([
          'w1',
          'w2',
          { functionCalls: [{ name: 'transfer_to_agent', args: { agent_name: 'desk' } }] },
        ]),
      });
      const desk = new LlmAgent({
        name: 'desk',
        description: 'Answers questions.',
        model: new ScriptedModel(['d1', 'd2', 'd3']),
      });
      const coordinator = new LlmAgent({
        name: 'coordinator',
        model: new ScriptedModel([{ functionCalls: [{ name: 'transfer_to_agent', args: { agent_name: 'worker' } }] }]),
        subAgents: [worker, desk],
      });
      const runner = new Runner({
        appName: APP,
        agent: coordinator,
        sessionService: new InMemorySessionService(),
        sessionCacheSize,
      });
      const { id } = await runner.sessionService.createSession({ appName: APP, userId: USER });
      await prefill(runner.sessionService, id);
      const authors: string[] = [];
      for (let i = 0; i < 5; i++) {
        const result = await turn(runner, id, `q${i}`);
        authors.push(result.events.at(-1)!.author);
        if (i === 1) await runner.updateSessionState({ userId: USER, sessionId: id, stateDelta: { note: i } });
      }
      answered.push(authors);
    }
    expect(answered[0]).toEqual(['worker', 'worker', 'desk', 'desk', 'desk']);
    expect(answered[1]).toEqual(answered[0]);
  });

  it('after a run that failed on a stale session, the next turn sees what the other writer stored, as a whole read would', async () => {
    const seen: LlmRequest['contents'][] = [];
    for (const sessionCacheSize of [1000, 0]) {
      const store = new InMemorySessionService();
      const { id } = await store.createSession({ appName: APP, userId: USER });
      const key = { appName: APP, userId: USER, sessionId: id };
      const interject = new FunctionTool({
        name: 'interject',
        description: 'Lets someone else write to the session meanwhile.',
        execute: async () => {
          // Another writer (no lease, as a store without leases would allow) appends mid-run.
          const fresh = (await store.getSession(key))!;
          await store.appendEvent({
            session: fresh,
            event: createEvent({ author: 'user', content: { role: 'user', parts: [{ text: 'interjection' }] } }),
          });
          return { ok: true };
        },
      });
      const model = new ScriptedModel(['a1', { functionCalls: [{ name: 'interject', id: 'c1' }] }, 'a3']);
      const runner = new Runner({
        appName: APP,
        agent: new LlmAgent({ name: 'bot', model, tools: [interject] }),
        sessionService: store,
        sessionCacheSize,
      });
      await prefill(store, id);
      await turn(runner, id, 'first');
      const failed = await runner.run({ userId: USER, sessionId: id, newMessage: 'second' });
      expect(failed.status).toBe('failed');
      expect(failed.error?.name).toBe('StaleSessionError');
      await turn(runner, id, 'third');
      seen.push(model.requests.at(-1)!.contents);
    }
    expect(texts(seen[0]!).slice(EARLIER)).toEqual(['first', 'a1', 'second', 'interjection', 'third']);
    expect(seen[0]).toEqual(seen[1]);
  });

  it('sees the events another runner (as another process would) stored between its turns', async () => {
    const store = new InMemorySessionService();
    const here = new Runner({
      appName: APP,
      agent: new LlmAgent({ name: 'bot', model: echoModel() }),
      sessionService: store,
    });
    const model = echoModel();
    const there = new Runner({ appName: APP, agent: new LlmAgent({ name: 'bot', model }), sessionService: store });
    const { id } = await store.createSession({ appName: APP, userId: USER });
    await prefill(store, id);
    await turn(here, id, 'one');
    await turn(there, id, 'two');
    await turn(here, id, 'three');
    await turn(there, id, 'four');

    expect(texts(model.requests.at(-1)!.contents).slice(EARLIER)).toEqual([
      'one',
      're: one',
      'two',
      're: two',
      'three',
      're: three',
      'four',
    ]);
    const stored = await store.getSession({ appName: APP, userId: USER, sessionId: id });
    expect(stored!.events).toHaveLength(EARLIER + 8);
  });

  it("reads user: and app: state written by the user's other sessions, and this session's own state, fresh at every turn", async () => {
    const store = new InMemorySessionService();
    const model = echoModel();
    const agent = new LlmAgent({
      name: 'bot',
      model,
      instruction: 'Speak {user:lang?}. Notice: {app:motd?}. Mood: {mood?}.',
    });
    const runner = new Runner({ appName: APP, agent, sessionService: store });
    const { id } = await store.createSession({ appName: APP, userId: USER });
    await prefill(store, id);
    await turn(runner, id, 'hello');
    expect(model.requests.at(-1)!.config?.systemInstruction).toContain('Speak . Notice: . Mood: .');

    const other = await store.createSession({ appName: APP, userId: USER });
    await store.appendEvent({
      session: other,
      event: createEvent({
        author: 'user',
        actions: { stateDelta: { 'user:lang': 'French', 'app:motd': 'closed Sunday' } },
      }),
    });
    await runner.updateSessionState({ userId: USER, sessionId: id, stateDelta: { mood: 'calm' } });
    const result = await turn(runner, id, 'again');

    expect(model.requests.at(-1)!.config?.systemInstruction).toContain(
      'Speak French. Notice: closed Sunday. Mood: calm.',
    );
    expect(result.state).toMatchObject({ 'user:lang': 'French', 'app:motd': 'closed Sunday', mood: 'calm' });
  });

  it('a session deleted and created again under the same id starts from nothing', async () => {
    const store = new InMemorySessionService();
    const model = echoModel();
    const runner = new Runner({ appName: APP, agent: new LlmAgent({ name: 'bot', model }), sessionService: store });
    const id = 'reused';
    await store.createSession({ appName: APP, userId: USER, sessionId: id });
    await prefill(store, id);
    await turn(runner, id, 'old 1');
    await turn(runner, id, 'old 2');
    await store.deleteSession({ appName: APP, userId: USER, sessionId: id });
    const reborn = await store.createSession({ appName: APP, userId: USER, sessionId: id });
    // Grown past the old copy's version by someone else, so versions alone would not tell.
    for (let i = 0; i < EARLIER + 10; i++) {
      await store.appendEvent({
        session: reborn,
        event: createEvent({ author: 'user', content: { role: 'user', parts: [{ text: `new ${i}` }] } }),
      });
    }
    await turn(runner, id, 'after');

    expect(texts(model.requests.at(-1)!.contents)).toEqual([
      ...Array.from({ length: EARLIER + 10 }, (_, i) => `new ${i}`),
      'after',
    ]);
  });

  it('an agent that changed the events list by hand makes the next turn read the session whole', async () => {
    const seen: string[][] = [];
    class Scribbler extends BaseAgent {
      protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
        seen.push(ctx.session.events.map((e) => texts(e.content ? [e.content] : []).join('')));
        // Not stored: a whole read never shows it, and neither may the next turn.
        if (seen.length === 1)
          ctx.session.events.push(
            createEvent({ author: this.name, content: { role: 'model', parts: [{ text: 'scribbled' }] } }),
          );
        yield createEvent({ author: this.name, content: { role: 'model', parts: [{ text: 'stored' }] } });
      }
    }
    const store = new CountingStore();
    const runner = new Runner({ appName: APP, agent: new Scribbler({ name: 'Scribbler' }), sessionService: store });
    const { id } = await store.createSession({ appName: APP, userId: USER });
    await prefill(store, id);
    for (const message of ['one', 'two', 'three']) await turn(runner, id, message);

    expect(store.reads.slice(1).map((r) => r.afterVersion)).toEqual([undefined, undefined, EARLIER + 4]);
    expect(seen.map((s) => s.slice(EARLIER))).toEqual([
      ['one'],
      ['one', 'stored', 'two'],
      ['one', 'stored', 'two', 'stored', 'three'],
    ]);
  });

  it('with a store that ignores afterVersion, or a wrapper that drops increment, every read is whole', async () => {
    for (const dropsOnlyIncrement of [false, true]) {
      const inner = new InMemorySessionService();
      const reads: (number | undefined)[] = [];
      const store: SessionService = {
        createSession: (p) => inner.createSession(p),
        getSession: async ({ afterVersion, ...p }) => {
          reads.push(afterVersion);
          // A store written before afterVersion existed ignores it; a careless wrapper passes it on
          // but rebuilds the answer without `increment` (its events are then only the new ones).
          const answer = await inner.getSession(
            dropsOnlyIncrement ? { ...p, ...(afterVersion === undefined ? {} : { afterVersion }) } : p,
          );
          if (!answer) return undefined;
          return {
            id: answer.id,
            appName: answer.appName,
            userId: answer.userId,
            state: answer.state,
            events: answer.events,
            lastUpdateTime: answer.lastUpdateTime,
            version: answer.version,
          };
        },
        listSessions: (p) => inner.listSessions(p),
        deleteSession: (p) => inner.deleteSession(p),
        appendEvent: (p) => inner.appendEvent(p),
      };
      const model = echoModel();
      const runner = new Runner({ appName: APP, agent: new LlmAgent({ name: 'bot', model }), sessionService: store });
      const { id } = await store.createSession({ appName: APP, userId: USER });
      await prefill(store, id);
      reads.length = 0;
      for (let i = 0; i < 4; i++) await turn(runner, id, `m${i}`);

      // One incremental try, answered without increment; then whole reads only.
      expect(reads).toEqual([undefined, EARLIER + 2, undefined, undefined, undefined]);
      expect(texts(model.requests.at(-1)!.contents)).toEqual([
        ...Array.from({ length: EARLIER }, (_, i) => `e${i}`),
        'm0',
        're: m0',
        'm1',
        're: m1',
        'm2',
        're: m2',
        'm3',
      ]);
    }
  });

  it('forgets the least recently run sessions beyond sessionCacheSize', async () => {
    const store = new CountingStore();
    const runner = new Runner({
      appName: APP,
      agent: new LlmAgent({ name: 'bot', model: echoModel() }),
      sessionService: store,
      sessionCacheSize: 2,
    });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await store.createSession({ appName: APP, userId: USER })).id);
    for (const id of ids) await prefill(store, id);
    for (const id of ids) await turn(runner, id, 'first');
    store.reads.length = 0;
    // ids[0] was forgotten when ids[2] was kept; ids[1] and ids[2] are read incrementally.
    for (const id of [ids[2]!, ids[1]!, ids[0]!]) await turn(runner, id, 'second');
    expect(store.reads.map((r) => [r.sessionId, r.afterVersion])).toEqual([
      [ids[2], EARLIER + 2],
      [ids[1], EARLIER + 2],
      [ids[0], undefined],
    ]);
  });

  it('refuses a sessionCacheSize that is not a whole number of at least 0, naming it', () => {
    const agent = new LlmAgent({ name: 'bot', model: echoModel() });
    for (const bad of [-1, 1.5, Number.NaN]) {
      expect(
        () => new Runner({ appName: APP, agent, sessionService: new InMemorySessionService(), sessionCacheSize: bad }),
      ).toThrow(ConfigurationError);
    }
    expect(
      () => new Runner({ appName: APP, agent, sessionService: new InMemorySessionService(), sessionCacheSize: -1 }),
    ).toThrow(/sessionCacheSize -1/);
  });
});
