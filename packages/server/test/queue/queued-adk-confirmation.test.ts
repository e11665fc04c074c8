import { expect, it } from 'vitest';
import { describeRedis, useRedis } from '../../../queue/test/redis-server.js';
import type { BackgroundRunInfo, WireEvent, WireSession } from '../../src/index.js';
import { adkAnswer, bankAgent, call, createSession, expectError, runBody } from '../helpers.js';
import { queuedApp, readIdFrames } from './queued-app.js';

// ADK's web UI approving a tool with createApp({ queue }): its answer to adk_request_confirmation in
// /run_sse or /run puts the paused run back on the queue, as the resume route does.

type Call = { id: string; name: string; args: Record<string, unknown> };

function confirmationCall(event: WireEvent): Call {
  const part = event.content!.parts.find(
    (p) => 'functionCall' in p && event.longRunningToolIds?.includes(p.functionCall.id),
  );
  return (part as { functionCall: Call }).functionCall;
}

describeRedis("ADK's adk_request_confirmation through the queue", () => {
  const redis = useRedis();

  it('an approval in /run_sse resumes the paused run on a worker and streams only what follows the pause', async () => {
    const { agent, sent } = bankAgent([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 500 }, id: 'c1' }] },
      'Done: sent 500.',
    ]);
    const api = await queuedApp(redis().url, { bank: agent });
    try {
      const s = await createSession(api.app, 'bank', 'alice');
      const paused = await readIdFrames(await call(api.app, 'POST', '/run_sse', runBody(s, 'send 500')));
      const request = confirmationCall(paused.frames.at(-1)!.event);
      expect(request).toMatchObject({
        id: 'Banker:c1',
        name: 'adk_request_confirmation',
        args: { originalFunctionCall: { id: 'c1', name: 'transfer_money' } },
      });
      const runId = paused.frames[0]!.event.invocationId;

      const resumed = await readIdFrames(
        await call(
          api.app,
          'POST',
          '/run_sse',
          adkAnswer(
            s.id,
            request,
            { confirmed: true, payload: { amount: 500 } },
            { functionCallEventId: paused.frames.at(-1)!.event.id },
          ),
        ),
      );
      expect(sent).toEqual([500]);
      const before = new Set(paused.frames.map((f) => f.event.id));
      expect(resumed.frames.some((f) => before.has(f.event.id))).toBe(false);
      expect(resumed.frames[0]!.event.content!.parts[0]).toEqual({
        functionResponse: { id: 'c1', name: 'transfer_money', response: { status: 'sent', amount: 500 } },
      });
      expect(resumed.frames.at(-1)!.event.content!.parts).toEqual([{ text: 'Done: sent 500.' }]);
      expect(
        (
          (await (
            await call(api.app, 'GET', `/apps/bank/users/alice/sessions/${s.id}/runs/${runId}`)
          ).json()) as BackgroundRunInfo
        ).status,
      ).toBe('completed');

      expect(
        await expectError(
          await call(api.app, 'POST', '/run_sse', adkAnswer(s.id, request, { confirmed: true })),
          409,
          'INTERRUPT_ANSWERED',
        ),
      ).toMatch(/already answered/);
      expect(sent).toEqual([500]);
    } finally {
      await api.close();
    }
  });

  it('a rejection in /run answers the events after the pause; the stateDelta sent with it is stored', async () => {
    const { agent, sent } = bankAgent([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 9 }, id: 'x' }] },
      'Cancelled.',
    ]);
    const api = await queuedApp(redis().url, { bank: agent });
    try {
      const s = await createSession(api.app, 'bank', 'alice');
      const paused = (await (await call(api.app, 'POST', '/run', runBody(s, 'send 9'))).json()) as WireEvent[];
      const request = confirmationCall(paused.at(-1)!);
      const res = await call(
        api.app,
        'POST',
        '/run',
        adkAnswer(s.id, request, { response: '{"confirmed":false}' }, { stateDelta: { note: 'no' } }),
      );
      expect(res.status).toBe(200);
      const events = (await res.json()) as WireEvent[];
      expect(sent).toEqual([]);
      expect(events.some((e) => paused.some((p) => p.id === e.id))).toBe(false);
      expect(events.at(-1)!.content!.parts).toEqual([{ text: 'Cancelled.' }]);
      const session = (await (
        await call(api.app, 'GET', `/apps/bank/users/alice/sessions/${s.id}`)
      ).json()) as WireSession;
      expect(session.state).toEqual({ note: 'no' });
    } finally {
      await api.close();
    }
  });
});
