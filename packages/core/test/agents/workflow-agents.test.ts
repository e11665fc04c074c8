import { describe, expect, it } from 'vitest';
import {
  BaseAgent,
  FunctionAgent,
  FunctionTool,
  LlmAgent,
  LoopAgent,
  ParallelAgent,
  SequentialAgent,
  createEvent,
  exitLoop,
  type InvocationContext,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce, texts } from '../helpers.js';
import { barrier, deferred } from '../wait.js';

class StopChecker extends BaseAgent {
  protected async *runAsyncImpl(ctx: InvocationContext) {
    yield createEvent({ actions: { escalate: ctx.session.state.status === 'completed' } });
  }
}

describe('SequentialAgent', () => {
  it('runs children in order with shared state; output is the last child output', async () => {
    const order: string[] = [];
    const step = (name: string) =>
      new FunctionAgent({
        name,
        outputKey: name,
        run: (_input, ctx) => {
          order.push(name);
          return `${name}(${String(ctx.state.get('A') ?? '-')})`;
        },
      });
    const result = await runOnce(new SequentialAgent({ name: 'Seq', subAgents: [step('A'), step('B')] }), 'go');
    expect(order).toEqual(['A', 'B']);
    expect(result.state).toMatchObject({ A: 'A(-)', B: 'B(A(-))' });
    expect(result.output).toBe('B(A(-))');
    // Built-in agents show in their own events that they finished: no extra progress records.
    expect(result.events.map((e) => e.author)).toEqual(['A', 'B']);
  });

  it('records its progress after a custom agent, which cannot tell on resume whether it finished', async () => {
    class Custom extends BaseAgent {
      protected async *runAsyncImpl() {
        yield createEvent({ content: { role: 'model', parts: [{ text: 'custom' }] } });
      }
    }
    const result = await runOnce(
      new SequentialAgent({
        name: 'Seq',
        subAgents: [new Custom({ name: 'C' }), new FunctionAgent({ name: 'F', run: () => 'f' })],
      }),
      'go',
    );
    expect(result.events.map((e) => [e.author, e.actions.agentState])).toEqual([
      ['C', undefined],
      ['Seq', { next: 1 }],
      ['F', undefined],
    ]);
  });
});

describe('ParallelAgent', () => {
  it('runs children concurrently on their own branches; fan-in for the next agent, no sibling visibility', async () => {
    // Each fetcher answers only once both are in their model call: run one after the other, they would never meet.
    const bothCalling = barrier(2, 'fetchers in their model call');
    const fetcher = (name: string, key: string) =>
      new LlmAgent({
        name,
        outputKey: key,
        model: new ScriptedModel([
          async (request) => {
            await bothCalling.arrive();
            return `${name} data (saw ${texts(request.contents).length} turns)`;
          },
        ]),
      });
    const synthModel = new ScriptedModel(['combined']);
    const synth = new LlmAgent({
      name: 'Synthesizer',
      model: synthModel,
      instruction: 'Combine {weather} and {news}.',
    });
    const gather = new ParallelAgent({
      name: 'InfoGatherer',
      subAgents: [fetcher('WeatherFetcher', 'weather'), fetcher('NewsFetcher', 'news')],
    });
    const result = await runOnce(new SequentialAgent({ name: 'Flow', subAgents: [gather, synth] }), 'today?');
    expect(result.status).toBe('completed');
    expect(result.state.weather).toBe('WeatherFetcher data (saw 1 turns)');
    expect(result.state.news).toBe('NewsFetcher data (saw 1 turns)');
    expect(result.events.find((e) => e.author === 'WeatherFetcher')!.branch).toBe('InfoGatherer.WeatherFetcher');
    expect(result.events.find((e) => e.author === 'WeatherFetcher')!.path).toBe('Flow/InfoGatherer/WeatherFetcher');
    expect(synthModel.requests[0]!.config.systemInstruction).toContain('WeatherFetcher data');
    expect(texts(synthModel.requests[0]!.contents)).toEqual(
      expect.arrayContaining([
        'today?',
        '[WeatherFetcher] said: WeatherFetcher data (saw 1 turns)',
        '[NewsFetcher] said: NewsFetcher data (saw 1 turns)',
      ]),
    );
    const parallelEnd = result.events.find((e) => e.author === 'InfoGatherer' && e.actions.endOfAgent)!;
    expect(parallelEnd.output).toEqual({
      WeatherFetcher: 'WeatherFetcher data (saw 1 turns)',
      NewsFetcher: 'NewsFetcher data (saw 1 turns)',
    });
  });

  it('applies every branch state write; none is lost', async () => {
    const writers = Array.from(
      { length: 20 },
      (_, i) =>
        new FunctionAgent({
          name: `W${i}`,
          run: async (_input, ctx) => {
            await new Promise((r) => setTimeout(r, (i * 7) % 13));
            ctx.state.set(`key${i}`, i);
            ctx.state.set('last', i);
            return i;
          },
        }),
    );
    const result = await runOnce(new ParallelAgent({ name: 'P', subAgents: writers }), 'go');
    for (let i = 0; i < 20; i++) expect(result.state[`key${i}`]).toBe(i);
    expect(result.output).toEqual(Object.fromEntries(writers.map((w, i) => [w.name, i])));
  });

  it('an error in one child aborts the others and is rethrown', async () => {
    let siblingAborted = false;
    const slowStarted = deferred();
    // Ends only when aborted: the run finishing at all shows the failure stopped it.
    const slow = new FunctionAgent({
      name: 'Slow',
      run: (_input, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.abortSignal.addEventListener('abort', () => {
            siblingAborted = true;
            reject(ctx.abortSignal.reason);
          });
          slowStarted.resolve();
        }),
    });
    const failing = new FunctionAgent({
      name: 'Failing',
      run: async () => {
        await slowStarted.promise;
        throw new Error('boom');
      },
    });
    const result = await runOnce(new ParallelAgent({ name: 'P', subAgents: [slow, failing] }), 'go');
    expect(result.status).toBe('failed');
    expect(result.error!.message).toBe('boom');
    expect(siblingAborted).toBe(true);
    expect(result.events.at(-1)).toMatchObject({ errorMessage: 'boom', author: 'Failing', path: 'P/Failing' });
  });

  it('maxConcurrency bounds how many children run at once', async () => {
    let running = 0;
    let peak = 0;
    // The first two wait for each other, so two provably run at once; the rest pass straight through.
    const firstTwo = barrier(2, 'children running at once');
    const kids = Array.from(
      { length: 6 },
      (_, i) =>
        new FunctionAgent({
          name: `K${i}`,
          run: async () => {
            running++;
            peak = Math.max(peak, running);
            if (i < 2) await firstTwo.arrive();
            else await Promise.resolve();
            running--;
            return i;
          },
        }),
    );
    const result = await runOnce(new ParallelAgent({ name: 'P', subAgents: kids, maxConcurrency: 2 }), 'go');
    expect(result.status).toBe('completed');
    expect(peak).toBe(2);
  });
});

describe('LoopAgent', () => {
  it('StatusPoller: escalation stops the loop right after the escalating event; the enclosing pipeline continues', async () => {
    let polls = 0;
    const process = new FunctionAgent({
      name: 'ProcessingStep',
      run: (_i, ctx) => {
        polls++;
        if (polls === 3) ctx.state.set('status', 'completed');
        return `poll ${polls}`;
      },
    });
    const poller = new LoopAgent({
      name: 'StatusPoller',
      maxIterations: 10,
      subAgents: [process, new StopChecker({ name: 'Checker' })],
    });
    const after = new FunctionAgent({ name: 'After', run: () => 'after ran' });
    const result = await runOnce(new SequentialAgent({ name: 'Pipeline', subAgents: [poller, after] }), 'go');
    expect(polls).toBe(3);
    const end = result.events.find((e) => e.author === 'StatusPoller' && e.actions.endOfAgent)!;
    expect(end.actions.agentState).toEqual({ stopReason: 'escalated', iterations: 3 });
    expect(result.output).toBe('after ran');
    const checkerIndex = result.events.findIndex((e) => e.author === 'Checker' && e.actions.escalate);
    expect(result.events[checkerIndex + 1]).toBe(end);
  });

  it('stops at maxIterations and says so', async () => {
    let runs = 0;
    const work = new FunctionAgent({ name: 'Work', run: () => ++runs });
    const result = await runOnce(new LoopAgent({ name: 'L', maxIterations: 4, subAgents: [work] }), 'go');
    expect(runs).toBe(4);
    expect(result.events.at(-1)!.actions.agentState).toEqual({ stopReason: 'maxIterations', iterations: 4 });
    expect(result.output).toBe(4);
  });

  it('exitLoop ends the loop with no further model calls', async () => {
    const model = new ScriptedModel(['draft 1', { functionCalls: [{ name: 'exit_loop' }] }]);
    const refiner = new LlmAgent({ name: 'Refiner', model, tools: [exitLoop] });
    const result = await runOnce(new LoopAgent({ name: 'Refine', maxIterations: 5, subAgents: [refiner] }), 'go');
    expect(model.requests).toHaveLength(2);
    expect(result.events.at(-1)!.actions.agentState).toMatchObject({ stopReason: 'escalated', iterations: 2 });
    model.assertDone();
  });

  it('escalation inside a sequential step skips the rest of that iteration', async () => {
    const ran: string[] = [];
    const escalate = new FunctionAgent({
      name: 'Esc',
      run: (_i, ctx) => {
        ran.push('Esc');
        ctx.actions.escalate = true;
        return 'x';
      },
    });
    const never = new FunctionAgent({
      name: 'Never',
      run: () => {
        ran.push('Never');
        return 'y';
      },
    });
    const loop = new LoopAgent({
      name: 'L',
      maxIterations: 3,
      subAgents: [new SequentialAgent({ name: 'Body', subAgents: [escalate, never] })],
    });
    await runOnce(loop, 'go');
    expect(ran).toEqual(['Esc']);
  });

  it('with no loop, an escalation does not stop a SequentialAgent', async () => {
    const escalate = new FunctionAgent({
      name: 'Esc',
      run: (_i, ctx) => {
        ctx.actions.escalate = true;
        return 'x';
      },
    });
    const next = new FunctionAgent({ name: 'Next', run: () => 'next ran' });
    const result = await runOnce(new SequentialAgent({ name: 'S', subAgents: [escalate, next] }), 'go');
    expect(result.output).toBe('next ran');
  });

  it('a tool that escalates ends the LlmAgent turn without another model call', async () => {
    const stop = new FunctionTool({
      name: 'stop',
      description: 'stops',
      execute: (_a, ctx) => {
        ctx.actions.escalate = true;
        return 'stopped';
      },
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'stop' }] }]);
    const result = await runOnce(
      new LoopAgent({ name: 'L', maxIterations: 3, subAgents: [new LlmAgent({ name: 'A', model, tools: [stop] })] }),
      'go',
    );
    expect(result.status).toBe('completed');
    model.assertDone();
  });
});
