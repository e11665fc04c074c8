import { describe, expect, it } from 'vitest';
import { InMemorySessionService, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { deferred } from '../../core/test/wait.js';
import { createApp, type WireEvent, type WireSession } from '../src/index.js';
import { bankApp, call, createSession, expectError, message, runBody, readSse, scriptedApp } from './helpers.js';

describe('POST /run', () => {
  it('runs a turn and answers with the JSON array of its events (ids, seconds timestamps)', async () => {
    const { app } = scriptedApp(['Hello Alice!']);
    const s = await createSession(app, 'chat', 'alice');
    const res = await call(app, 'POST', '/run', {
      appName: 'chat',
      userId: 'alice',
      sessionId: s.id,
      newMessage: message('hi'),
      stateDelta: { mood: 'good' },
    });
    expect(res.status).toBe(200);
    const events = (await res.json()) as WireEvent[];
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      author: 'assistant',
      content: { role: 'model', parts: [{ text: 'Hello Alice!' }] },
    });
    expect(events[0]!.id).toEqual(expect.any(String));
    expect(events[0]!.timestamp).toBeCloseTo(Date.now() / 1000, -1);
    const session = (await (await call(app, 'GET', `/apps/chat/users/alice/sessions/${s.id}`)).json()) as WireSession;
    expect(session.state).toEqual({ mood: 'good' });
    expect(session.events!.map((e) => e.id)).toContain(events[0]!.id);
  });

  it('accepts ADK snake_case bodies and a Troupe structured input', async () => {
    const { app, model } = scriptedApp(['ok', 'ok again']);
    const s = await createSession(app, 'chat', 'alice');
    const snake = await call(app, 'POST', '/run', {
      app_name: 'chat',
      user_id: 'alice',
      session_id: s.id,
      new_message: message('hi'),
      state_delta: null,
    });
    expect(snake.status).toBe(200);
    const withInput = await call(app, 'POST', '/run', {
      appName: 'chat',
      userId: 'alice',
      sessionId: s.id,
      input: { request: 'from input' },
    });
    expect(withInput.status).toBe(200);
    expect(JSON.stringify(model.requests[1]!.contents)).toContain('from input');
  });

  it('a failure inside the run is not an HTTP error: the events end with the error event', async () => {
    const { app } = scriptedApp([{ error: 'model exploded', status: 500 }]);
    const s = await createSession(app, 'chat', 'alice');
    const res = await call(app, 'POST', '/run', runBody(s, 'hi'));
    expect(res.status).toBe(200);
    const events = (await res.json()) as WireEvent[];
    expect(events.at(-1)).toMatchObject({
      errorCode: expect.any(String),
      errorMessage: expect.stringMatching(/model exploded/),
    });
    // The session stays usable.
    const session = (await (await call(app, 'GET', `/apps/chat/users/alice/sessions/${s.id}`)).json()) as WireSession;
    expect(session.events!.at(-1)!.errorMessage).toMatch(/model exploded/);
  });

  it('400 names the field of a bad body', async () => {
    const { app } = scriptedApp([]);
    const base = { appName: 'chat', userId: 'alice', sessionId: 's', newMessage: message('hi') };
    const cases: [unknown, string][] = [
      [{ ...base, appName: undefined }, 'appName'],
      [{ ...base, userId: 7 }, 'userId'],
      [{ ...base, newMessage: undefined }, 'newMessage'],
      [{ ...base, newMessage: { role: 'user', parts: [] } }, 'newMessage.parts'],
      [{ ...base, newMessage: { role: 'user', parts: [{ image: 'x' }] } }, 'newMessage.parts.0'],
      [{ ...base, newMessage: { role: 'model', parts: [{ text: 'x' }] } }, 'newMessage.role'],
      [{ ...base, stateDelta: [1] }, 'stateDelta'],
      [{ ...base, streaming: 'yes' }, 'streaming'],
    ];
    for (const [body, field] of cases) {
      const res = await call(app, 'POST', '/run', body);
      const error = (await res.json()) as { error: { code: string; field: string; message: string } };
      expect([res.status, error.error.code, error.error.field], JSON.stringify(body)).toEqual([
        400,
        'INVALID_REQUEST',
        field,
      ]);
      expect(error.error.message).toContain(field);
    }
    await expectError(await call(app, 'POST', '/run', 'not json'), 400, 'INVALID_JSON');
    await expectError(await call(app, 'POST', '/run'), 400, 'INVALID_REQUEST');
    // A reserved state key is refused by name rather than dropped.
    await expectError(
      await call(
        app,
        'POST',
        '/run',
        `{"appName":"chat","userId":"alice","sessionId":"s","newMessage":{"role":"user","parts":[{"text":"x"}]},"stateDelta":{"__proto__":{}}}`,
      ),
      400,
      'RESERVED_KEY',
    );
  });

  it('404 for an unknown app or session', async () => {
    const { app } = scriptedApp([]);
    await expectError(
      await call(app, 'POST', '/run', { appName: 'nope', userId: 'alice', sessionId: 's', newMessage: message('hi') }),
      404,
      'APP_NOT_FOUND',
    );
    const msg = await expectError(
      await call(app, 'POST', '/run', {
        appName: 'chat',
        userId: 'alice',
        sessionId: 'missing',
        newMessage: message('hi'),
      }),
      404,
      'SESSION_NOT_FOUND',
    );
    expect(msg).toMatch(/missing/);
    await expectError(
      await call(app, 'POST', '/run_sse', {
        appName: 'chat',
        userId: 'alice',
        sessionId: 'missing',
        newMessage: message('hi'),
      }),
      404,
      'SESSION_NOT_FOUND',
    );
  });

  it('409 for a busy session (SessionBusyError) and for open interrupts (PendingInterruptError)', async () => {
    // The first run holds the session while its model call waits for the test.
    const calling = deferred();
    const release = deferred();
    const { app } = scriptedApp([
      async () => {
        calling.resolve();
        await release.promise;
        return 'slow answer';
      },
    ]);
    const s = await createSession(app, 'chat', 'alice');
    const body = { appName: 'chat', userId: 'alice', sessionId: s.id, newMessage: message('hi') };
    const first = call(app, 'POST', '/run', body);
    await calling.promise;
    await expectError(await call(app, 'POST', '/run', body), 409, 'SESSION_BUSY');
    await expectError(await call(app, 'POST', '/run_sse', body), 409, 'SESSION_BUSY');
    await expectError(await call(app, 'DELETE', `/apps/chat/users/alice/sessions/${s.id}`), 409, 'SESSION_BUSY');
    release.resolve();
    expect((await first).status).toBe(200);

    const bank = bankApp([{ functionCalls: [{ name: 'transfer_money', args: { amount: 500 }, id: 'c1' }] }]);
    const b = await createSession(bank.app, 'bank', 'alice');
    const paused = (await (await call(bank.app, 'POST', '/run', runBody(b, 'send 500'))).json()) as WireEvent[];
    expect(paused.at(-1)!.interrupt).toMatchObject({ id: 'Banker:c1', kind: 'confirmation' });
    const pending = await expectError(
      await call(bank.app, 'POST', '/run', runBody(b, 'hello?')),
      409,
      'PENDING_INTERRUPT',
    );
    expect(pending).toMatch(/Banker:c1/);
    await expectError(await call(bank.app, 'POST', '/run_sse', runBody(b, 'hello?')), 409, 'PENDING_INTERRUPT');
  });

  it('413 for a body over the limit', async () => {
    const { app } = scriptedApp([], { bodyLimit: 1024 });
    const big = { appName: 'chat', userId: 'alice', sessionId: 's', newMessage: message('x'.repeat(2000)) };
    const msg = await expectError(await call(app, 'POST', '/run', big), 413, 'PAYLOAD_TOO_LARGE');
    expect(msg).toMatch(/1024 bytes/);
    await expectError(
      await call(app, 'POST', '/apps/chat/users/alice/sessions', { state: { blob: 'y'.repeat(2000) } }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
  });
});

describe('POST /run_sse', () => {
  it('streams each event as one frame, one data: line of JSON written in one chunk, with ids and seconds timestamps', async () => {
    const coordinatorModel = new ScriptedModel([
      { functionCalls: [{ name: 'transfer_to_agent', args: { agent_name: 'helper' }, id: 't1' }] },
    ]);
    const helper = new LlmAgent({ name: 'helper', description: 'Helps.', model: new ScriptedModel(['Helper here.']) });
    const root = new LlmAgent({ name: 'coordinator', model: coordinatorModel, subAgents: [helper] });
    const multi = createApp({ apps: { team: root }, sessionService: new InMemorySessionService() });
    const s = await createSession(multi, 'team', 'alice');
    const res = await call(multi, 'POST', '/run_sse', {
      appName: 'team',
      userId: 'alice',
      sessionId: s.id,
      newMessage: message('help'),
      streaming: false,
    });
    const { chunks, events } = await readSse(res);
    expect(chunks.length).toBe(events.length);
    for (const chunk of chunks) expect(chunk).toMatch(/^data: \{[^\n]*\}\n\n$/);
    expect(events.map((e) => e.author)).toEqual(['coordinator', 'coordinator', 'helper']);
    expect(events[1]!.actions.transferToAgent).toBe('helper');
    expect(events.map((e) => e.path)).toEqual(['coordinator', 'coordinator', 'coordinator/helper']);
    for (const event of events) {
      expect(event.id).toEqual(expect.any(String));
      expect(event.timestamp).toBeGreaterThan(1e9);
      expect(event.timestamp).toBeLessThan(1e11);
      expect(event.partial).toBeUndefined();
    }
    // The streamed events are the stored ones.
    const session = (await (await call(multi, 'GET', `/apps/team/users/alice/sessions/${s.id}`)).json()) as WireSession;
    expect(session.events!.slice(1).map((e) => e.id)).toEqual(events.map((e) => e.id));
  });

  it('streams partial text events when streaming is true, then the whole text once', async () => {
    const { app } = scriptedApp([{ chunks: ['Hel', 'lo ', 'there'] }]);
    const s = await createSession(app, 'chat', 'alice');
    const { events } = await readSse(
      await call(app, 'POST', '/run_sse', {
        appName: 'chat',
        userId: 'alice',
        sessionId: s.id,
        newMessage: message('hi'),
        streaming: true,
      }),
    );
    const partial = events.filter((e) => e.partial);
    expect(partial.map((e) => e.content!.parts.map((p) => ('text' in p ? p.text : '')).join(''))).toEqual([
      'Hel',
      'lo ',
      'there',
    ]);
    const final = events.filter((e) => !e.partial);
    expect(final).toHaveLength(1);
    expect(final[0]!.content!.parts).toEqual([{ text: 'Hello there' }]);
    const session = (await (await call(app, 'GET', `/apps/chat/users/alice/sessions/${s.id}`)).json()) as WireSession;
    expect(session.events!.some((e) => e.partial)).toBe(false);
  });

  it('without streaming no partial events are sent', async () => {
    const { app } = scriptedApp([{ chunks: ['Hel', 'lo'] }]);
    const s = await createSession(app, 'chat', 'alice');
    const { events } = await readSse(
      await call(app, 'POST', '/run_sse', {
        appName: 'chat',
        userId: 'alice',
        sessionId: s.id,
        newMessage: message('hi'),
        streaming: false,
      }),
    );
    expect(events.map((e) => e.partial ?? false)).toEqual([false]);
  });

  it('a failure inside the run arrives as a frame carrying the error event', async () => {
    const { app } = scriptedApp([{ error: 'rate limited', status: 429 }]);
    const s = await createSession(app, 'chat', 'alice');
    const { events } = await readSse(await call(app, 'POST', '/run_sse', runBody(s, 'hi')));
    expect(events.at(-1)).toMatchObject({
      errorCode: expect.any(String),
      errorMessage: expect.stringMatching(/rate limited/),
    });
    expect(events.at(-1)!.id).toEqual(expect.any(String));
  });
});
