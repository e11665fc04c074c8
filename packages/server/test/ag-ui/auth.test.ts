import { request } from 'node:http';
import { EventType, type StateSnapshotEvent } from '@ag-ui/client';
import { describe, expect, it, vi } from 'vitest';
import { FunctionTool, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { client, input, ofType, post, runOnce, say, serveApps } from './helpers.js';

const tokens = { 'alice-token': 'alice', 'bob-token': 'bob', 'ops-token': '*' };
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

function remembering() {
  const remember = new FunctionTool({
    name: 'remember',
    description: 'Remembers a fact.',
    execute: (_args, ctx) => void ctx.state.set('fact', 'alice likes tea'),
  });
  const model = new ScriptedModel([
    { functionCalls: [{ name: 'remember' }] },
    'Noted.',
    'Hello, stranger.',
    'Hi Carol.',
    'Noted your preference.',
  ]);
  return new LlmAgent({ name: 'assistant', model, tools: [remember] });
}

describe('AG-UI: auth and the state policy', () => {
  it('needs a token; a thread belongs to the token’s user, and another user can neither name that user nor see the thread', async () => {
    const served = await serveApps({ chat: remembering() }, { auth: { tokens } });
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const anonymous = client(served, 'chat');
    say(anonymous, 'Hi');
    await expect(anonymous.runAgent()).rejects.toMatchObject({ status: 401 });
    quiet.mockRestore();

    const alice = client(served, 'chat', { headers: bearer('alice-token'), threadId: 'shared-name' });
    say(alice, 'Remember that I like tea');
    await runOnce(alice);
    expect(alice.state).toEqual({ fact: 'alice likes tea' });
    const aliceEvents = (await served.sessionService.getSession({
      appName: 'chat',
      userId: 'alice',
      sessionId: 'shared-name',
    }))!.events.length;

    const asAlice = await post(
      served,
      'chat',
      input('shared-name', 'Tell me her facts', { forwardedProps: { userId: 'alice' } }),
      bearer('bob-token'),
    );
    expect(asAlice.status).toBe(403);
    expect(await asAlice.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });

    // The same thread id is bob's own, new thread.
    const bob = client(served, 'chat', { headers: bearer('bob-token'), threadId: 'shared-name' });
    say(bob, 'What do you know?');
    const bobRun = await runOnce(bob);
    expect(ofType<StateSnapshotEvent>(bobRun, EventType.STATE_SNAPSHOT)[0]!.snapshot).toEqual({});
    expect(bobRun.finished).toMatchObject({ result: 'Hello, stranger.' });
    expect(
      (await served.sessionService.getSession({ appName: 'chat', userId: 'alice', sessionId: 'shared-name' }))!.events,
    ).toHaveLength(aliceEvents);
    expect(
      await served.sessionService.getSession({ appName: 'chat', userId: 'bob', sessionId: 'shared-name' }),
    ).toBeDefined();

    // An admin token may act for a user it names.
    const ops = client(served, 'chat', { headers: bearer('ops-token') });
    say(ops, 'Hi');
    const opsRun = await runOnce(ops, { forwardedProps: { userId: 'carol' } });
    expect(opsRun.events[0]).toMatchObject({ metadata: { troupe: { userId: 'carol' } } });
    expect(
      await served.sessionService.getSession({ appName: 'chat', userId: 'carol', sessionId: ops.threadId }),
    ).toBeDefined();
  });

  it('writes only what the client changed in its state, under the same policy as stateDelta', async () => {
    const served = await serveApps({ chat: remembering() }, { auth: { tokens }, stateLimits: { maxValueBytes: 100 } });
    const forbidden = await post(
      served,
      'chat',
      input('t1', 'Hi', { state: { 'app:mode': 'admin' } }),
      bearer('bob-token'),
    );
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ error: { code: 'STATE_KEY_FORBIDDEN', field: 'state.app:mode' } });
    const tooLarge = await post(
      served,
      'chat',
      input('t1', 'Hi', { state: { notes: 'x'.repeat(200) } }),
      bearer('bob-token'),
    );
    expect(tooLarge.status).toBe(400);
    expect(await tooLarge.json()).toMatchObject({ error: { code: 'STATE_TOO_LARGE', field: 'state.notes' } });
    expect(await served.sessionService.getSession({ appName: 'chat', userId: 'bob', sessionId: 't1' })).toBeUndefined();

    // An admin set an app: key; a user's client sends it back unchanged with its own change, which is no write of app: state.
    const admin = client(served, 'chat', { headers: bearer('ops-token'), initialState: { 'app:mode': 'calm' } });
    say(admin, 'Remember');
    await runOnce(admin, { forwardedProps: { userId: 'bob' } });
    const bob = client(served, 'chat', {
      headers: bearer('bob-token'),
      initialState: { 'app:mode': 'calm', 'user:theme': 'dark' },
    });
    say(bob, 'Hi');
    const run = await runOnce(bob);
    expect(ofType<StateSnapshotEvent>(run, EventType.STATE_SNAPSHOT)[0]!.snapshot).toEqual({
      'app:mode': 'calm',
      'user:theme': 'dark',
    });
    const session = await served.sessionService.getSession({ appName: 'chat', userId: 'bob', sessionId: bob.threadId });
    expect(session!.events[0]!.actions.stateDelta).toEqual({ 'user:theme': 'dark' });
  });

  it('refuses other web pages and rebound host names, as every route does', async () => {
    const served = await serveApps({ chat: remembering() }, { allowedOrigins: ['http://localhost:5173'] });
    const foreign = await post(served, 'chat', input('t1', 'Hi'), { Origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: { code: 'ORIGIN_NOT_ALLOWED' } });
    const preflight = await fetch(`${served.url}/ag-ui/chat`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:5173',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('Access-Control-Allow-Origin')).toBe('http://localhost:5173');
    // fetch sets Host itself; a DNS-rebinding page's requests carry the attacker's name.
    const rebound = await new Promise<number | undefined>((resolve, reject) => {
      request(
        `${served.url}/ag-ui/chat/capabilities`,
        { headers: { Host: `attacker.example:${served.server.port}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      )
        .on('error', reject)
        .end();
    });
    expect(rebound).toBe(403);
  });
});
