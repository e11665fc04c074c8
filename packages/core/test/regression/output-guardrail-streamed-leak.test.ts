import { describe, expect, it } from 'vitest';
import { GuardrailTrippedError, InMemoryRunner, LlmAgent, type Event, type OutputGuardrail } from '@troupe/core';
import { ScriptedModel, type ScriptedReply } from '@troupe/core/testing';

// An output guardrail exists to keep an answer from the user, but with streaming on, the answer's
// chunks were yielded (and printed, sent over SSE, AG-UI, A2A) before the guardrail ran; the run
// then said it was blocked. Chunks are now held until the answer passed.

const noCardNumbers: OutputGuardrail = {
  name: 'no_card_numbers',
  check: (_ctx, output) => ({ tripwire: /\d{4} \d{4} \d{4} \d{4}/.test(String(output)) }),
};

async function streamed(replies: ScriptedReply[], options: { streamBeforeOutputGuardrails?: boolean } = {}) {
  const agent = new LlmAgent({
    name: 'Support',
    model: new ScriptedModel(replies),
    outputGuardrails: [noCardNumbers],
    tools: [],
    ...options,
  });
  const runner = new InMemoryRunner({ agent });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const yielded: Event[] = [];
  let error: unknown;
  try {
    for await (const event of runner.runAsync({
      userId: 'u',
      sessionId: session.id,
      newMessage: 'What is my card?',
      runConfig: { streaming: 'sse' },
    }))
      yielded.push(event);
  } catch (caught) {
    error = caught;
  }
  return { yielded, error };
}

describe('output guardrails with streaming', () => {
  it('a blocked answer is never yielded, not even as streamed chunks', async () => {
    const { yielded, error } = await streamed([{ chunks: ['Your card is ', '4111 1111 ', '1111 1111.'] }]);
    expect(error).toBeInstanceOf(GuardrailTrippedError);
    expect(JSON.stringify(yielded)).not.toContain('4111');
    expect(yielded.map((e) => e.errorCode)).toEqual(['GUARDRAIL_TRIPPED']);
  });

  it('an answer that passes streams its chunks, then its event, in order', async () => {
    const { yielded, error } = await streamed([{ chunks: ['It ends ', 'in 1111.'] }]);
    expect(error).toBeUndefined();
    expect(yielded.map((e) => [e.partial === true, e.content?.parts[0]])).toEqual([
      [true, { text: 'It ends ' }],
      [true, { text: 'in 1111.' }],
      [false, { text: 'It ends in 1111.' }],
    ]);
  });

  it('streamBeforeOutputGuardrails opts into streaming before the check: the chunks were shown, the run is blocked', async () => {
    const { yielded, error } = await streamed([{ chunks: ['Your card is ', '4111 1111 1111 1111.'] }], {
      streamBeforeOutputGuardrails: true,
    });
    expect(error).toBeInstanceOf(GuardrailTrippedError);
    expect(yielded.filter((e) => e.partial).map((e) => e.content?.parts[0])).toEqual([
      { text: 'Your card is ' },
      { text: '4111 1111 1111 1111.' },
    ]);
    expect(yielded.filter((e) => !e.partial).map((e) => e.errorCode)).toEqual(['GUARDRAIL_TRIPPED']);
  });

  it('holds by default', () => {
    const agent = new LlmAgent({ name: 'Support', outputGuardrails: [noCardNumbers] });
    expect(agent.streamBeforeOutputGuardrails).toBe(false);
  });
});
