import { describe, expect, it } from 'vitest';
import {
  AgentTool,
  FunctionAgent,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  LoopAgent,
  ParallelAgent,
  RunDrainedError,
  SequentialAgent,
  TeamAgent,
  type BaseAgent,
  type Event,
  type RunResult,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { z } from 'zod';
import { deferred } from '../wait.js';

/** A step that records that it started; `abort` makes it cancel the run while it is running. */
function step(name: string, started: string[], abort?: () => void): FunctionAgent {
  return new FunctionAgent({
    name,
    run: () => {
      started.push(name);
      abort?.();
      return name;
    },
  });
}

async function runWith(agent: BaseAgent, controller: AbortController, options: { model?: ScriptedModel } = {}) {
  const runner = new InMemoryRunner({ agent, ...(options.model ? { defaultModel: options.model } : {}) });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const result = await runner.run({
    userId: 'u',
    sessionId: session.id,
    newMessage: 'go',
    abortSignal: controller.signal,
  });
  const stored = (await runner.sessionService.getSession({
    appName: runner.appName,
    userId: 'u',
    sessionId: session.id,
  }))!;
  return { runner, sessionId: session.id, result, stored: stored.events };
}

function expectCancelled(result: RunResult, stored: Event[]): void {
  expect(result.status).toBe('cancelled');
  expect(stored.filter((e) => e.errorCode === 'CANCELLED')).toHaveLength(1);
  expect(stored.filter((e) => e.errorCode !== undefined)).toHaveLength(1);
  expect(stored[stored.length - 1]!.errorCode).toBe('CANCELLED');
}

describe('cancellation: nothing starts after an abort', () => {
  it('a pipeline stops at the step where it was cancelled; later steps never start', async () => {
    const started: string[] = [];
    const controller = new AbortController();
    const pipeline = new SequentialAgent({
      name: 'Pipeline',
      subAgents: [
        step('a', started),
        step('b', started, () => controller.abort()),
        step('c', started),
        step('d', started),
      ],
    });
    const { result, stored } = await runWith(pipeline, controller);
    expectCancelled(result, stored);
    expect(started).toEqual(['a', 'b']);
  });

  it('a loop starts no further iteration or child', async () => {
    const started: string[] = [];
    const controller = new AbortController();
    let n = 0;
    const loop = new LoopAgent({
      name: 'Forever',
      subAgents: [
        new FunctionAgent({
          name: 'tick',
          run: () => {
            started.push(`tick${++n}`);
            if (n === 3) controller.abort();
            return n;
          },
        }),
        step('tock', started),
      ],
    });
    const { result, stored } = await runWith(loop, controller);
    expectCancelled(result, stored);
    expect(started).toEqual(['tick1', 'tock', 'tick2', 'tock', 'tick3']);
  });

  it('parallel branches waiting for a free slot never start', async () => {
    const started: string[] = [];
    const controller = new AbortController();
    const fan = new ParallelAgent({
      name: 'Fan',
      maxConcurrency: 1,
      subAgents: [step('p1', started, () => controller.abort()), step('p2', started), step('p3', started)],
    });
    const { result, stored } = await runWith(fan, controller);
    expectCancelled(result, stored);
    expect(started).toEqual(['p1']);
  });

  it('a team starts no further skill', async () => {
    const started: string[] = [];
    const controller = new AbortController();
    const team = new TeamAgent({
      name: 'Team',
      mode: 'sequential',
      skills: [step('first', started, () => controller.abort()), step('second', started)],
    });
    const { result, stored } = await runWith(team, controller);
    expectCancelled(result, stored);
    expect(started).toEqual(['first']);
  });

  it('inside an AgentTool: the called pipeline stops and the caller makes no further model call', async () => {
    const started: string[] = [];
    const controller = new AbortController();
    const inner = new SequentialAgent({
      name: 'Inner',
      subAgents: [step('i1', started, () => controller.abort()), step('i2', started)],
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'Inner', args: { request: 'x' } }] }]);
    const caller = new LlmAgent({ name: 'Caller', model, tools: [new AgentTool({ agent: inner })] });
    const { result, stored } = await runWith(caller, controller);
    expectCancelled(result, stored);
    expect(started).toEqual(['i1']);
    expect(model.requests).toHaveLength(1);
  });

  it('after a transfer: the target pipeline stops', async () => {
    const started: string[] = [];
    const controller = new AbortController();
    const target = new SequentialAgent({
      name: 'Target',
      description: 'does it',
      subAgents: [step('t1', started, () => controller.abort()), step('t2', started)],
    });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'transfer_to_agent', args: { agent_name: 'Target' } }] },
    ]);
    const root = new LlmAgent({ name: 'Root', model, subAgents: [target] });
    const { result, stored } = await runWith(root, controller);
    expectCancelled(result, stored);
    expect(started).toEqual(['t1']);
  });

  it('no tool starts once the run is cancelled, and the model is not called again', async () => {
    const ran: string[] = [];
    const controller = new AbortController();
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'stop', args: {} }] },
      { functionCalls: [{ name: 'work', args: {} }] },
    ]);
    const stop = new FunctionTool({
      name: 'stop',
      description: 'stops',
      parameters: z.object({}),
      execute: () => {
        ran.push('stop');
        controller.abort();
        return { ok: true };
      },
    });
    const work = new FunctionTool({
      name: 'work',
      description: 'works',
      parameters: z.object({}),
      execute: () => {
        ran.push('work');
        return { ok: true };
      },
    });
    const { result, stored } = await runWith(new LlmAgent({ name: 'Agent', model, tools: [stop, work] }), controller);
    expectCancelled(result, stored);
    expect(ran).toEqual(['stop']);
    expect(model.requests).toHaveLength(1);
  });

  it('the session is free at once, even while a step that ignores the signal is still running; its late event is never stored', async () => {
    const controller = new AbortController();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const lateReturned = deferred();
    const slow = new FunctionAgent({
      name: 'Slow',
      run: async () => {
        calls++;
        if (calls === 1) {
          controller.abort();
          await gate; // ignores the signal
          queueMicrotask(() => lateReturned.resolve());
          return 'late';
        }
        return 'second turn';
      },
    });
    const { runner, sessionId, result, stored } = await runWith(slow, controller);
    expectCancelled(result, stored);
    const next = await runner.run({ userId: 'u', sessionId, newMessage: 'again' });
    expect(next.status).toBe('completed');
    expect(next.output).toBe('second turn');
    release();
    // The step has returned its late output; one turn of the event loop later, whatever the runner
    // would do with it has been done.
    await lateReturned.promise;
    await new Promise((resolve) => setImmediate(resolve));
    const session = await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId });
    expect(session!.events.map((e) => e.output ?? e.errorCode ?? 'user')).toEqual([
      'user',
      'CANCELLED',
      'user',
      'second turn',
    ]);
  });
});

describe('draining: a run stopped for a shutdown stores no ending and resumes elsewhere', () => {
  it('stores no terminal event; resume({ invocationId }) runs the rest without repeating finished steps', async () => {
    const started: string[] = [];
    const controller = new AbortController();
    let drain = true;
    const pipeline = new SequentialAgent({
      name: 'Pipeline',
      subAgents: [
        step('a', started),
        step('b', started, () => {
          if (drain) controller.abort(new RunDrainedError());
        }),
        step('c', started),
      ],
    });
    const { runner, sessionId, result, stored } = await runWith(pipeline, controller);
    expect(result.status).toBe('cancelled');
    expect(result.error).toBeInstanceOf(RunDrainedError);
    expect(stored.some((e) => e.errorCode !== undefined)).toBe(false);
    expect(started).toEqual(['a', 'b']);

    drain = false;
    const invocationId = stored[0]!.invocationId;
    const resumed = await runner.resume({ userId: 'u', sessionId, invocationId });
    expect(resumed.status).toBe('completed');
    // 'b' was in flight when the process drained (its event was never stored): it runs again, at least once.
    expect(started).toEqual(['a', 'b', 'b', 'c']);
    expect(resumed.output).toBe('c');
  });

  it('toolContext.idempotencyKey is the same when a crash-resume runs the call again', async () => {
    const keys: string[] = [];
    const controller = new AbortController();
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'charge', args: { cents: 500 }, id: 'call-1' }] },
      'charged',
    ]);
    const charge = new FunctionTool({
      name: 'charge',
      description: 'charges a card',
      parameters: z.object({ cents: z.number() }),
      execute: async (_args, ctx) => {
        keys.push(ctx.idempotencyKey);
        if (keys.length === 1) {
          controller.abort(new RunDrainedError());
          await new Promise(() => undefined); // the process "dies" with the call in flight
        }
        return { ok: true };
      },
    });
    const { runner, sessionId, result, stored } = await runWith(
      new LlmAgent({ name: 'Cashier', model, tools: [charge] }),
      controller,
    );
    expect(result.status).toBe('cancelled');
    const invocationId = stored[0]!.invocationId;
    const resumed = await runner.resume({ userId: 'u', sessionId, invocationId });
    expect(resumed.status).toBe('completed');
    expect(resumed.output).toBe('charged');
    expect(keys).toEqual([`${invocationId}:call-1`, `${invocationId}:call-1`]);
    model.assertDone();
  });
});
