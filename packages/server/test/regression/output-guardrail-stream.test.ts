import { describe, expect, it } from 'vitest';
import { InMemorySessionService, LlmAgent, type OutputGuardrail } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { createApp } from '../../src/index.js';
import { client, runOnce, say, serveApps } from '../ag-ui/helpers.js';
import { call, createSession, message } from '../helpers.js';

// With streaming on, /run_sse and AG-UI sent the chunks of an answer that its output guardrail then
// blocked: the client had shown the card number the guardrail exists to hide. Chunks are now held
// until the answer passed.

const noCardNumbers: OutputGuardrail = {
  name: 'no_card_numbers',
  check: (_ctx, output) => ({ tripwire: /\d{4} \d{4} \d{4} \d{4}/.test(String(output)) }),
};

const leaky = () =>
  new LlmAgent({
    name: 'Support',
    model: new ScriptedModel([{ chunks: ['Your card is ', '4111 1111 ', '1111 1111.'] }]),
    outputGuardrails: [noCardNumbers],
  });

describe('an answer blocked by an output guardrail, streamed', () => {
  it('/run_sse with streaming sends none of it, then the GUARDRAIL_TRIPPED event', async () => {
    const app = createApp({ apps: { support: leaky() }, sessionService: new InMemorySessionService() });
    const s = await createSession(app, 'support', 'ann');
    const res = await call(app, 'POST', '/run_sse', {
      appName: 'support',
      userId: 'ann',
      sessionId: s.id,
      newMessage: message('What is my card?'),
      streaming: true,
    });
    const body = await res.text();
    expect(body).toContain('GUARDRAIL_TRIPPED');
    expect(body).not.toContain('4111');
  });

  it('AG-UI sends none of it before RUN_ERROR', async () => {
    const served = await serveApps({ support: leaky() });
    const agent = client(served, 'support');
    say(agent, 'What is my card?');
    const run = await runOnce(agent);
    expect(run.types.at(-1)).toBe('RUN_ERROR');
    expect(JSON.stringify(run)).not.toContain('4111');
  });
});
