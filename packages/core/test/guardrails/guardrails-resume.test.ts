import { describe, expect, it } from 'vitest';
import {
  AgentTool,
  FunctionTool,
  type GuardrailTrippedError,
  InMemoryRunner,
  LlmAgent,
  type Event,
  type InputGuardrail,
  type OutputGuardrail,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';

// Guardrails around a pause for a human: what already passed is not checked again, what runs after
// the answer is.

function counted(
  name: string,
  tripwire: (value: unknown) => boolean,
  seen: unknown[],
): InputGuardrail & OutputGuardrail {
  return {
    name,
    check: (_ctx, value) => {
      seen.push(value);
      return { tripwire: tripwire(value) };
    },
  };
}

function payTool(ran: number[], guardrailSeen: unknown[] = []): FunctionTool {
  return new FunctionTool({
    name: 'pay',
    description: 'Pays.',
    requireConfirmation: true,
    guardrails: [
      {
        name: 'max_amount',
        check: (_ctx, args) => {
          guardrailSeen.push(args.amount);
          return { tripwire: Number(args.amount) > 1000 };
        },
      },
    ],
    execute: ({ amount }) => {
      ran.push(Number(amount));
      return { paid: amount };
    },
  });
}

async function start(agent: LlmAgent): Promise<{ runner: InMemoryRunner; sessionId: string }> {
  const runner = new InMemoryRunner({ agent });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  return { runner, sessionId: session.id };
}

const tripped = (events: Event[]) => events.filter((e) => e.errorCode === 'GUARDRAIL_TRIPPED');

describe('guardrails and resume', () => {
  it('input guardrails are not run again on resume; output guardrails check the answer given after it', async () => {
    const ran: number[] = [];
    const inputSeen: unknown[] = [];
    const outputSeen: unknown[] = [];
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'pay', args: { amount: 50 }, id: 'c1' }] },
      'Paid. Card number 4111 1111 1111 1111.',
    ]);
    const agent = new LlmAgent({
      name: 'Banker',
      model,
      outputKey: 'answer',
      tools: [payTool(ran)],
      inputGuardrails: [counted('topic', () => false, inputSeen)],
      outputGuardrails: [
        counted('no_card_numbers', (output) => /\d{4} \d{4} \d{4} \d{4}/.test(String(output)), outputSeen),
      ],
    });
    const { runner, sessionId } = await start(agent);
    const paused = await runner.run({ userId: 'u', sessionId, newMessage: 'pay 50' });
    expect(paused.status).toBe('interrupted');
    expect(inputSeen).toHaveLength(1);

    const resumed = await runner.resume({ userId: 'u', sessionId, responses: { 'Banker:c1': true } });
    expect(ran).toEqual([50]);
    expect(inputSeen).toHaveLength(1);
    expect(outputSeen).toEqual(['Paid. Card number 4111 1111 1111 1111.']);
    expect(resumed.status).toBe('blocked');
    expect(resumed.state).not.toHaveProperty('answer');
    const session = await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId });
    expect(tripped(session!.events)).toHaveLength(1);
    expect(session!.events.some((e) => e.output !== undefined)).toBe(false);
  });

  it('a tool guardrail checks before approval is asked (a tripped call is never offered), and again before the approved call runs', async () => {
    const ran: number[] = [];
    const seen: unknown[] = [];
    const model = new ScriptedModel([{ functionCalls: [{ name: 'pay', args: { amount: 20 }, id: 'c1' }] }, 'Paid.']);
    const { runner, sessionId } = await start(new LlmAgent({ name: 'Banker', model, tools: [payTool(ran, seen)] }));
    expect((await runner.run({ userId: 'u', sessionId, newMessage: 'pay 20' })).status).toBe('interrupted');
    expect(seen).toEqual([20]);
    const resumed = await runner.resume({ userId: 'u', sessionId, responses: { 'Banker:c1': true } });
    expect(resumed.status).toBe('completed');
    expect(seen).toEqual([20, 20]);
    expect(ran).toEqual([20]);

    const big = new ScriptedModel([{ functionCalls: [{ name: 'pay', args: { amount: 5000 }, id: 'c2' }] }]);
    const other = await start(new LlmAgent({ name: 'Banker', model: big, tools: [payTool(ran)] }));
    const blocked = await other.runner.run({ userId: 'u', sessionId: other.sessionId, newMessage: 'pay 5000' });
    expect(blocked.status).toBe('blocked');
    expect(blocked.interrupts).toEqual([]);
    expect(blocked.events.some((e) => e.interrupt)).toBe(false);
    expect(ran).toEqual([20]);
  });

  it('inside an AgentTool: the resumed inner agent is not checked again, and a later tripwire still blocks the whole run', async () => {
    const ran: number[] = [];
    const inputSeen: unknown[] = [];
    const innerModel = new ScriptedModel([
      { functionCalls: [{ name: 'pay', args: { amount: 30 }, id: 'p1' }] },
      'Paid 30, and my secret is hunter2.',
    ]);
    const inner = new LlmAgent({
      name: 'Payer',
      model: innerModel,
      tools: [payTool(ran)],
      inputGuardrails: [counted('topic', () => false, inputSeen)],
      outputGuardrails: [counted('no_secrets', (output) => String(output).includes('secret'), [])],
    });
    const outerModel = new ScriptedModel([
      { functionCalls: [{ name: 'Payer', args: { request: 'pay 30' }, id: 't1' }] },
    ]);
    const { runner, sessionId } = await start(
      new LlmAgent({ name: 'Lead', model: outerModel, tools: [new AgentTool({ agent: inner })] }),
    );
    const paused = await runner.run({ userId: 'u', sessionId, newMessage: 'please pay' });
    expect(paused.status).toBe('interrupted');
    const [interrupt] = paused.interrupts;
    const resumed = await runner.resume({ userId: 'u', sessionId, responses: { [interrupt!.id]: true } });
    expect(ran).toEqual([30]);
    expect(inputSeen).toHaveLength(1);
    expect(resumed.status).toBe('blocked');
    expect((resumed.error as GuardrailTrippedError).agent).toBe('Payer');
    expect(outerModel.callCount).toBe(1);
    const session = await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId });
    const [event] = tripped(session!.events);
    expect(tripped(session!.events)).toHaveLength(1);
    expect(event!.path).toBe('Lead/Payer');
  });
});
