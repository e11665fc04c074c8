import { EventType, type CustomEvent as AgUiCustomEvent } from '@ag-ui/client';
import { describe, expect, it } from 'vitest';
import { InMemorySessionService } from '@troupe/core';
import { createApp } from '../src/index.js';
import { client, ofType, runOnce, say, serveApps } from './ag-ui/helpers.js';
import { call, createSession, progressAgent, readSse, runBody } from './helpers.js';

describe('custom events (ctx.emit) on the HTTP streams', () => {
  it('/run_sse streams them in order, as stored, and /run answers them', async () => {
    const { agent, model } = progressAgent();
    const sessionService = new InMemorySessionService();
    const app = createApp({ apps: { fetch: agent }, sessionService });
    const session = await createSession(app, 'fetch', 'alice');
    const { events } = await readSse(
      await call(app, 'POST', '/run_sse', { ...runBody(session, 'go'), streaming: false }),
    );
    const order = events.map((e) =>
      e.customEvent
        ? `~${JSON.stringify(e.customEvent.data)}`
        : (e.content?.parts.map((p) => Object.keys(p)[0]).join(',') ?? '-'),
    );
    expect(order).toEqual(['functionCall', '~{"page":1,"of":2}', '~{"page":2,"of":2}', 'functionResponse', 'text']);
    expect(
      events
        .filter((e) => e.customEvent)
        .every((e) => e.author === 'fetcher' && e.customEvent!.name === 'fetch.progress'),
    ).toBe(true);
    const stored = await sessionService.getSession({ appName: 'fetch', userId: 'alice', sessionId: session.id });
    expect(stored!.events.filter((e) => e.customEvent).map((e) => e.id)).toEqual(
      events.filter((e) => e.customEvent).map((e) => e.id),
    );
    expect(JSON.stringify(model.requests)).not.toContain('fetch.progress');
  });

  it('AG-UI sends each as CUSTOM with its name and data, between the tool call and its result', async () => {
    const { agent } = progressAgent();
    const served = await serveApps({ fetch: agent });
    const agUi = client(served, 'fetch');
    say(agUi, 'go');
    const run = await runOnce(agUi);
    const custom = ofType<AgUiCustomEvent>(run, EventType.CUSTOM);
    expect(custom.map((e) => [e.name, e.value])).toEqual([
      ['fetch.progress', { page: 1, of: 2 }],
      ['fetch.progress', { page: 2, of: 2 }],
    ]);
    const types = run.types;
    expect(types.indexOf(EventType.TOOL_CALL_END)).toBeLessThan(types.indexOf(EventType.CUSTOM));
    expect(types.lastIndexOf(EventType.CUSTOM)).toBeLessThan(types.indexOf(EventType.TOOL_CALL_RESULT));
  });
});
