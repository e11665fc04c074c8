import { describe, expect, it } from 'vitest';
import { deferred } from '../../core/test/wait.js';
import type { WireEvent, WireSession } from '../src/index.js';
import { call, createSession, eventually, expectError, message, parseFrames } from './helpers.js';
import { relayApp } from './relay-app.js';

// POST /apps/{app}/users/{user}/sessions/{id}/cancel answers only once the run has ended and its
// CANCELLED event is stored, so a client may read the session right after it (the dev UI's Stop).

const body = (sessionId: string, text: string) => ({
  appName: 'relay',
  userId: 'u',
  sessionId,
  newMessage: message(text),
});
const cancelPath = (sessionId: string, user = 'u') => `/apps/relay/users/${user}/sessions/${sessionId}/cancel`;

async function readAll(res: Response): Promise<string> {
  const reader = res.body!.getReader();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += new TextDecoder().decode(value);
  }
}

describe('POST .../sessions/{id}/cancel', () => {
  it('stops a streamed run and answers with its stored CANCELLED event; the stream ends with it; the next message runs', async () => {
    const relay = relayApp();
    const s = await createSession(relay.app, 'relay', 'u');
    const stream = await call(relay.app, 'POST', '/run_sse', body(s.id, 'slow go'));
    const frames = readAll(stream);
    await eventually(() => expect(relay.started).toContain('second:slow go'));

    const res = await call(relay.app, 'POST', cancelPath(s.id));
    expect(res.status).toBe(200);
    const ended = (await res.json()) as WireEvent;
    expect(ended).toMatchObject({
      errorCode: 'CANCELLED',
      errorMessage: expect.stringMatching(
        /cancelled on request \(POST \/apps\/relay\/users\/u\/sessions\/.+\/cancel\)/,
      ),
    });

    // Already stored when the answer came: a read right after it sees the cancellation, once, last.
    const session = (await (
      await call(relay.app, 'GET', `/apps/relay/users/u/sessions/${s.id}`)
    ).json()) as WireSession;
    expect(session.events!.at(-1)).toEqual(ended);
    expect(session.events!.filter((e) => e.errorCode === 'CANCELLED')).toHaveLength(1);
    expect(relay.outcomes).toEqual(['cancelled']);
    // The streaming client got the same event as its last frame.
    expect(parseFrames(await frames).map((e) => e.id)).toEqual([session.events![1]!.id, ended.id]);
    expect(relay.started).toEqual(['first:slow go', 'second:slow go']);

    const next = await call(relay.app, 'POST', '/run', body(s.id, 'again'));
    expect(next.status).toBe(200);
    expect(((await next.json()) as WireEvent[]).at(-1)!.content?.parts).toEqual([{ text: 'third done' }]);
  });

  it('stops a /run: its client gets the events ending with the same CANCELLED event', async () => {
    const relay = relayApp();
    const s = await createSession(relay.app, 'relay', 'u');
    const running = call(relay.app, 'POST', '/run', body(s.id, 'slow go'));
    await eventually(() => expect(relay.started).toContain('second:slow go'));
    const ended = (await (await call(relay.app, 'POST', cancelPath(s.id))).json()) as WireEvent;
    const events = (await (await running).json()) as WireEvent[];
    expect(events.map((e) => e.errorCode ?? e.content?.parts[0])).toEqual([{ text: 'first done' }, 'CANCELLED']);
    expect(events.at(-1)).toEqual(ended);
  });

  it('does not wait for a streaming client that stopped reading, nor for a step that ignores the signal', async () => {
    const held = deferred();
    const relay = relayApp({ ignoresSignalUntil: held.promise });
    const s = await createSession(relay.app, 'relay', 'u');
    const stream = await call(relay.app, 'POST', '/run_sse', body(s.id, 'slow go'));
    const reader = stream.body!.getReader();
    await reader.read();
    await eventually(() => expect(relay.started).toContain('second:slow go'));
    // The step works until released, so the answer coming at all shows the cancel did not wait for it.
    const res = await call(relay.app, 'POST', cancelPath(s.id));
    expect(res.status).toBe(200);
    expect(relay.finished).not.toContain('second:slow go');
    // The client that comes back finds the cancellation waiting, then the end of the stream.
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += new TextDecoder().decode(chunk.value);
    expect(parseFrames(rest).at(-1)).toMatchObject({ errorCode: 'CANCELLED' });
    held.resolve();
    await relay.secondDone();
    expect(relay.started).not.toContain('third:slow go');
  });

  it('404 NO_RUN when nothing runs on the session in this server; 404 for an unknown app', async () => {
    const relay = relayApp();
    const s = await createSession(relay.app, 'relay', 'u');
    expect(await expectError(await call(relay.app, 'POST', cancelPath(s.id)), 404, 'NO_RUN')).toMatch(
      /Nothing is running on session/,
    );
    await call(relay.app, 'POST', '/run', body(s.id, 'quick'));
    await expectError(await call(relay.app, 'POST', cancelPath(s.id)), 404, 'NO_RUN');
    await expectError(
      await call(relay.app, 'POST', `/apps/nope/users/u/sessions/${s.id}/cancel`),
      404,
      'APP_NOT_FOUND',
    );
  });

  it("needs the session's user (or an admin) and the server's own origin", async () => {
    const relay = relayApp({
      app: { auth: { tokens: { 'alice-token': 'alice', 'bob-token': 'bob', 'ops-token': '*' } } },
    });
    const alice = { Authorization: 'Bearer alice-token' };
    const s = await createSession(relay.app, 'relay', 'alice', undefined, alice);
    const stream = await call(relay.app, 'POST', '/run_sse', { ...body(s.id, 'slow go'), userId: 'alice' }, alice);
    const frames = readAll(stream);
    await eventually(() => expect(relay.started).toContain('second:slow go'));

    await expectError(await call(relay.app, 'POST', cancelPath(s.id, 'alice')), 401, 'UNAUTHORIZED');
    await expectError(
      await call(relay.app, 'POST', cancelPath(s.id, 'alice'), undefined, { Authorization: 'Bearer bob-token' }),
      403,
      'FORBIDDEN',
    );
    await expectError(
      await call(relay.app, 'POST', cancelPath(s.id, 'alice'), undefined, { ...alice, Origin: 'https://evil.example' }),
      403,
      'ORIGIN_NOT_ALLOWED',
    );
    expect(relay.outcomes).toEqual([]);

    const res = await call(relay.app, 'POST', cancelPath(s.id, 'alice'), undefined, {
      Authorization: 'Bearer ops-token',
    });
    expect(res.status).toBe(200);
    expect(parseFrames(await frames).at(-1)).toMatchObject({ errorCode: 'CANCELLED' });
  });
});
