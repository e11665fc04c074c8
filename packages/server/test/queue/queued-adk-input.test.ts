import { expect, it } from 'vitest';
import { node, RequestInput, Workflow } from '@troupe/core';
import { describeRedis, useRedis } from '../../../queue/test/redis-server.js';
import type { BackgroundRunInfo, WireEvent, WireSession } from '../../src/index.js';
import { call, createSession, runBody } from '../helpers.js';
import { queuedApp, readIdFrames } from './queued-app.js';

// A graph workflow's RequestInput answered by ADK's clients with createApp({ queue }): a function
// response to adk_request_input, or plain text while it is the one open request, in /run_sse or
// /run puts the paused run back on the queue, as the resume route does.

function intake(): { workflow: Workflow; asked: string[] } {
  const asked: string[] = [];
  const ask = node(
    (_ctx, text: string) => {
      asked.push(text);
      return new RequestInput({ message: `Name for ${text}?` });
    },
    { name: 'ask' },
  );
  const welcome = node((_ctx, name: string) => `Welcome, ${name}!`, { name: 'welcome' });
  return { workflow: new Workflow({ name: 'intake', edges: [['START', ask, welcome]] }), asked };
}

function inputCall(event: WireEvent): { id: string; name: string } {
  const part = event.content!.parts.find(
    (p) => 'functionCall' in p && event.longRunningToolIds?.includes(p.functionCall.id),
  );
  return (part as { functionCall: { id: string; name: string } }).functionCall;
}

describeRedis("ADK's adk_request_input through the queue", () => {
  const redis = useRedis();

  it('a function response in /run_sse resumes the paused workflow on a worker and streams only what follows the pause', async () => {
    const { workflow, asked } = intake();
    const api = await queuedApp(redis().url, { intake: workflow });
    try {
      const s = await createSession(api.app, 'intake', 'alice');
      const paused = await readIdFrames(await call(api.app, 'POST', '/run_sse', runBody(s, 'the club')));
      const request = inputCall(paused.frames.at(-1)!.event);
      expect(request.name).toBe('adk_request_input');
      const runId = paused.frames[0]!.event.invocationId;

      const resumed = await readIdFrames(
        await call(api.app, 'POST', '/run_sse', {
          appName: 'intake',
          userId: 'alice',
          sessionId: s.id,
          newMessage: {
            role: 'user',
            parts: [{ functionResponse: { id: request.id, name: request.name, response: { result: 'Ada' } } }],
          },
          streaming: true,
        }),
      );
      const before = new Set(paused.frames.map((f) => f.event.id));
      expect(resumed.frames.some((f) => before.has(f.event.id))).toBe(false);
      expect(resumed.frames.every((f) => f.event.invocationId === runId)).toBe(true);
      expect(resumed.frames.at(-1)!.event).toMatchObject({ author: 'intake', output: 'Welcome, Ada!' });
      expect(asked).toEqual(['the club']);
      const status = (await (
        await call(api.app, 'GET', `/apps/intake/users/alice/sessions/${s.id}/runs/${runId}`)
      ).json()) as BackgroundRunInfo;
      expect(status.status).toBe('completed');
    } finally {
      await api.close();
    }
  });

  it('plain text in /run answers the one open request on a worker (not refused as a new turn); the session shows the answer', async () => {
    const { workflow } = intake();
    const api = await queuedApp(redis().url, { intake: workflow });
    try {
      const s = await createSession(api.app, 'intake', 'alice');
      const paused = (await (await call(api.app, 'POST', '/run', runBody(s, 'the club'))).json()) as WireEvent[];
      const request = inputCall(paused.at(-1)!);
      const res = await call(api.app, 'POST', '/run', { ...runBody(s, 'Grace'), stateDelta: { seen: true } });
      expect(res.status).toBe(200);
      const events = (await res.json()) as WireEvent[];
      expect(events.some((e) => paused.some((p) => p.id === e.id))).toBe(false);
      expect(events.at(-1)!.output).toBe('Welcome, Grace!');
      const session = (await (
        await call(api.app, 'GET', `/apps/intake/users/alice/sessions/${s.id}`)
      ).json()) as WireSession;
      expect(session.state).toEqual({ seen: true });
      const record = session.events!.find((e) => e.actions.agentState?.resume)!;
      expect(record.content!.parts).toContainEqual({
        functionResponse: { id: request.id, name: 'adk_request_input', response: { result: 'Grace' } },
      });

      // Now nothing is open: the next text is a new turn, which asks again.
      const next = (await (await call(api.app, 'POST', '/run', runBody(s, 'the choir'))).json()) as WireEvent[];
      expect(inputCall(next.at(-1)!).name).toBe('adk_request_input');
    } finally {
      await api.close();
    }
  });
});
