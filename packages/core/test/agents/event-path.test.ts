import { describe, expect, it, vi } from 'vitest';
import {
  BaseAgent,
  BasePlugin,
  createEvent,
  FunctionAgent,
  InMemoryRunner,
  LlmAgent,
  LoopAgent,
  ParallelAgent,
  SequentialAgent,
  type Event,
  type InvocationContext,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce } from '../helpers.js';

// Events travel up the tree as plain calls (BaseAgent.runInto), not through a generator per level.
// These pin what a generator chain guaranteed, so the faster path keeps it.

class Stamper extends BaseAgent {
  protected async *runAsyncImpl(ctx: InvocationContext) {
    for (let i = 1; i <= 3; i++) yield createEvent({ actions: { stateDelta: { [`${this.name}_${i}`]: i } } });
    void ctx;
  }
}

async function session(runner: InMemoryRunner): Promise<string> {
  return (await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' })).id;
}

describe('the event path through the tree', () => {
  it('an agent that overrides runAsync runs through its override inside a workflow', async () => {
    class Tagged extends Stamper {
      override async *runAsync(parent: InvocationContext): AsyncGenerator<Event, void, undefined> {
        for await (const event of super.runAsync(parent)) {
          event.actions.stateDelta.tagged = true;
          yield event;
        }
      }
    }
    const result = await runOnce(new SequentialAgent({ name: 'Seq', subAgents: [new Tagged({ name: 'T' })] }), 'go');
    expect(result.status).toBe('completed');
    expect(result.events.filter((e) => e.author === 'T')).toHaveLength(3);
    expect(result.events.every((e) => e.author !== 'T' || e.actions.stateDelta.tagged === true)).toBe(true);
  });

  it('a subclass of a built-in agent that overrides runAsyncImpl is honoured', async () => {
    class Doubled extends SequentialAgent {
      protected override async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
        yield* super.runAsyncImpl(ctx);
        yield* super.runAsyncImpl(ctx);
      }
    }
    let runs = 0;
    const step = new FunctionAgent({ name: 'Step', run: () => ++runs });
    const result = await runOnce(new Doubled({ name: 'Twice', subAgents: [step] }), 'go');
    expect(result.status).toBe('completed');
    expect(runs).toBe(2);

    class Shouting extends LlmAgent {
      protected override async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
        for await (const event of super.runAsyncImpl(ctx)) {
          if (event.output !== undefined) event.output = String(event.output).toUpperCase();
          yield event;
        }
      }
    }
    const shouted = await runOnce(new Shouting({ name: 'Loud', model: new ScriptedModel(['hello']) }), 'hi');
    expect(shouted.output).toBe('HELLO');
  });

  it('an iterating caller holds the agent: the next event is made only when the caller asks for it', async () => {
    const made: string[] = [];
    class Recorder extends BaseAgent {
      protected async *runAsyncImpl() {
        for (const name of ['a', 'b', 'c']) {
          made.push(name);
          yield createEvent({ output: name });
        }
      }
    }
    const runner = new InMemoryRunner({
      agent: new SequentialAgent({ name: 'Seq', subAgents: [new Recorder({ name: 'R' })] }),
    });
    const sessionId = await session(runner);
    const seen: string[] = [];
    for await (const event of runner.runAsync({ userId: 'u', sessionId, newMessage: 'go' })) {
      if (event.author !== 'R') continue;
      seen.push(String(event.output));
      // Nothing beyond the event in hand was made while the caller looks at it.
      expect(made).toEqual(seen);
    }
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('a caller that stops iterating stops every branch; plugins hear each agent end as cancelled', async () => {
    const endings: string[] = [];
    class Outcomes extends BasePlugin {
      constructor() {
        super('outcomes');
      }
      override async afterAgent(params: { agent: BaseAgent; outcome: string }): Promise<undefined> {
        endings.push(`${params.agent.name}:${params.outcome}`);
        return undefined;
      }
    }
    const runner = new InMemoryRunner({
      agent: new ParallelAgent({ name: 'Fan', subAgents: [new Stamper({ name: 'A' }), new Stamper({ name: 'B' })] }),
      plugins: [new Outcomes()],
    });
    const sessionId = await session(runner);
    const events = runner.runAsync({ userId: 'u', sessionId, newMessage: 'go' });
    for await (const event of events) if (event.author === 'A' || event.author === 'B') break;
    // The agents unwind right after (a step still busy is not waited for by the caller's return()).
    await vi.waitFor(() => expect(endings.sort()).toEqual(['A:cancelled', 'B:cancelled', 'Fan:cancelled']), {
      timeout: 10_000,
    });
    // The session is free again and holds only what was taken before the caller left.
    const stored = await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId });
    expect(stored!.events.filter((e) => e.author === 'A' || e.author === 'B')).toHaveLength(1);
    const next = await runner.run({ userId: 'u', sessionId, newMessage: 'again' });
    expect(next.status).toBe('completed');
  });

  it('an escalation stops the rest of the iteration inside nested workflows, once the escalating event is stored', async () => {
    const after: string[] = [];
    class Escalates extends BaseAgent {
      protected async *runAsyncImpl() {
        yield createEvent({ actions: { escalate: true } });
        after.push('ran on after escalating');
        yield createEvent({ output: 'never' });
      }
    }
    const never = new FunctionAgent({ name: 'Never', run: () => after.push('next step ran') });
    const loop = new LoopAgent({
      name: 'Loop',
      maxIterations: 3,
      subAgents: [new SequentialAgent({ name: 'Body', subAgents: [new Escalates({ name: 'E' }), never] })],
    });
    const result = await runOnce(loop, 'go');
    expect(result.status).toBe('completed');
    expect(after).toEqual([]);
    expect(result.events.at(-1)!.actions.agentState).toMatchObject({ stopReason: 'escalated', iterations: 1 });
  });
});
