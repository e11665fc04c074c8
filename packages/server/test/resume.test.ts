import { describe, expect, it } from 'vitest';
import { getFunctionResponses } from '@troupe/core';
import type { WireEvent, WireSession } from '../src/index.js';
import { bankApp, call, createSession, expectError, runBody, readSse } from './helpers.js';

async function pausedBank(replies: Parameters<typeof bankApp>[0]) {
  const bank = bankApp(replies);
  const s = await createSession(bank.app, 'bank', 'alice');
  const { events } = await readSse(await call(bank.app, 'POST', '/run_sse', runBody(s, 'send 500')));
  return { ...bank, sessionId: s.id, paused: events };
}

describe('interrupt and resume over HTTP', () => {
  it('a tool with requireConfirmation pauses the run; POST .../resume with approval streams the rest of the same invocation', async () => {
    const { app, sent, sessionId, paused } = await pausedBank([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 500 }, id: 'c1' }] },
      'Done: sent 500.',
    ]);
    const interrupt = paused.at(-1)!.interrupt!;
    expect(interrupt).toMatchObject({
      id: 'Banker:c1',
      kind: 'confirmation',
      toolName: 'transfer_money',
      args: { amount: 500 },
    });
    expect(sent).toEqual([]);

    const res = await call(app, 'POST', `/apps/bank/users/alice/sessions/${sessionId}/resume`, {
      responses: { [interrupt.id]: true },
    });
    const { chunks, events } = await readSse(res);
    expect(chunks).toHaveLength(events.length);
    expect(sent).toEqual([500]);
    expect(events.map((e) => e.invocationId)).toEqual(events.map(() => paused[0]!.invocationId));
    expect(events[0]!.content!.parts[0]).toEqual({
      functionResponse: { id: 'c1', name: 'transfer_money', response: { status: 'sent', amount: 500 } },
    });
    expect(events.at(-1)!.content!.parts).toEqual([{ text: 'Done: sent 500.' }]);

    // Nothing is open any more: answering again is a 409 naming the interrupt, and a new turn is allowed.
    const again = await expectError(
      await call(app, 'POST', `/apps/bank/users/alice/sessions/${sessionId}/resume`, {
        responses: { [interrupt.id]: true },
      }),
      409,
      'INTERRUPT_ANSWERED',
    );
    expect(again).toMatch(/already answered/);
  });

  it('a rejection never runs the tool; the invocationId may be given explicitly', async () => {
    const { app, sent, sessionId, paused } = await pausedBank([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 500 }, id: 'c1' }] },
      'Cancelled.',
    ]);
    const { events } = await readSse(
      await call(app, 'POST', `/apps/bank/users/alice/sessions/${sessionId}/resume`, {
        invocationId: paused[0]!.invocationId,
        responses: { 'Banker:c1': { confirmed: false, payload: { reason: 'too much' } } },
      }),
    );
    expect(sent).toEqual([]);
    const [response] = getFunctionResponses({ ...events[0]!, timestamp: 0 });
    expect(response!.response.error).toMatch(/rejected/);
    expect(events.at(-1)!.content!.parts).toEqual([{ text: 'Cancelled.' }]);
  });

  it('bad answers and unknown interrupt ids are 400s that change nothing; a bad body names the field', async () => {
    const { app, sent, sessionId } = await pausedBank([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 500 }, id: 'c1' }] },
      'ok',
    ]);
    const before = (
      (await (await call(app, 'GET', `/apps/bank/users/alice/sessions/${sessionId}`)).json()) as WireSession
    ).events!.length;
    const path = `/apps/bank/users/alice/sessions/${sessionId}/resume`;
    expect(
      await expectError(
        await call(app, 'POST', path, { responses: { 'Banker:c1': 'maybe' } }),
        400,
        'INTERRUPT_RESPONSE',
      ),
    ).toMatch(/true, false/);
    expect(
      await expectError(
        await call(app, 'POST', path, { responses: { 'Banker:nope': true } }),
        400,
        'INTERRUPT_RESPONSE',
      ),
    ).toMatch(/Open interrupts: Banker:c1/);
    const res = await call(app, 'POST', path, { answers: {} });
    expect(((await res.json()) as { error: { field: string } }).error.field).toBe('responses');
    expect(res.status).toBe(400);
    await expectError(
      await call(app, 'POST', `/apps/bank/users/alice/sessions/missing/resume`, { responses: { 'Banker:c1': true } }),
      404,
      'SESSION_NOT_FOUND',
    );
    expect(sent).toEqual([]);
    const after = (
      (await (await call(app, 'GET', `/apps/bank/users/alice/sessions/${sessionId}`)).json()) as WireSession
    ).events!.length;
    expect(after).toBe(before);
  });

  it('/run reports the pause in its JSON events, and resume works after it', async () => {
    const bank = bankApp([{ functionCalls: [{ name: 'transfer_money', args: { amount: 9 }, id: 'x' }] }, 'Sent 9.']);
    const s = await createSession(bank.app, 'bank', 'alice');
    const events = (await (await call(bank.app, 'POST', '/run', runBody(s, 'send 9'))).json()) as WireEvent[];
    expect(events.at(-1)!.interrupt!.id).toBe('Banker:x');
    const resumed = await readSse(
      await call(bank.app, 'POST', `/apps/bank/users/alice/sessions/${s.id}/resume`, {
        responses: { 'Banker:x': true },
        streaming: true,
      }),
    );
    expect(resumed.events.at(-1)!.content!.parts).toEqual([{ text: 'Sent 9.' }]);
    expect(bank.sent).toEqual([9]);
  });
});
