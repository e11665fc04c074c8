import { EventType, type RunErrorEvent } from '@ag-ui/client';
import { describe, expect, it } from 'vitest';
import { InMemorySessionService, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { createApp, type WireEvent } from '../src/index.js';
import { eventFacts } from '../ui/src/model/event-facts.js';
import { transcript } from '../ui/src/model/transcript.js';
import { client, ofType, runOnce, say, serveApps } from './ag-ui/helpers.js';
import { call, createSession, runBody } from './helpers.js';

// A run a guardrail blocked, as the HTTP API, AG-UI and the dev UI show it.

function tutor(model = new ScriptedModel([])): LlmAgent {
  return new LlmAgent({
    name: 'Tutor',
    model,
    inputGuardrails: [
      {
        name: 'no_homework',
        blocking: true,
        check: (_ctx, input) => ({ tripwire: JSON.stringify(input).includes('homework'), info: 'homework' }),
      },
    ],
  });
}

describe('a blocked run over HTTP', () => {
  it('POST /run answers 200 with the GUARDRAIL_TRIPPED event last; the dev UI shows it as a blocked card', async () => {
    const app = createApp({ apps: { tutor: tutor() }, sessionService: new InMemorySessionService() });
    const s = await createSession(app, 'tutor', 'ann');
    const res = await call(app, 'POST', '/run', runBody(s, 'do my homework'));
    expect(res.status).toBe(200);
    const events = (await res.json()) as WireEvent[];
    expect(events).toHaveLength(1);
    const [blocked] = events;
    expect(blocked).toMatchObject({
      author: 'Tutor',
      errorCode: 'GUARDRAIL_TRIPPED',
      errorMessage: expect.stringMatching(/^Guardrail 'no_homework' tripped/),
    });

    expect(eventFacts(blocked!)).toEqual([
      { kind: 'blocked', guardrail: 'no_homework', message: blocked!.errorMessage },
    ]);
    const stored = await call(app, 'GET', `/apps/tutor/users/ann/sessions/${s.id}`);
    const session = (await stored.json()) as { events: WireEvent[] };
    expect(transcript(session.events).map((item) => [item.kind, 'text' in item ? item.text : undefined])).toEqual([
      ['user', 'do my homework'],
      ['error', `Blocked by guardrail 'no_homework': ${blocked!.errorMessage}`],
    ]);
  });

  it('an event whose message does not name the guardrail still shows as blocked', () => {
    const event: WireEvent = {
      id: 'e1',
      invocationId: 'i',
      timestamp: 1,
      author: 'A',
      branch: '',
      path: 'A',
      actions: { stateDelta: {}, artifactDelta: {} },
      errorCode: 'GUARDRAIL_TRIPPED',
      errorMessage: 'blocked',
    };
    expect(eventFacts(event)).toEqual([{ kind: 'blocked', guardrail: undefined, message: 'blocked' }]);
    expect(transcript([event])[0]).toMatchObject({ kind: 'error', text: 'Blocked by a guardrail: blocked' });
  });

  it('AG-UI ends a blocked run with RUN_ERROR code GUARDRAIL_TRIPPED and the guardrail message', async () => {
    const model = new ScriptedModel(['Glad to help.']);
    const served = await serveApps({ tutor: tutor(model) });
    const agent = client(served, 'tutor');
    say(agent, 'do my homework');
    const blocked = await runOnce(agent);
    expect(blocked.types.at(-1)).toBe(EventType.RUN_ERROR);
    expect(ofType<RunErrorEvent>(blocked, EventType.RUN_ERROR)[0]).toMatchObject({
      code: 'GUARDRAIL_TRIPPED',
      message: expect.stringContaining("Guardrail 'no_homework'"),
    });
    // The thread goes on with an allowed message.
    say(agent, 'what is a prime?');
    expect((await runOnce(agent)).finished).toMatchObject({ outcome: { type: 'success' }, result: 'Glad to help.' });
  });
});
