import { describe, expect, it } from 'vitest';
import {
  AgentTool,
  FunctionAgent,
  FunctionTool,
  InMemoryRunner,
  InvalidStateKeyError,
  LlmAgent,
  ParallelAgent,
  RunCancelledError,
  RunLimitError,
  SequentialAgent,
  SessionBusyError,
  SessionNotFoundError,
  type Event,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce } from '../helpers.js';
import { deferred } from '../wait.js';

async function newRunner(agent: ConstructorParameters<typeof InMemoryRunner>[0]['agent']) {
  const runner = new InMemoryRunner({ agent });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  return { runner, sessionId: session.id };
}

describe('Runner', () => {
  it('appends the user message first (with stateDelta) and every event before yielding it', async () => {
    const { runner, sessionId } = await newRunner(new LlmAgent({ name: 'A', model: new ScriptedModel(['hi']) }));
    const seen: number[] = [];
    for await (const event of runner.runAsync({
      userId: 'u',
      sessionId,
      newMessage: 'hello',
      stateDelta: { mood: 'good' },
    })) {
      const stored = await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId });
      seen.push(stored!.events.length);
      expect(stored!.events.at(-1)!.id).toBe(event.id);
    }
    const session = await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId });
    expect(seen).toEqual([2]);
    expect(session!.events[0]).toMatchObject({
      author: 'user',
      content: { role: 'user', parts: [{ text: 'hello' }] },
      actions: { stateDelta: { mood: 'good' } },
    });
    expect(session!.state.mood).toBe('good');
  });

  it('a second concurrent run on the same session fails with SessionBusyError', async () => {
    const { runner, sessionId } = await newRunner(
      new LlmAgent({ name: 'A', model: new ScriptedModel([{ delayMs: 100, reply: 'slow' }]) }),
    );
    const first = runner.run({ userId: 'u', sessionId, newMessage: 'one' });
    await expect(runner.run({ userId: 'u', sessionId, newMessage: 'two' })).rejects.toBeInstanceOf(SessionBusyError);
    expect((await first).status).toBe('completed');
    const session = await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId });
    expect(session!.events.map((e) => e.author)).toEqual(['user', 'A']);
  });

  it('rejects misuse: unknown session, missing message', async () => {
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: 'A', model: new ScriptedModel([]) }) });
    await expect(runner.run({ userId: 'u', sessionId: 'nope', newMessage: 'x' })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    await expect(runner.run({ userId: 'u', sessionId: 'nope' })).rejects.toThrow(/newMessage .* or an input/);
    const auto = new InMemoryRunner({
      agent: new LlmAgent({ name: 'A', model: new ScriptedModel(['made']) }),
      autoCreateSession: true,
    });
    expect((await auto.run({ userId: 'u', sessionId: 'fresh', newMessage: 'x' })).output).toBe('made');
  });

  it('a failure yields a stored error event and then throws from runAsync; run resolves failed', async () => {
    const broken = new FunctionAgent({
      name: 'Broken',
      run: () => {
        throw new Error('kaput');
      },
    });
    const { runner, sessionId } = await newRunner(new SequentialAgent({ name: 'S', subAgents: [broken] }));
    const events: Event[] = [];
    await expect(async () => {
      for await (const e of runner.runAsync({ userId: 'u', sessionId, newMessage: 'x' })) events.push(e);
    }).rejects.toThrow('kaput');
    expect(events.at(-1)).toMatchObject({ author: 'Broken', errorCode: 'ERROR', errorMessage: 'kaput' });
    const session = await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId });
    expect(session!.events.at(-1)!.errorMessage).toBe('kaput');
    const again = await runner.run({ userId: 'u', sessionId, newMessage: 'y' });
    expect(again.status).toBe('failed');
    expect(again.error!.message).toBe('kaput');
  });

  it('maxLlmCalls ends the run with status limit and leaves the session valid', async () => {
    const loopTool = new FunctionTool({ name: 'again', description: 'again', execute: () => 'again' });
    const model = new ScriptedModel(Array.from({ length: 10 }, () => ({ functionCalls: [{ name: 'again' }] })));
    const result = await runOnce(new LlmAgent({ name: 'A', model, tools: [loopTool] }), 'go', {
      runConfig: { maxLlmCalls: 3 },
    });
    expect(result.status).toBe('limit');
    expect(result.stopReason).toBe('maxLlmCalls');
    expect(result.error).toBeInstanceOf(RunLimitError);
    expect(model.requests).toHaveLength(3);
    const session = await result.runner.sessionService.getSession({
      appName: result.runner.appName,
      userId: 'u',
      sessionId: result.sessionId,
    });
    expect(session!.events.at(-1)!.errorCode).toBe('RUN_LIMIT');
    const next = await result.runner.run({
      userId: 'u',
      sessionId: result.sessionId,
      newMessage: 'more',
      runConfig: { maxLlmCalls: 0 },
    });
    expect(next.status).toBe('limit');
  });

  it('maxTokens and timeoutMs end the run with status limit', async () => {
    const tool = new FunctionTool({ name: 't', description: 't', execute: () => 'x'.repeat(400) });
    const model = new ScriptedModel([{ functionCalls: [{ name: 't' }] }, { functionCalls: [{ name: 't' }] }, 'done']);
    const tokens = await runOnce(new LlmAgent({ name: 'A', model, tools: [tool] }), 'go', {
      runConfig: { maxTokens: 60 },
    });
    expect(tokens.status).toBe('limit');
    expect(tokens.stopReason).toBe('maxTokens');

    // A model that would take a minute: only the 50 ms limit can end the run within the test's time.
    const slow = new ScriptedModel([{ delayMs: 60_000, reply: 'late' }]);
    const timed = await runOnce(new LlmAgent({ name: 'A', model: slow }), 'go', { runConfig: { timeoutMs: 50 } });
    expect(timed.status).toBe('limit');
    expect(timed.stopReason).toBe('timeout');
  });

  it('abortSignal reaches every branch; the run ends cancelled and no child keeps running', async () => {
    const controller = new AbortController();
    let finishedAfterAbort = false;
    // The branches wait for `release` (or the abort): the test aborts once all three are busy, and
    // releases them after the run ended, so a branch that ignored the abort would go on and finish.
    const release = deferred();
    const busy = [deferred(), deferred(), deferred()];
    const ended: Promise<unknown>[] = [];
    const sleeper = (name: string, started: (typeof busy)[number]) =>
      new FunctionAgent({
        name,
        run: (_i, ctx) => {
          const run = (async () => {
            await new Promise<void>((resolve, reject) => {
              ctx.abortSignal.addEventListener('abort', () => reject(ctx.abortSignal.reason));
              void release.promise.then(resolve);
              started.resolve();
            });
            finishedAfterAbort = true;
            return name;
          })();
          ended.push(run.catch(() => undefined));
          return run;
        },
      });
    const model = new ScriptedModel([
      () => {
        busy[2]!.resolve();
        return { delayMs: 60_000, reply: 'late' };
      },
    ]);
    const agent = new ParallelAgent({
      name: 'P',
      subAgents: [sleeper('S1', busy[0]!), sleeper('S2', busy[1]!), new LlmAgent({ name: 'L', model })],
    });
    void Promise.all(busy.map((b) => b.promise)).then(() => controller.abort());
    const result = await runOnce(agent, 'go', { abortSignal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(result.error).toBeInstanceOf(RunCancelledError);
    release.resolve();
    await Promise.all(ended);
    expect(finishedAfterAbort).toBe(false);
    expect(result.events.at(-1)!.errorCode).toBe('CANCELLED');
  });

  it('a consumer that stops iterating early releases the session', async () => {
    const { runner, sessionId } = await newRunner(
      new SequentialAgent({
        name: 'S',
        subAgents: [new FunctionAgent({ name: 'A', run: () => 'a' }), new FunctionAgent({ name: 'B', run: () => 'b' })],
      }),
    );
    for await (const _ of runner.runAsync({ userId: 'u', sessionId, newMessage: 'x' })) break;
    const next = await runner.run({ userId: 'u', sessionId, newMessage: 'y' });
    expect(next.status).toBe('completed');
  });

  it('usage totals cover the whole tree per agent, AgentTool and parallel children included', async () => {
    const inner = new LlmAgent({ name: 'Inner', model: new ScriptedModel(['inner answer']) });
    const p1 = new LlmAgent({ name: 'P1', model: new ScriptedModel(['p1']) });
    const p2 = new LlmAgent({ name: 'P2', model: new ScriptedModel(['p2']) });
    const caller = new LlmAgent({
      name: 'Caller',
      model: new ScriptedModel([{ functionCalls: [{ name: 'Inner', args: { request: 'q' } }] }, 'final']),
      tools: [new AgentTool({ agent: inner })],
    });
    const result = await runOnce(
      new SequentialAgent({ name: 'S', subAgents: [new ParallelAgent({ name: 'P', subAgents: [p1, p2] }), caller] }),
      'go',
      { runConfig: { streaming: 'sse' } },
    );
    expect(Object.keys(result.usage.byAgent).sort()).toEqual(['Caller', 'Inner', 'P1', 'P2']);
    const modelEvents = result.events.filter((e) => e.usage);
    expect(modelEvents).toHaveLength(5);
    expect(result.usage.outputTokens).toBe(modelEvents.reduce((sum, e) => sum + e.usage!.outputTokens, 0));
    expect(result.usage.inputTokens).toBe(Object.values(result.usage.byAgent).reduce((s, a) => s + a.inputTokens, 0));
  });

  it('usage is reported for failed runs too', async () => {
    const model = new ScriptedModel(['ok']);
    const result = await runOnce(
      new SequentialAgent({
        name: 'S',
        subAgents: [
          new LlmAgent({ name: 'A', model }),
          new FunctionAgent({
            name: 'F',
            run: () => {
              throw new Error('x');
            },
          }),
        ],
      }),
      'go',
    );
    expect(result.status).toBe('failed');
    expect(result.usage.byAgent.A!.outputTokens).toBeGreaterThan(0);
  });

  it('temp: state lives for one invocation only', async () => {
    const writer = new FunctionAgent({
      name: 'W',
      run: (_i, ctx) => {
        ctx.state.set('temp:scratch', 'x');
        return String(ctx.state.get('temp:scratch'));
      },
    });
    const reader = new FunctionAgent({ name: 'R', run: (_i, ctx) => String(ctx.session.state['temp:scratch']) });
    const { runner, sessionId } = await newRunner(new SequentialAgent({ name: 'S', subAgents: [writer, reader] }));
    const first = await runner.run({ userId: 'u', sessionId, newMessage: 'a' });
    expect(first.output).toBe('x');
    expect(first.state['temp:scratch']).toBeUndefined();
    const stored = await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId });
    expect(stored!.state['temp:scratch']).toBeUndefined();
    expect(JSON.stringify(stored!.events)).not.toContain('temp:scratch');
  });

  it('prototype-polluting state keys fail the run with a clear error instead of being dropped', async () => {
    const bad = new FunctionAgent({
      name: 'Bad',
      run: (_i, ctx) => {
        ctx.state.set('__proto__', { polluted: true });
        return 'x';
      },
    });
    const result = await runOnce(bad, 'go');
    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(InvalidStateKeyError);
    expect(result.error!.message).toMatch(/'__proto__' is not allowed/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const { runner, sessionId } = await newRunner(bad);
    await expect(
      runner.run({ userId: 'u', sessionId, newMessage: 'x', stateDelta: { constructor: 1 } }),
    ).rejects.toBeInstanceOf(InvalidStateKeyError);
  });

  it('endInvocation ends the run after the current event', async () => {
    const stopper = new FunctionAgent({
      name: 'Stopper',
      run: (_i, ctx) => {
        ctx.invocationContext.endInvocation = true;
        return 'stop here';
      },
    });
    const never = new FunctionAgent({ name: 'Never', run: () => 'never' });
    const result = await runOnce(new SequentialAgent({ name: 'S', subAgents: [stopper, never] }), 'go');
    expect(result.status).toBe('completed');
    expect(result.events.map((e) => e.author)).toEqual(['Stopper']);
  });

  it('input without newMessage: the user event carries the input', async () => {
    const echo = new FunctionAgent({ name: 'Echo', run: (input) => input });
    const { runner, sessionId } = await newRunner(echo);
    const result = await runner.run({ userId: 'u', sessionId, input: { request: 'plain text' } });
    expect(result.output).toEqual({ request: 'plain text' });
    const session = await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId });
    expect(session!.events[0]!.content!.parts).toEqual([{ text: 'plain text' }]);
    const second = await runner.run({ userId: 'u', sessionId, newMessage: 'hello there' });
    expect(second.output).toEqual({ request: 'hello there' });
  });
});
