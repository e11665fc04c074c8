import { describe, expect, it } from 'vitest';
import type { ErrorBody, WireSession } from '../../src/index.js';
import { adkAnswer, bankApp, call, createSession, readSse, runBody } from '../helpers.js';

// A second answer to an approval that was already answered (a double click, a retried request) is a
// conflict with what the session holds, not a bad request: 409 INTERRUPT_ANSWERED naming the
// interrupt and its invocation, on every way an answer reaches the server; nothing is stored.

async function answeredBank() {
  const bank = bankApp([{ functionCalls: [{ name: 'transfer_money', args: { amount: 5 }, id: 'c1' }] }, 'Sent.']);
  const s = await createSession(bank.app, 'bank', 'alice');
  await readSse(await call(bank.app, 'POST', '/run_sse', { ...runBody(s, 'send 5'), invocationId: 'pay-5' }));
  const path = `/apps/bank/users/alice/sessions/${s.id}/resume`;
  await readSse(await call(bank.app, 'POST', path, { responses: { 'Banker:c1': true } }));
  expect(bank.sent).toEqual([5]);
  const stored = await eventCount(bank.app, s.id);
  return { ...bank, sessionId: s.id, path, stored };
}

async function eventCount(app: ReturnType<typeof bankApp>['app'], sessionId: string): Promise<number> {
  const session = (await (
    await call(app, 'GET', `/apps/bank/users/alice/sessions/${sessionId}`)
  ).json()) as WireSession;
  return session.events!.length;
}

async function expectAnswered(res: Response): Promise<string> {
  const { error } = (await res.json()) as ErrorBody;
  expect([res.status, error.code]).toEqual([409, 'INTERRUPT_ANSWERED']);
  expect(error.message).toContain("'Banker:c1'");
  expect(error.message).toContain("'pay-5'");
  expect(error.message).not.toMatch(/runner\.|RunResult/);
  return error.message;
}

describe('answering an interrupt that was already answered', () => {
  it('the resume route answers 409 INTERRUPT_ANSWERED, with or without the invocationId; nothing runs or is stored', async () => {
    const { app, sent, sessionId, path, stored } = await answeredBank();
    await expectAnswered(await call(app, 'POST', path, { responses: { 'Banker:c1': true } }));
    await expectAnswered(await call(app, 'POST', path, { invocationId: 'pay-5', responses: { 'Banker:c1': false } }));
    expect(sent).toEqual([5]);
    expect(await eventCount(app, sessionId)).toBe(stored);
  });

  it("ADK's answer on /run and /run_sse answers 409 INTERRUPT_ANSWERED too", async () => {
    const { app, sent, sessionId, stored } = await answeredBank();
    const request = { id: 'Banker:c1', name: 'adk_request_confirmation' };
    for (const route of ['/run', '/run_sse']) {
      await expectAnswered(await call(app, 'POST', route, adkAnswer(sessionId, request, { confirmed: true })));
    }
    expect(sent).toEqual([5]);
    expect(await eventCount(app, sessionId)).toBe(stored);
  });

  it('an id the session never had is still a 400 INTERRUPT_RESPONSE', async () => {
    const { app, path } = await answeredBank();
    const res = await call(app, 'POST', path, { invocationId: 'pay-5', responses: { 'Banker:zz': true } });
    const { error } = (await res.json()) as ErrorBody;
    expect([res.status, error.code]).toEqual([400, 'INTERRUPT_RESPONSE']);
  });
});
