import { describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../src/index.js';
import { bankApp, call, createSession, heldToolApp, message, readSse, runBody, scriptedApp } from '../helpers.js';

// Core's errors tell code calling the library what to do ("runner.resume({ responses })",
// "runner.sessionService.createSession(...)"); a client of the HTTP API has no runner, so the
// server tells it the route to call instead.

/** Advice only code holding a Runner or a SessionService can follow. */
const IN_PROCESS = /runner\.|sessionService\.|RunResult|runConfig|autoCreateSession|leaseTtlMs/;

async function errorOf(res: Response): Promise<{ status: number; code: string; message: string }> {
  const { error } = (await res.json()) as ErrorBody;
  return { status: res.status, code: error.code, message: error.message };
}

/** A bank session paused on its transfer's confirmation 'Banker:c1'. */
async function pausedBank() {
  const bank = bankApp([{ functionCalls: [{ name: 'transfer_money', args: { amount: 5 }, id: 'c1' }] }, 'Sent.']);
  const s = await createSession(bank.app, 'bank', 'alice');
  const { events } = await readSse(
    await call(bank.app, 'POST', '/run_sse', { ...runBody(s, 'send 5'), invocationId: 'pay-5' }),
  );
  expect(events.at(-1)!.interrupt?.id).toBe('Banker:c1');
  return { ...bank, sessionId: s.id };
}

describe('HTTP errors say which route to call, not what a Runner would do', () => {
  it('404 SESSION_NOT_FOUND from /run names the route that creates the session', async () => {
    const { app } = scriptedApp(['hi']);
    const res = await call(app, 'POST', '/run', {
      appName: 'chat',
      userId: 'u',
      sessionId: 'nope',
      newMessage: message('hi'),
    });
    const error = await errorOf(res);
    expect([error.status, error.code]).toEqual([404, 'SESSION_NOT_FOUND']);
    expect(error.message).not.toMatch(IN_PROCESS);
    expect(error.message).toContain("Session 'nope' not found for app 'chat' and user 'u'.");
    expect(error.message).toContain('POST /apps/chat/users/u/sessions/nope');
  });

  it('409 PENDING_INTERRUPT names the resume route of the session', async () => {
    const { app, sessionId } = await pausedBank();
    const error = await errorOf(await call(app, 'POST', '/run', runBody(session(sessionId), 'hello')));
    expect([error.status, error.code]).toEqual([409, 'PENDING_INTERRUPT']);
    expect(error.message).not.toMatch(IN_PROCESS);
    expect(error.message).toContain('Banker:c1');
    expect(error.message).toContain(`POST /apps/bank/users/alice/sessions/${sessionId}/resume`);
  });

  it('409 INVOCATION_EXISTS names the resume route with that invocationId', async () => {
    const { app } = scriptedApp(['one', 'two']);
    const s = await createSession(app, 'chat', 'u');
    expect((await call(app, 'POST', '/run', { ...runBody(s, 'hi'), invocationId: 'job-1' })).status).toBe(200);
    const error = await errorOf(await call(app, 'POST', '/run', { ...runBody(s, 'hi'), invocationId: 'job-1' }));
    expect([error.status, error.code]).toEqual([409, 'INVOCATION_EXISTS']);
    expect(error.message).not.toMatch(IN_PROCESS);
    expect(error.message).toContain(`POST /apps/chat/users/u/sessions/${s.id}/resume`);
    expect(error.message).toContain('"invocationId": "job-1"');
  });

  it('400 INTERRUPT_RESPONSE for an unknown interrupt id says where the open ones are listed', async () => {
    const { app, sessionId } = await pausedBank();
    const error = await errorOf(
      await call(app, 'POST', `/apps/bank/users/alice/sessions/${sessionId}/resume`, {
        responses: { 'Banker:nope': true },
      }),
    );
    expect([error.status, error.code]).toEqual([400, 'INTERRUPT_RESPONSE']);
    expect(error.message).not.toMatch(IN_PROCESS);
    expect(error.message).toContain("There is no open interrupt 'Banker:nope'");
    expect(error.message).toContain(`GET /apps/bank/users/alice/sessions/${sessionId}`);
  });

  it('resuming a rewound invocation says to start a new turn, without naming runner.run', async () => {
    const { app, sessionId } = await pausedBank();
    const rewound = await call(app, 'POST', `/apps/bank/users/alice/sessions/${sessionId}/rewind`, {
      invocationId: 'pay-5',
    });
    expect(rewound.status).toBe(200);
    const error = await errorOf(
      await call(app, 'POST', `/apps/bank/users/alice/sessions/${sessionId}/resume`, {
        invocationId: 'pay-5',
        responses: { 'Banker:c1': true },
      }),
    );
    expect([error.status, error.code]).toEqual([400, 'CONFIGURATION']);
    expect(error.message).not.toMatch(IN_PROCESS);
    expect(error.message).toContain("Invocation 'pay-5'");
    expect(error.message).toContain('start a new turn (a new message) instead');
  });

  it('409 SESSION_BUSY says how to stop the run that holds the session, without the runner option behind it', async () => {
    const { app, toolStarted, release } = heldToolApp([
      { functionCalls: [{ name: 'wait', args: {}, id: 'w1' }] },
      'done',
    ]);
    const s = await createSession(app, 'chat', 'u');
    const first = call(app, 'POST', '/run', runBody(s, 'one'));
    await toolStarted;
    const refused = await call(app, 'POST', '/run', runBody(s, 'two'));
    const error = await errorOf(refused);
    release();
    expect((await first).status).toBe(200);
    expect([error.status, error.code]).toEqual([409, 'SESSION_BUSY']);
    expect(error.message).not.toMatch(IN_PROCESS);
    expect(error.message).toContain(`POST /apps/chat/users/u/sessions/${s.id}/cancel`);
  });
});

function session(id: string) {
  return { id, appName: 'bank', userId: 'alice' } as Parameters<typeof runBody>[0];
}
