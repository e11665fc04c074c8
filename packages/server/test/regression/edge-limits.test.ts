import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FunctionAgent, InMemorySessionService } from '@troupe/core';
import {
  createApp,
  type ErrorBody,
  type ErrorReport,
  serve,
  type ServerHandle,
  type WireEvent,
  type WireSession,
} from '../../src/index.js';
import { bankApp, call, createSession, message, readSse, scriptedApp } from '../helpers.js';

// Limits at the edge: deeply nested JSON passed validation and then failed inside the run or as a
// 500; nested __proto__ keys passed; an empty resume stored another copy of the interrupt at each
// call; an upload cut off by the client was logged as a server error with a stack; 5xx messages
// carried internal detail. Each is now refused or reported at the edge.

const handles: ServerHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close({ gracePeriodMs: 100 })));
});

/** `{"a":{"a":...{"a":1}}}`, `depth` objects deep. */
function nested(depth: number): string {
  return '{"a":'.repeat(depth - 1) + '{"a":1' + '}'.repeat(depth);
}

async function invalid(
  res: Response,
): Promise<{ status: number; code: string; field: string | undefined; message: string }> {
  const { error } = (await res.json()) as ErrorBody;
  return { status: res.status, code: error.code, field: error.field, message: error.message };
}

describe('JSON bodies are checked for nesting, sizes and reserved keys on every route', () => {
  it('nesting deeper than 64 levels is a 400 naming the field path, on every route with a body; 64 levels pass', async () => {
    const { app } = bankApp([]);
    const s = await createSession(app, 'bank', 'u');
    const run = (field: string, value: string) =>
      `{"appName":"bank","userId":"u","sessionId":"${s.id}","newMessage":{"role":"user","parts":[{"text":"hi"}]},"${field}":${value}}`;
    const deepField = `stateDelta${'.a'.repeat(63)}`;
    for (const [path, text, field] of [
      ['/run', run('stateDelta', nested(64)), deepField],
      ['/run_sse', run('input', nested(64)), `input${'.a'.repeat(63)}`],
      ['/apps/bank/users/u/sessions', `{"state":${nested(64)}}`, `state${'.a'.repeat(63)}`],
      [`/apps/bank/users/u/sessions/${s.id}/resume`, `{"responses":${nested(64)}}`, `responses${'.a'.repeat(63)}`],
    ] as const) {
      const res = await invalid(await call(app, 'POST', path, text));
      expect(res, path).toEqual({
        status: 400,
        code: 'LIMIT_EXCEEDED',
        field,
        message: expect.stringContaining('nested deeper than 64 levels'),
      });
      expect(res.message).toContain('jsonLimits.maxDepth');
    }
    // 64 levels including the body itself pass the check (the state then fails the size rules or runs).
    expect((await call(app, 'POST', '/apps/bank/users/u/sessions', `{"state":${nested(63)}}`)).status).toBe(200);
  });

  it('a megabyte of brackets is refused fast, before parsing; a 10 000-deep input is refused before it reaches the run (it used to run)', async () => {
    const { app } = scriptedApp(['ok'], { bodyLimit: 2_000_000 });
    const s = await createSession(app, 'chat', 'u');
    const started = Date.now();
    const brackets = await invalid(await call(app, 'POST', '/run', `{"input":${'['.repeat(1_000_000)}`));
    expect(brackets).toMatchObject({ status: 400, code: 'LIMIT_EXCEEDED', field: 'input' + '.0'.repeat(63) });
    expect(Date.now() - started).toBeLessThan(1000);
    const deepInput = `{"appName":"chat","userId":"u","sessionId":"${s.id}","input":${nested(10_000)}}`;
    expect(await invalid(await call(app, 'POST', '/run', deepInput))).toMatchObject({
      status: 400,
      code: 'LIMIT_EXCEEDED',
    });
    const stored = (await (await call(app, 'GET', `/apps/chat/users/u/sessions/${s.id}`)).json()) as WireSession;
    expect(stored.events).toEqual([]);
  });

  it('strings, arrays, objects and ids past their limits are 400s naming the field; the limits are createApp options', async () => {
    const { app } = scriptedApp([], { jsonLimits: { maxStringLength: 100, maxItems: 5 } });
    const base = { appName: 'chat', userId: 'u', sessionId: 's' };
    const cases: [unknown, string, RegExp][] = [
      [
        { ...base, newMessage: message('x'.repeat(101)) },
        'newMessage.parts.0.text',
        /string of 101 characters, over the limit of 100.*jsonLimits\.maxStringLength/,
      ],
      [
        { ...base, newMessage: { role: 'user', parts: Array.from({ length: 6 }, () => ({ text: 'x' })) } },
        'newMessage.parts',
        /6 elements, over the limit of 5.*jsonLimits\.maxItems/,
      ],
      [
        { ...base, newMessage: message('x'), stateDelta: { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 } },
        'stateDelta',
        /6 keys, over the limit of 5/,
      ],
      [
        { ...base, newMessage: message('x'), stateDelta: { ['k'.repeat(101)]: 1 } },
        `stateDelta.${'k'.repeat(64)}...`,
        /key of 101 characters/,
      ],
    ];
    for (const [body, field, text] of cases) {
      const res = await invalid(await call(app, 'POST', '/run', body));
      expect(res, field).toMatchObject({ status: 400, code: 'LIMIT_EXCEEDED', field });
      expect(res.message).toMatch(text);
    }
    const { app: plain } = scriptedApp([]);
    for (const field of ['appName', 'userId', 'sessionId']) {
      const res = await invalid(
        await call(plain, 'POST', '/run', { ...base, [field]: 'x'.repeat(257), newMessage: message('hi') }),
      );
      expect(res, field).toMatchObject({
        status: 400,
        code: 'INVALID_REQUEST',
        field,
        message: expect.stringContaining('at most 256 characters'),
      });
    }
    expect(() => scriptedApp([], { jsonLimits: { maxDepth: 0 } })).toThrow(
      /jsonLimits\.maxDepth is 0; it must be a positive whole number of levels/,
    );
  });

  it('__proto__, constructor and prototype are refused at any depth of state, stateDelta, input and responses (400 naming the path); nothing is stored', async () => {
    const { app, sent } = bankApp([{ functionCalls: [{ name: 'transfer_money', args: { amount: 5 }, id: 'c1' }] }]);
    const s = await createSession(app, 'bank', 'u');
    const run = (extra: string) =>
      `{"appName":"bank","userId":"u","sessionId":"${s.id}","newMessage":{"role":"user","parts":[{"text":"hi"}]},${extra}}`;
    for (const [path, text, field] of [
      [
        '/run',
        run('"stateDelta":{"profile":{"settings":{"__proto__":{"isAdmin":true}}}}'),
        'stateDelta.profile.settings.__proto__',
      ],
      ['/run_sse', run('"input":{"list":[{"constructor":{"prototype":1}}]}'), 'input.list.0.constructor'],
      ['/apps/bank/users/u/sessions', '{"state":{"a":[{"b":{"prototype":{}}}]}}', 'state.a.0.b.prototype'],
      [
        `/apps/bank/users/u/sessions/${s.id}/resume`,
        '{"responses":{"Banker:c1":{"confirmed":true,"payload":{"__proto__":{"x":1}}}}}',
        'responses.Banker:c1.payload.__proto__',
      ],
      ['/run', run('"stateDelta":{"constructor":1}'), 'stateDelta.constructor'],
    ] as const) {
      const res = await invalid(await call(app, 'POST', path, text));
      expect(res, path).toMatchObject({ status: 400, code: 'RESERVED_KEY', field });
      expect(res.message).toMatch(/is reserved.*rename it/);
    }
    expect(sent).toEqual([]);
    expect(
      ((await (await call(app, 'GET', `/apps/bank/users/u/sessions/${s.id}`)).json()) as WireSession).events,
    ).toEqual([]);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });
});

describe('a resume that answers nothing', () => {
  it('is a 400 that stores nothing (it used to store another copy of the interrupt at each call); answers still work', async () => {
    const { app, sent } = bankApp([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 5 }, id: 'c1' }] },
      'Sent.',
    ]);
    const s = await createSession(app, 'bank', 'u');
    const paused = (await (
      await call(app, 'POST', '/run', {
        appName: 'bank',
        userId: 'u',
        sessionId: s.id,
        newMessage: message('send 5'),
        invocationId: 'pay-5',
      })
    ).json()) as WireEvent[];
    expect(paused.at(-1)!.interrupt!.id).toBe('Banker:c1');
    const count = async () =>
      ((await (await call(app, 'GET', `/apps/bank/users/u/sessions/${s.id}`)).json()) as WireSession).events!.length;
    const before = await count();
    const path = `/apps/bank/users/u/sessions/${s.id}/resume`;
    for (const body of [{}, { responses: {} }, { responses: null }, { streaming: true }]) {
      const res = await invalid(await call(app, 'POST', path, body));
      expect(res, JSON.stringify(body)).toMatchObject({ status: 400, code: 'INVALID_REQUEST', field: 'responses' });
      expect(res.message).toMatch(/answers nothing.*"responses": \{ "<interrupt id>": true \}/);
    }
    const withId = await invalid(await call(app, 'POST', path, { invocationId: 'pay-5', responses: {} }));
    expect(withId).toMatchObject({
      status: 400,
      field: 'responses',
      message: expect.stringMatching(/invocation 'pay-5'.*waits for answers to 'Banker:c1'/),
    });
    expect(await count()).toBe(before);
    expect(sent).toEqual([]);

    const { events } = await readSse(await call(app, 'POST', path, { responses: { 'Banker:c1': true } }));
    expect(events.at(-1)!.content!.parts).toEqual([{ text: 'Sent.' }]);
    expect(sent).toEqual([5]);
  });
});

describe('failures are reported without internal detail, with a request id', () => {
  it('every 5xx body carries the request id (also in X-Request-Id and given to onError); no stack, no path', async () => {
    const inner = new InMemorySessionService();
    const reports: [unknown, ErrorReport][] = [];
    const broken = Object.assign(Object.create(inner) as InMemorySessionService, {
      listSessions: () =>
        Promise.reject(
          new TypeError(
            "Cannot read properties of undefined (reading 'rows') at /srv/app/node_modules/db/lib/pool.js:88",
          ),
        ),
    });
    const app = createApp({
      apps: { echo: new FunctionAgent({ name: 'echo', run: () => 'echo' }) },
      sessionService: broken,
      onError: (error, _request, report) => reports.push([error, report]),
    });
    const res = await call(app, 'GET', '/apps/echo/users/u/sessions');
    const requestId = res.headers.get('X-Request-Id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const { error } = (await res.json()) as ErrorBody;
    expect({ status: res.status, code: error.code, requestId: error.requestId }).toEqual({
      status: 500,
      code: 'INTERNAL',
      requestId,
    });
    expect(error.message).toBe(
      `The server failed to handle the request (INTERNAL); the server's log (onError) has the details. Request id: ${requestId}.`,
    );
    expect(JSON.stringify(error)).not.toMatch(/\/srv|pool\.js|rows|at /);
    expect(reports).toEqual([[expect.any(TypeError), { requestId, level: 'error' }]]);
    // Every answer has an id; only 5xx bodies repeat it.
    const ok = await call(app, 'GET', '/list-apps');
    expect(ok.headers.get('X-Request-Id')).toMatch(/^[0-9a-f-]{36}$/);
    const notFound = (await (await call(app, 'GET', '/apps/nope/graph')).json()) as ErrorBody;
    expect(notFound.error.requestId).toBeUndefined();
  });

  it('a body the client aborted mid-upload is one info-level report, not a server error', async () => {
    const reports: [unknown, ErrorReport][] = [];
    const app = createApp({
      apps: { echo: new FunctionAgent({ name: 'echo', run: () => 'echo' }) },
      onError: (error, _request, report) => reports.push([error, report]),
    });
    const handle = await serve(app, { port: 0 });
    handles.push(handle);
    // The client goes away once the server has the request and is reading its body.
    const received = new Promise<ServerResponse>((resolve) =>
      handle.server.once('request', (_req, res) => resolve(res)),
    );
    const socket = connect(handle.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /run HTTP/1.1\r\nHost: 127.0.0.1:${handle.port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"appName":`,
    );
    const response = await received;
    socket.destroy();
    await expect.poll(() => reports.length, { timeout: 10_000 }).toBe(1);
    // Once the server is done with the response, nothing else is reported.
    if (!response.closed) await new Promise((resolve) => response.once('close', resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(reports).toHaveLength(1);
    const [error, report] = reports[0]!;
    expect(report).toEqual({ requestId: expect.any(String), level: 'info' });
    expect(error).toMatchObject({
      code: 'REQUEST_ABORTED',
      message: expect.stringMatching(/^The client stopped sending the request body before its declared 1000 bytes/),
    });
    // The server goes on answering.
    expect((await fetch(`${handle.url}/health`)).status).toBe(200);
  });
});
