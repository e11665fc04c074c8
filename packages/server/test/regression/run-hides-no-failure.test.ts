import { describe, expect, it } from 'vitest';
import {
  BasePlugin,
  createEvent,
  type Event,
  FunctionAgent,
  InMemorySessionService,
  SequentialAgent,
  type SessionService,
} from '@troupe/core';
import { createApp, type ErrorReport, type WireEvent, type WireSession } from '../../src/index.js';
import { call, createSession, expectError, message, readSse } from '../helpers.js';
import { requiredMethodsOnly } from '../stores.js';

// `/run` answered 200 while hiding a failed run: when the run's error event could not be stored
// (another process wrote to the session mid-run, a plugin failed on the error event), its array
// was cut short with no error in it, while `/run_sse` sent the error. Now `/run` ends its array
// with the terminal error event as `/run_sse` sends it, and answers a run the store stopped with
// that status (503 STORAGE, 409 LEASE_LOST or STALE_SESSION).

const body = (sessionId: string, text = 'go') => ({
  appName: 'pipeline',
  userId: 'u',
  sessionId,
  newMessage: message(text),
});

function pipelineApp(second: FunctionAgent, options: { plugins?: BasePlugin[]; sessionService?: SessionService } = {}) {
  const sessionService = options.sessionService ?? new InMemorySessionService();
  const reports: [unknown, ErrorReport][] = [];
  const pipeline = new SequentialAgent({
    name: 'pipeline',
    subAgents: [new FunctionAgent({ name: 'first', run: () => 'first done' }), second],
  });
  const app = createApp({
    apps: { pipeline },
    sessionService,
    ...(options.plugins ? { plugins: options.plugins } : {}),
    onError: (error, _request, report) => reports.push([error, report]),
  });
  return { app, sessionService, reports };
}

async function storedEvents(app: ReturnType<typeof createApp>, sessionId: string): Promise<WireEvent[]> {
  return ((await (await call(app, 'GET', `/apps/pipeline/users/u/sessions/${sessionId}`)).json()) as WireSession)
    .events!;
}

/** The fields that say how a run ended, without the ids and times that differ between two runs. */
const ending = (event: WireEvent | undefined) => ({
  author: event?.author,
  errorCode: event?.errorCode,
  errorMessage: event?.errorMessage,
});

describe('POST /run never hides a failed run behind a 200', () => {
  it('an agent that throws: the array ends with the stored error event, the same one /run_sse sends as its last frame', async () => {
    const thrower = new FunctionAgent({
      name: 'second',
      run: () => {
        throw new Error('the flux capacitor is out of flux');
      },
    });
    const { app } = pipelineApp(thrower);
    for (const id of ['json', 'sse']) await createSession(app, 'pipeline', 'u', { sessionId: id });
    const res = await call(app, 'POST', '/run', body('json'));
    expect(res.status).toBe(200);
    const events = (await res.json()) as WireEvent[];
    expect(events.map((e) => e.errorCode ?? e.author)).toEqual(['first', 'ERROR']);
    expect(ending(events.at(-1))).toEqual({
      author: 'second',
      errorCode: 'ERROR',
      errorMessage: 'the flux capacitor is out of flux',
    });
    expect((await storedEvents(app, 'json')).at(-1)!.id).toBe(events.at(-1)!.id);

    const { events: frames } = await readSse(await call(app, 'POST', '/run_sse', body('sse')));
    expect(ending(frames.at(-1))).toEqual(ending(events.at(-1)));
  });

  it('an error event the store did not keep (a plugin failed on it) still ends the array', async () => {
    class FailingExporter extends BasePlugin {
      override onEvent({ event }: { event: Event }): Event | undefined {
        if (event.errorCode) throw new Error('the exporter is down');
        return undefined;
      }
    }
    const thrower = new FunctionAgent({
      name: 'second',
      run: () => {
        throw new Error('step two failed');
      },
    });
    const { app } = pipelineApp(thrower, { plugins: [new FailingExporter('exporter')] });
    await createSession(app, 'pipeline', 'u', { sessionId: 's' });
    const res = await call(app, 'POST', '/run', body('s'));
    expect(res.status).toBe(200);
    const events = (await res.json()) as WireEvent[];
    expect(ending(events.at(-1))).toEqual({ author: 'second', errorCode: 'ERROR', errorMessage: 'step two failed' });
    // It was not stored: the array is the only place the client learns of the failure.
    expect((await storedEvents(app, 's')).map((e) => e.errorCode ?? e.author)).toEqual(['user', 'first']);
  });

  it("a failure after the run's events (a plugin's afterRun threw) ends the array and the stream with an event without its detail; onError gets it with the request id", async () => {
    class BrokenAfterRun extends BasePlugin {
      override afterRun(): never {
        throw new Error('metrics sink at /srv/app/metrics.sock refused');
      }
    }
    const { app, reports } = pipelineApp(new FunctionAgent({ name: 'second', run: () => 'second done' }), {
      plugins: [new BrokenAfterRun('metrics')],
    });
    for (const id of ['json', 'sse']) await createSession(app, 'pipeline', 'u', { sessionId: id });
    const res = await call(app, 'POST', '/run', body('json'));
    expect(res.status).toBe(200);
    const events = (await res.json()) as WireEvent[];
    const { events: frames } = await readSse(await call(app, 'POST', '/run_sse', body('sse')));
    for (const ended of [events, frames]) {
      expect(ended.map((e) => e.errorCode ?? e.author)).toEqual(['first', 'second', 'INTERNAL']);
      expect(ended.at(-1)!.errorMessage).toMatch(/^The server failed to handle the request \(INTERNAL\)/);
      expect(JSON.stringify(ended)).not.toContain('/srv/app');
    }
    expect(reports.map(([error, report]) => [(error as Error).message, report.level])).toEqual([
      ['metrics sink at /srv/app/metrics.sock refused', 'error'],
      ['metrics sink at /srv/app/metrics.sock refused', 'error'],
    ]);
    expect(reports[0]![1].requestId).toBe(res.headers.get('X-Request-Id'));
  });

  it('another process writing to the session mid-run (a store without leases): 409 STALE_SESSION, not a 200 with part of the events', async () => {
    const inner = new InMemorySessionService();
    // A store without leases, so nothing fences the run's session.
    const unleased = requiredMethodsOnly(inner);
    const racer = new FunctionAgent({
      name: 'second',
      run: async (_input, ctx) => {
        // "Another process" appends to the same session while this run is between two events.
        const current = (await inner.getSession({ appName: 'pipeline', userId: 'u', sessionId: ctx.session.id }))!;
        await inner.appendEvent({
          session: current,
          event: createEvent({
            invocationId: 'elsewhere',
            author: 'user',
            content: { role: 'user', parts: [{ text: 'from elsewhere' }] },
          }),
        });
        return 'second done';
      },
    });
    const { app } = pipelineApp(racer, { sessionService: unleased });
    await createSession(app, 'pipeline', 'u', { sessionId: 's' });
    expect(await expectError(await call(app, 'POST', '/run', body('s')), 409, 'STALE_SESSION')).toMatch(/\S/);
    // The other process's message is there; this run's answer and error are not.
    expect((await storedEvents(app, 's')).map((e) => e.errorCode ?? e.invocationId)).toEqual([
      expect.any(String),
      expect.any(String),
      'elsewhere',
    ]);
  });
});
