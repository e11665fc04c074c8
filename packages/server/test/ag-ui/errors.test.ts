import { EventType, type RunErrorEvent } from '@ag-ui/client';
import { describe, expect, it } from 'vitest';
import { LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { AG_UI_USER } from '../../src/index.js';
import { eventually } from '../helpers.js';
import { client, input, ofType, post, runOnce, say, serveApps } from './helpers.js';

describe('AG-UI: failures and refusals', () => {
  it('a failing run ends with RUN_ERROR carrying the stored error event’s code and message; the thread goes on', async () => {
    const model = new ScriptedModel([
      { text: 'Thinking...' },
      { error: 'the provider is down', status: 503 },
      'Back again.',
    ]);
    const served = await serveApps({ chat: new LlmAgent({ name: 'assistant', model }) });
    const agent = client(served, 'chat');
    say(agent, 'One');
    await runOnce(agent);
    say(agent, 'Two');
    const failed = await runOnce(agent);
    expect(failed.types.at(-1)).toBe(EventType.RUN_ERROR);
    expect(failed.finished).toBeUndefined();
    expect(ofType<RunErrorEvent>(failed, EventType.RUN_ERROR)[0]).toMatchObject({
      code: 'MODEL',
      message: expect.stringContaining('the provider is down'),
    });
    const session = await served.sessionService.getSession({
      appName: 'chat',
      userId: AG_UI_USER,
      sessionId: agent.threadId,
    });
    expect(session!.events.at(-1)).toMatchObject({ errorCode: 'MODEL' });

    say(agent, 'Three');
    const again = await runOnce(agent);
    expect(again.finished).toMatchObject({ outcome: { type: 'success' }, result: 'Back again.' });
  });

  it('refuses malformed input before any stream starts, naming the field', async () => {
    const served = await serveApps({ chat: new LlmAgent({ name: 'assistant', model: new ScriptedModel([]) }) });
    const cases: [unknown, number, string, string | undefined][] = [
      [{ runId: 'r1', messages: [] }, 400, 'INVALID_REQUEST', 'threadId'],
      [input('t1', 'hi', { runId: 'has spaces' }), 400, 'INVALID_REQUEST', 'runId'],
      [input('t1', 'hi', { state: ['not', 'an', 'object'] }), 400, 'INVALID_REQUEST', 'state'],
      [
        input('t1', 'hi', { messages: [{ id: 'a1', role: 'assistant', content: 'no user message' }] }),
        400,
        'INVALID_REQUEST',
        'messages',
      ],
      [
        '{"threadId": "t1", "runId": "r1", "messages": [], "state": {"__proto__": {"admin": true}}}',
        400,
        'RESERVED_KEY',
        'state.__proto__',
      ],
      ['{not json', 400, 'INVALID_JSON', undefined],
    ];
    for (const [body, status, code, field] of cases) {
      const res = await post(served, 'chat', body);
      expect({ status: res.status, error: ((await res.json()) as { error: unknown }).error }).toMatchObject({
        status,
        error: { code, ...(field ? { field } : {}) },
      });
    }
    const unknownApp = await post(served, 'nope', input('t1', 'hi'));
    expect(unknownApp.status).toBe(404);
    // Nothing was stored, not even the thread a refused input named.
    expect((await served.sessionService.listSessions({ appName: 'chat', userId: AG_UI_USER })).sessions).toEqual([]);
  });

  it('a run id is an invocation id: sending the same run again is a 409 that stores nothing', async () => {
    const served = await serveApps({ chat: new LlmAgent({ name: 'assistant', model: new ScriptedModel(['Once.']) }) });
    const body = input('t-retry', 'Hello', { runId: 'run-42' });
    const first = await post(served, 'chat', body);
    expect(first.status).toBe(200);
    await first.text();
    const retry = await post(served, 'chat', body);
    expect(retry.status).toBe(409);
    expect(await retry.json()).toMatchObject({ error: { code: 'INVOCATION_EXISTS' } });
    const session = await served.sessionService.getSession({
      appName: 'chat',
      userId: AG_UI_USER,
      sessionId: 't-retry',
    });
    expect(session!.events.map((e) => e.invocationId)).toEqual(['run-42', 'run-42']);
  });

  it('the session’s cancel route ends the run with the cancelled outcome; a client that goes away cancels its run', async () => {
    const model = new ScriptedModel([
      { delayMs: 10_000, reply: 'Too late.' },
      { delayMs: 10_000, reply: 'Too late.' },
    ]);
    const served = await serveApps({ chat: new LlmAgent({ name: 'assistant', model }) });
    const agent = client(served, 'chat');
    say(agent, 'Take your time');
    const running = runOnce(agent);
    await eventually(() => expect(model.callCount).toBe(1));
    const cancel = await fetch(`${served.url}/apps/chat/users/${AG_UI_USER}/sessions/${agent.threadId}/cancel`, {
      method: 'POST',
    });
    expect(cancel.status).toBe(200);
    const run = await running;
    expect(run.finished).toMatchObject({ outcome: { type: 'cancelled' } });

    const gone = new AbortController();
    const res = await fetch(`${served.url}/ag-ui/chat`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(input(agent.threadId, 'Again')),
      signal: gone.signal,
    });
    expect(res.status).toBe(200);
    await eventually(() => expect(model.callCount).toBe(2));
    gone.abort();
    await eventually(async () => {
      const session = await served.sessionService.getSession({
        appName: 'chat',
        userId: AG_UI_USER,
        sessionId: agent.threadId,
      });
      expect(session!.events.filter((e) => e.errorCode === 'CANCELLED')).toHaveLength(2);
    });
  });
});
