import { expect, it } from 'vitest';
import { LlmAgent, type OutputGuardrail } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { a2aApp } from '@troupe/a2a';
import { collect, inProcessClient, message } from '../helpers/sdk-client.js';

// message/stream sent an answer's streamed text as artifact updates before the agent's output
// guardrail blocked it: the client had the card number the guardrail exists to hide. The agent now
// holds its streamed text until the answer passed.

const noCardNumbers: OutputGuardrail = {
  name: 'no_card_numbers',
  check: (_ctx, output) => ({ tripwire: /\d{4} \d{4} \d{4} \d{4}/.test(String(output)) }),
};

it('message/stream sends nothing of an answer its output guardrail blocks', async () => {
  const agent = new LlmAgent({
    name: 'Support',
    model: new ScriptedModel([{ chunks: ['Your card is ', '4111 1111 ', '1111 1111.'] }]),
    outputGuardrails: [noCardNumbers],
  });
  const client = await inProcessClient(a2aApp(agent, { baseUrl: 'http://guarded.example' }), 'http://guarded.example');
  const events = await collect(client.sendMessageStream(message('What is my card?')));
  const wire = JSON.stringify(events);
  expect(wire).toContain('no_card_numbers');
  expect(wire).not.toContain('4111');
});
