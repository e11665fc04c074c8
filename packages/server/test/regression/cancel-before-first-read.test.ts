import { describe, expect, it } from 'vitest';
import { createSession, eventually, message, scriptedApp } from '../helpers.js';

// A client may cancel a stream's body before reading any of it (it went away at once, or a
// framework hosting `app.fetch` dropped the response). The run was already started by then and
// holds its session: it must still be run to its end, stored as cancelled, and the session given
// back. It was not: the run never took a step, and every later message was refused as busy (409).

interface RouteCase {
  /** The user the route runs as without auth. */
  user: string;
  path: (sessionId: string) => string;
  body: (sessionId: string) => unknown;
  headers?: (sessionId: string) => Record<string, string>;
}

let agUiRuns = 0;

const routes: Record<string, RouteCase> = {
  '/run_sse': {
    user: 'u',
    path: () => '/run_sse',
    body: (sessionId) => ({ appName: 'chat', userId: 'u', sessionId, newMessage: message('hi') }),
  },
  'AG-UI': {
    user: 'ag-ui',
    path: () => '/ag-ui/chat',
    body: (threadId) => ({
      threadId,
      // The run id names the invocation: each send is a new one.
      runId: `r${++agUiRuns}`,
      messages: [{ id: 'm1', role: 'user', content: 'hi' }],
      tools: [],
      context: [],
    }),
  },
  'AI SDK /chat': {
    user: 'u',
    path: (sessionId) => `/apps/chat/users/u/sessions/${sessionId}/chat`,
    body: () => ({ messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] }),
  },
  'OpenAI stream': {
    user: 'openai',
    path: () => '/v1/chat/completions',
    headers: (sessionId) => ({ 'X-Session-Id': sessionId }),
    body: () => ({ model: 'chat', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  },
};

describe('a stream cancelled before its first read', () => {
  for (const [name, route] of Object.entries(routes)) {
    it(`${name}: the run ends cancelled and the session takes the next message`, async () => {
      const { app, sessionService } = scriptedApp(['Done.', 'Done.'], { openai: true });
      const { id: sessionId } = await createSession(app, 'chat', route.user);
      const send = () =>
        app.fetch(
          new Request(`http://localhost${route.path(sessionId)}`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', ...route.headers?.(sessionId) },
            body: JSON.stringify(route.body(sessionId)),
          }),
        );
      const stored = async () =>
        (await sessionService.getSession({ appName: 'chat', userId: route.user, sessionId }))!.events;

      const first = await send();
      expect(first.status).toBe(200);
      await first.body!.cancel();
      await eventually(async () => expect((await stored()).some((e) => e.errorCode === 'CANCELLED')).toBe(true));

      const second = await send();
      expect(second.status, await second.clone().text()).toBe(200);
      expect(await second.text()).toContain('Done.');
      // One cancelled run (the OpenAI route reads the run's first events before it answers, so its
      // model may have answered by the time the cancel lands), then the next message answered.
      const events = await stored();
      expect(events.filter((e) => e.errorCode === 'CANCELLED')).toHaveLength(1);
      expect(events.at(-1)!.content?.parts).toEqual([{ text: 'Done.' }]);
    });
  }
});
