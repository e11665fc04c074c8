import { describe, expect, it } from 'vitest';
import { FunctionAgent, InMemorySessionService, TeamAgent } from '@troupe/core';
import { createApp } from '../../src/index.js';
import { call, createSession, expectError, message } from '../helpers.js';

// A text message to an agent that takes a structured input (the team of examples/team-yaml) ran it
// on `{ request: text }`: it "finished" with `{ sections: [] }`, as if it had been given nothing to
// do. `/run` and `/run_sse` now refuse it with 400 INPUT_VALIDATION naming the shape the agent
// takes, before anything is stored; the same input sent as `input` runs.

function sectionsApp() {
  const team = new TeamAgent({
    name: 'Sections',
    inputSchema: {
      type: 'object',
      properties: { sections: { type: 'array', items: { type: 'object', properties: { title: { type: 'string' } } } } },
    },
    iterateOn: 'sections',
    skills: [new FunctionAgent({ name: 'Title', run: (input) => ({ title: String(input.title).toUpperCase() }) })],
  });
  const sessionService = new InMemorySessionService();
  return { app: createApp({ apps: { sections: team }, sessionService }), sessionService };
}

const SHAPE =
  "Agent 'Sections' takes a structured input, { sections?: { title?: string }[] }, and was given a text message";

describe('a text message to an agent that takes a structured input', () => {
  it('is refused by /run and /run_sse with 400 naming the shape, and nothing is stored', async () => {
    const { app, sessionService } = sectionsApp();
    const session = await createSession(app, 'sections', 'u');
    const body = { appName: 'sections', userId: 'u', sessionId: session.id, newMessage: message('Write about intros') };
    for (const route of ['/run', '/run_sse']) {
      const text = await expectError(
        await call(app, 'POST', route, { ...body, streaming: true }),
        400,
        'INPUT_VALIDATION',
      );
      expect(text, route).toContain(SHAPE);
      expect(text, route).toContain('Run it with an input object of that shape instead');
    }
    const stored = await sessionService.getSession({ appName: 'sections', userId: 'u', sessionId: session.id });
    expect(stored!.events).toEqual([]);
  });

  it('runs when the same request is sent as input', async () => {
    const { app } = sectionsApp();
    const session = await createSession(app, 'sections', 'u');
    const res = await call(app, 'POST', '/run', {
      appName: 'sections',
      userId: 'u',
      sessionId: session.id,
      input: { sections: [{ title: 'intro' }] },
    });
    expect(res.status).toBe(200);
    const events = (await res.json()) as { output?: unknown }[];
    expect(events.at(-1)!.output).toEqual({ sections: [{ title: 'INTRO' }] });
  });
});
