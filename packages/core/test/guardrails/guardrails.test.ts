import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigurationError,
  FunctionTool,
  GuardrailError,
  GuardrailTrippedError,
  InMemoryRunner,
  LlmAgent,
  contentText,
  type Content,
  type Event,
  type GuardrailInput,
  type InputGuardrail,
  type OutputGuardrail,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce } from '../helpers.js';

/** A tool whose every run is counted: the side effect a tripwire must prevent. */
function sideEffectTool(counter: { runs: number }, name = 'send_email'): FunctionTool {
  return new FunctionTool({
    name,
    description: 'Sends an email.',
    execute: () => {
      counter.runs++;
      return { sent: true };
    },
  });
}

function trippedEvents(events: Event[]): Event[] {
  return events.filter((e) => e.errorCode === 'GUARDRAIL_TRIPPED');
}

const trips = (name: string, info?: unknown): InputGuardrail & OutputGuardrail => ({
  name,
  check: () => ({ tripwire: true, info }),
});
const passes = (name: string, seen: unknown[] = []): InputGuardrail & OutputGuardrail => ({
  name,
  check: (_ctx, value) => {
    seen.push(value);
    return { tripwire: false };
  },
});

describe('input guardrails', () => {
  it('a concurrent tripwire holds the first response: its function call never runs, nothing of it is stored', async () => {
    const counter = { runs: 0 };
    let answered!: () => void;
    const modelAnswered = new Promise<void>((resolve) => (answered = resolve));
    const model = new ScriptedModel([
      () => {
        answered();
        return { functionCalls: [{ name: 'send_email', args: {} }] };
      },
    ]);
    const agent = new LlmAgent({
      name: 'Support',
      model,
      tools: [sideEffectTool(counter)],
      inputGuardrails: [
        {
          name: 'no_homework',
          // Decides only after the model answered, so the function call is already there.
          check: async (_ctx, input) => {
            await modelAnswered;
            await new Promise((resolve) => setTimeout(resolve, 5));
            return { tripwire: JSON.stringify(input).includes('homework'), info: { reason: 'homework' } };
          },
        },
      ],
    });
    const result = await runOnce(agent, 'Do my math homework');

    expect(model.callCount).toBe(1);
    expect(counter.runs).toBe(0);
    expect(result.status).toBe('blocked');
    expect(result.error).toBeInstanceOf(GuardrailTrippedError);
    const error = result.error as GuardrailTrippedError;
    expect(error.code).toBe('GUARDRAIL_TRIPPED');
    expect(error.guardrail).toBe('no_homework');
    expect(error.agent).toBe('Support');
    expect(error.kind).toBe('input');
    expect(error.info).toEqual({ reason: 'homework' });
    // Only a string info is told in the stored message; an object stays on the error.
    expect(error.message).not.toMatch(/Reason|\{/);
    // The model's response was held: only the user's message and the tripwire are stored.
    const session = await result.runner.sessionService.getSession({
      appName: result.runner.appName,
      userId: 'u',
      sessionId: result.sessionId,
    });
    expect(session!.events.map((e) => e.author)).toEqual(['user', 'Support']);
    const [tripped] = trippedEvents(session!.events);
    expect(tripped!.errorMessage).toContain("Guardrail 'no_homework'");
    expect(tripped!.errorMessage).toContain("agent 'Support'");
    expect(tripped!.content).toBeUndefined();
    expect(result.events.filter((e) => e.content)).toEqual([]);
  });

  it('held streamed chunks of the first response are never yielded when the guardrail trips', async () => {
    const model = new ScriptedModel([{ chunks: ['Sure, ', 'the answer is 42.'] }]);
    const agent = new LlmAgent({
      name: 'Support',
      model,
      inputGuardrails: [
        { name: 'slow_block', check: () => new Promise((resolve) => setTimeout(() => resolve({ tripwire: true }), 5)) },
      ],
    });
    const runner = new InMemoryRunner({ agent });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const yielded: Event[] = [];
    await expect(async () => {
      for await (const event of runner.runAsync({
        userId: 'u',
        sessionId: session.id,
        newMessage: 'hi',
        runConfig: { streaming: 'sse' },
      }))
        yielded.push(event);
    }).rejects.toBeInstanceOf(GuardrailTrippedError);
    expect(yielded.some((e) => e.partial)).toBe(false);
    expect(yielded.map((e) => e.errorCode)).toEqual(['GUARDRAIL_TRIPPED']);
  });

  it('a blocking guardrail runs first: the model is never called when it trips', async () => {
    const model = new ScriptedModel([]);
    const agent = new LlmAgent({ name: 'Support', model, inputGuardrails: [{ ...trips('policy'), blocking: true }] });
    const result = await runOnce(agent, 'hello');
    expect(result.status).toBe('blocked');
    expect(model.callCount).toBe(0);
    expect(trippedEvents(result.events)).toHaveLength(1);
  });

  it('passing guardrails change nothing: same events, output and state; they see the user Content', async () => {
    const run = async (guarded: boolean) => {
      const counter = { runs: 0 };
      const seen: unknown[] = [];
      const model = new ScriptedModel([{ functionCalls: [{ name: 'send_email', args: {}, id: 'c1' }] }, 'Done.']);
      const agent = new LlmAgent({
        name: 'Support',
        model,
        outputKey: 'answer',
        tools: [sideEffectTool(counter)],
        ...(guarded
          ? {
              inputGuardrails: [passes('a', seen), { ...passes('b', seen), blocking: true }],
              outputGuardrails: [passes('out', seen)],
            }
          : {}),
      });
      const result = await runOnce(agent, 'send it');
      return { result, counter, seen };
    };
    const plain = await run(false);
    const guarded = await run(true);
    expect(guarded.result.status).toBe('completed');
    expect(guarded.counter.runs).toBe(1);
    expect(guarded.result.output).toBe('Done.');
    expect(guarded.result.state).toEqual(plain.result.state);
    const shape = (events: Event[]) =>
      events.map((e) => ({ author: e.author, content: e.content, output: e.output, delta: e.actions.stateDelta }));
    expect(shape(guarded.result.events)).toEqual(shape(plain.result.events));
    const userContent: Content = { role: 'user', parts: [{ text: 'send it' }] };
    expect(guarded.seen).toEqual(expect.arrayContaining([userContent, userContent, 'Done.']));
    expect(guarded.seen).toHaveLength(3);
  });

  it('gets ctx.input for a structured input, and writes state on the first response event', async () => {
    let seen: GuardrailInput | undefined;
    const model = new ScriptedModel(['ok']);
    const agent = new LlmAgent({
      name: 'Support',
      model,
      inputGuardrails: [
        {
          name: 'record',
          check: (ctx, input) => {
            seen = input;
            ctx.state.set('checked', true);
            return { tripwire: false };
          },
        },
      ],
    });
    const runner = new InMemoryRunner({ agent });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: session.id, input: { topic: 'cats', words: 10 } });
    expect(seen).toEqual({ topic: 'cats', words: 10 });
    expect(result.state.checked).toBe(true);
    expect(result.events.find((e) => e.author === 'Support')!.actions.stateDelta).toEqual({ checked: true });
  });
});

describe('output guardrails', () => {
  it('a tripped output is not stored as the answer and outputKey is not written', async () => {
    const model = new ScriptedModel(['My SSN is 123-45-6789.']);
    const agent = new LlmAgent({
      name: 'Writer',
      model,
      outputKey: 'answer',
      outputGuardrails: [
        {
          name: 'no_pii',
          check: (_ctx, output) => ({ tripwire: /\d{3}-\d{2}-\d{4}/.test(String(output)), info: 'SSN' }),
        },
      ],
    });
    const result = await runOnce(agent, 'tell me a secret');
    expect(result.status).toBe('blocked');
    expect(result.output).toBeUndefined();
    expect(result.state).not.toHaveProperty('answer');
    const session = await result.runner.sessionService.getSession({
      appName: result.runner.appName,
      userId: 'u',
      sessionId: result.sessionId,
    });
    expect(session!.events.some((e) => contentText(e.content).includes('123-45'))).toBe(false);
    const tripped = trippedEvents(session!.events);
    expect(tripped).toHaveLength(1);
    expect(tripped[0]!.errorMessage).toMatch(
      /^Guardrail 'no_pii' tripped on the output of agent 'Writer'.*Reason: SSN$/,
    );
    expect((result.error as GuardrailTrippedError).kind).toBe('output');
  });

  it('checks the parsed object of an outputSchema agent', async () => {
    const seen: unknown[] = [];
    const model = new ScriptedModel(['{"city":"Paris"}']);
    const agent = new LlmAgent({
      name: 'Geo',
      model,
      outputSchema: z.object({ city: z.string() }),
      outputKey: 'place',
      outputGuardrails: [passes('shape', seen)],
    });
    const result = await runOnce(agent, 'capital of France?');
    expect(result.status).toBe('completed');
    expect(seen).toEqual([{ city: 'Paris' }]);
    expect(result.state.place).toEqual({ city: 'Paris' });
  });
});

describe('tool guardrails', () => {
  it('a tripped tool guardrail blocks the run: the tool does not run and the model is not called again', async () => {
    const counter = { runs: 0 };
    const seen: unknown[] = [];
    const transfer = new FunctionTool({
      name: 'transfer_money',
      description: 'Moves money.',
      parameters: z.object({ amount: z.number() }),
      guardrails: [
        {
          name: 'max_amount',
          check: (ctx, args) => {
            seen.push(args.amount, ctx.functionCallId);
            return { tripwire: args.amount > 1000, info: { limit: 1000 } };
          },
        },
      ],
      execute: () => {
        counter.runs++;
        return { ok: true };
      },
    });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 5000 }, id: 'call-1' }] },
    ]);
    const agent = new LlmAgent({ name: 'Banker', model, tools: [transfer] });
    const result = await runOnce(agent, 'send 5000');
    expect(result.status).toBe('blocked');
    expect(counter.runs).toBe(0);
    expect(model.callCount).toBe(1);
    expect(seen).toEqual([5000, 'call-1']);
    const error = result.error as GuardrailTrippedError;
    expect([error.kind, error.tool, error.agent, error.guardrail]).toEqual([
      'tool',
      'transfer_money',
      'Banker',
      'max_amount',
    ]);
    const tripped = trippedEvents(result.events);
    expect(tripped).toHaveLength(1);
    expect(tripped[0]!.author).toBe('Banker');
    expect(tripped[0]!.errorMessage).toContain("tool 'transfer_money'");
    // No function response was stored for the blocked call.
    expect(result.events.some((e) => e.content?.parts.some((p) => 'functionResponse' in p))).toBe(false);
  });

  it('a passing tool guardrail lets the tool run', async () => {
    const counter = { runs: 0 };
    const tool = new FunctionTool({
      name: 'send_email',
      description: 'Sends.',
      guardrails: [{ name: 'ok', check: () => ({ tripwire: false }) }],
      execute: () => ++counter.runs,
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'send_email' }] }, 'Sent.']);
    const result = await runOnce(new LlmAgent({ name: 'Mailer', model, tools: [tool] }), 'send');
    expect(result.status).toBe('completed');
    expect(counter.runs).toBe(1);
  });
});

describe('guardrail failures and configuration', () => {
  it('a check that throws fails the run (not blocked), naming the guardrail', async () => {
    const model = new ScriptedModel([{ delayMs: 10_000, reply: 'never' }]);
    const agent = new LlmAgent({
      name: 'Support',
      model,
      inputGuardrails: [
        {
          name: 'classifier',
          check: () => {
            throw new Error('classifier service unavailable');
          },
        },
      ],
    });
    const result = await runOnce(agent, 'hello');
    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(GuardrailError);
    expect(result.error!.message).toContain("Guardrail 'classifier'");
    expect(result.error!.message).toContain('classifier service unavailable');
    expect(result.events.at(-1)!.errorCode).toBe('GUARDRAIL_ERROR');
  });

  it('a check that returns something else than { tripwire } fails the run with the value', async () => {
    const agent = new LlmAgent({
      name: 'Support',
      model: new ScriptedModel([]),
      inputGuardrails: [{ name: 'sloppy', blocking: true, check: () => true as never }],
    });
    const result = await runOnce(agent, 'hello');
    expect(result.status).toBe('failed');
    expect(result.error!.message).toMatch(/Guardrail 'sloppy'.*returned boolean true.*tripwire: boolean/);
  });

  it('cancellation while a guardrail runs ends the run cancelled', async () => {
    const controller = new AbortController();
    const agent = new LlmAgent({
      name: 'Support',
      model: new ScriptedModel([]),
      inputGuardrails: [
        {
          name: 'slow',
          blocking: true,
          check: () => {
            controller.abort();
            return new Promise(() => undefined);
          },
        },
      ],
    });
    const result = await runOnce(agent, 'hello', { abortSignal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(result.events.map((e) => e.errorCode)).toEqual(['CANCELLED']);
  });

  it('rejects bad guardrail options with the fix', () => {
    const model = new ScriptedModel([]);
    expect(() => new LlmAgent({ name: 'A', model, inputGuardrails: {} as never })).toThrow(ConfigurationError);
    expect(() => new LlmAgent({ name: 'A', model, inputGuardrails: {} as never })).toThrow(
      /inputGuardrails.*pass an array of guardrails/,
    );
    expect(() => new LlmAgent({ name: 'A', model, inputGuardrails: ['x' as never] })).toThrow(
      /inputGuardrails\[0\] is string "x"/,
    );
    expect(
      () => new LlmAgent({ name: 'A', model, outputGuardrails: [{ check: () => ({ tripwire: false }) } as never] }),
    ).toThrow(/outputGuardrails\[0\] has name undefined; give it a non-empty string name/);
    expect(() => new LlmAgent({ name: 'A', model, outputGuardrails: [{ name: 'x' } as never] })).toThrow(
      /'x'\) has check undefined; give it a function check/,
    );
    expect(() => new LlmAgent({ name: 'A', model, inputGuardrails: [passes('dup'), passes('dup')] })).toThrow(
      /two inputGuardrails named 'dup'. Give each guardrail a unique name/,
    );
    expect(
      () =>
        new FunctionTool({
          name: 't',
          description: '',
          execute: () => 1,
          guardrails: [{ name: 'b', blocking: 'yes' as never, check: () => ({ tripwire: false }) }],
        }),
    ).toThrow(/FunctionTool 't' guardrails\[0\] \('b'\) has blocking string "yes"/);
  });
});

describe('guardrail types', () => {
  it('a tool guardrail gets the arguments typed from the zod parameters, and the tool context', () => {
    new FunctionTool({
      name: 'pay',
      description: 'Pays.',
      parameters: z.object({ amount: z.number(), to: z.string() }),
      guardrails: [
        {
          name: 'typed',
          check: (ctx, args) => {
            expectTypeOf(args).toEqualTypeOf<{ amount: number; to: string }>();
            expectTypeOf(ctx.functionCallId).toEqualTypeOf<string>();
            return { tripwire: args.amount > 10 };
          },
        },
      ],
      execute: () => 'paid',
    });
    expectTypeOf<Parameters<InputGuardrail['check']>[1]>().toEqualTypeOf<GuardrailInput>();
  });
});
