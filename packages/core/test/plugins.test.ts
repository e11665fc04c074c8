import { describe, expect, it } from 'vitest';
import {
  AgentTool,
  BasePlugin,
  FunctionAgent,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  ParallelAgent,
  SequentialAgent,
  getFunctionResponses,
  isFinalResponse,
  textOf,
  type BaseAgent,
  type BaseTool,
  type CallbackContext,
  type Content,
  type Event,
  type InvocationContext,
  type LlmRequest,
  type LlmResponse,
  type RunConfig,
  type RunResult,
  type ToolContext,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce } from './helpers.js';

const answer = (text: string): LlmResponse => ({ content: { role: 'model', parts: [{ text }] } });
const content = (text: string): Content => ({ role: 'model', parts: [{ text }] });

/** Records every hook call as `hook:agent[:tool]`, returning nothing. */
class Recorder extends BasePlugin {
  readonly calls: string[] = [];
  readonly events: Event[] = [];
  readonly results: RunResult[] = [];

  constructor(name = 'recorder') {
    super(name);
  }

  override beforeRun({ context }: { context: InvocationContext }) {
    this.calls.push(`beforeRun:${context.agent.name}`);
  }
  override afterRun({ result }: { context: InvocationContext; result: RunResult }) {
    this.results.push(result);
    this.calls.push(`afterRun:${result.status}`);
  }
  override onEvent({ event }: { context: InvocationContext; event: Event }) {
    this.events.push(event);
    this.calls.push('onEvent');
  }
  override beforeAgent({ agent }: { agent: BaseAgent; context: CallbackContext }) {
    this.calls.push(`beforeAgent:${agent.name}`);
  }
  override afterAgent({ agent }: { agent: BaseAgent; context: CallbackContext }) {
    this.calls.push(`afterAgent:${agent.name}`);
  }
  override beforeModel({ context }: { context: CallbackContext; request: LlmRequest }) {
    this.calls.push(`beforeModel:${context.agentName}`);
  }
  override afterModel({ context }: { context: CallbackContext; response: LlmResponse }) {
    this.calls.push(`afterModel:${context.agentName}`);
  }
  override beforeTool({ tool, context }: { tool: BaseTool; args: Record<string, unknown>; context: ToolContext }) {
    this.calls.push(`beforeTool:${context.agentName}:${tool.name}`);
  }
  override afterTool({
    tool,
    context,
  }: {
    tool: BaseTool;
    args: Record<string, unknown>;
    context: ToolContext;
    response: Record<string, unknown>;
  }) {
    this.calls.push(`afterTool:${context.agentName}:${tool.name}`);
  }

  count(prefix: string): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const call of this.calls) {
      if (!call.startsWith(`${prefix}:`)) continue;
      const key = call.slice(prefix.length + 1);
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }
}

async function streamRun(
  agent: BaseAgent,
  plugins: BasePlugin[],
  message: string,
  runConfig?: RunConfig,
): Promise<{ yielded: Event[]; error: unknown }> {
  const runner = new InMemoryRunner({ agent, plugins });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const yielded: Event[] = [];
  let error: unknown;
  try {
    for await (const event of runner.runAsync({
      userId: 'u',
      sessionId: session.id,
      newMessage: message,
      ...(runConfig ? { runConfig } : {}),
    }))
      yielded.push(event);
  } catch (caught) {
    error = caught;
  }
  return { yielded, error };
}

describe('plugins: every hook fires exactly once per call, at every depth', () => {
  it('through an AgentTool child and a transfer target', async () => {
    const lookup = new FunctionTool({ name: 'lookup', description: 'looks up', execute: () => 'data' });
    const researcherModel = new ScriptedModel([{ functionCalls: [{ name: 'lookup' }] }, 'facts']);
    const researcher = new LlmAgent({
      name: 'Researcher',
      description: 'Researches.',
      model: researcherModel,
      tools: [lookup],
    });
    const specialistModel = new ScriptedModel(['final answer']);
    const specialist = new LlmAgent({
      name: 'Specialist',
      description: 'Answers hard questions.',
      model: specialistModel,
    });
    const coordinatorModel = new ScriptedModel([
      { functionCalls: [{ name: 'Researcher', args: { request: 'find facts' } }] },
      { functionCalls: [{ name: 'transfer_to_agent', args: { agent_name: 'Specialist' } }] },
    ]);
    const coordinator = new LlmAgent({
      name: 'Coordinator',
      model: coordinatorModel,
      subAgents: [specialist],
      tools: [new AgentTool({ agent: researcher })],
    });
    const recorder = new Recorder();
    const { yielded, error } = await streamRun(coordinator, [recorder], 'help');

    expect(error).toBeUndefined();
    expect(textOf(yielded.at(-1)!)).toBe('final answer');
    expect(recorder.count('beforeRun')).toEqual({ Coordinator: 1 });
    expect(recorder.count('afterRun')).toEqual({ completed: 1 });
    expect(recorder.count('beforeAgent')).toEqual({ Coordinator: 1, Researcher: 1, Specialist: 1 });
    expect(recorder.count('afterAgent')).toEqual({ Coordinator: 1, Researcher: 1, Specialist: 1 });
    expect(recorder.count('beforeModel')).toEqual({ Coordinator: 2, Researcher: 2, Specialist: 1 });
    expect(recorder.count('afterModel')).toEqual({ Coordinator: 2, Researcher: 2, Specialist: 1 });
    expect(coordinatorModel.requests.length + researcherModel.requests.length + specialistModel.requests.length).toBe(
      5,
    );
    expect(recorder.count('beforeTool')).toEqual({
      'Coordinator:Researcher': 1,
      'Researcher:lookup': 1,
      'Coordinator:transfer_to_agent': 1,
    });
    expect(recorder.count('afterTool')).toEqual({
      'Coordinator:Researcher': 1,
      'Researcher:lookup': 1,
      'Coordinator:transfer_to_agent': 1,
    });
    // onEvent: once per yielded event, the same events in the same order.
    expect(recorder.events.map((e) => e.id)).toEqual(yielded.map((e) => e.id));
    expect(recorder.calls[0]).toBe('beforeRun:Coordinator');
    expect(recorder.calls.at(-1)).toBe('afterRun:completed');
  });

  it('in ParallelAgent children', async () => {
    const children = ['A', 'B', 'C'].map((name) => {
      const tool = new FunctionTool({
        name: `tool_${name}`,
        description: 'works',
        execute: async () => {
          await new Promise((r) => setTimeout(r, 10));
          return name;
        },
      });
      return new LlmAgent({
        name,
        model: new ScriptedModel([{ functionCalls: [{ name: `tool_${name}` }] }, `${name} done`]),
        tools: [tool],
      });
    });
    const after = new LlmAgent({ name: 'After', model: new ScriptedModel(['summary']) });
    const root = new SequentialAgent({
      name: 'Root',
      subAgents: [new ParallelAgent({ name: 'Fan', subAgents: children }), after],
    });
    const recorder = new Recorder();
    const { yielded, error } = await streamRun(root, [recorder], 'go');

    expect(error).toBeUndefined();
    expect(recorder.count('beforeRun')).toEqual({ Root: 1 });
    expect(recorder.count('afterRun')).toEqual({ completed: 1 });
    expect(recorder.count('beforeAgent')).toEqual({ Root: 1, Fan: 1, A: 1, B: 1, C: 1, After: 1 });
    expect(recorder.count('afterAgent')).toEqual({ Root: 1, Fan: 1, A: 1, B: 1, C: 1, After: 1 });
    expect(recorder.count('beforeModel')).toEqual({ A: 2, B: 2, C: 2, After: 1 });
    expect(recorder.count('afterModel')).toEqual({ A: 2, B: 2, C: 2, After: 1 });
    expect(recorder.count('beforeTool')).toEqual({ 'A:tool_A': 1, 'B:tool_B': 1, 'C:tool_C': 1 });
    expect(recorder.count('afterTool')).toEqual({ 'A:tool_A': 1, 'B:tool_B': 1, 'C:tool_C': 1 });
    expect(recorder.events.map((e) => e.id)).toEqual(yielded.map((e) => e.id));
  });

  it('onEvent sees partial streaming chunks too, once each', async () => {
    const recorder = new Recorder();
    const agent = new LlmAgent({ name: 'Streamer', model: new ScriptedModel([{ chunks: ['Hel', 'lo'] }]) });
    const { yielded } = await streamRun(agent, [recorder], 'hi', { streaming: 'sse' });

    expect(yielded.filter((e) => e.partial)).toHaveLength(2);
    expect(recorder.events).toHaveLength(yielded.length);
    expect(recorder.events.map((e) => [e.id, e.partial === true])).toEqual(
      yielded.map((e) => [e.id, e.partial === true]),
    );
  });

  it('a failed run: beforeRun and afterRun once (with the failed result), onEvent for every yielded event including the error event', async () => {
    const recorder = new Recorder();
    const agent = new SequentialAgent({
      name: 'Flow',
      subAgents: [
        new LlmAgent({ name: 'Ok', model: new ScriptedModel(['fine']) }),
        new FunctionAgent({
          name: 'Broken',
          run: () => {
            throw new Error('kaput');
          },
        }),
      ],
    });
    const { yielded, error } = await streamRun(agent, [recorder], 'go');

    expect((error as Error).message).toMatch(/kaput/);
    expect(yielded.at(-1)!.errorMessage).toMatch(/kaput/);
    expect(recorder.count('beforeRun')).toEqual({ Flow: 1 });
    expect(recorder.count('afterRun')).toEqual({ failed: 1 });
    expect(recorder.results[0]!.error!.message).toMatch(/kaput/);
    expect(recorder.events.map((e) => e.id)).toEqual(yielded.map((e) => e.id));
  });

  it('beforeRun and afterRun fire once per run, for each run', async () => {
    const recorder = new Recorder();
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: 'Chat', model: new ScriptedModel(['one', 'two']) }),
      plugins: [recorder],
    });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'first' });
    await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'second' });
    expect(recorder.calls.filter((c) => c.startsWith('beforeRun') || c.startsWith('afterRun'))).toEqual([
      'beforeRun:Chat',
      'afterRun:completed',
      'beforeRun:Chat',
      'afterRun:completed',
    ]);
    expect(recorder.results.map((r) => r.output)).toEqual(['one', 'two']);
  });
});

describe('plugins: runs that end early', () => {
  it('a consumer that stops iterating still gets afterRun once, with status cancelled', async () => {
    const recorder = new Recorder();
    const model = new ScriptedModel([{ functionCalls: [{ name: 'work' }] }, 'never reached']);
    const tool = new FunctionTool({ name: 'work', description: 'works', execute: () => 'ok' });
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: 'Agent', model, tools: [tool] }),
      plugins: [recorder],
    });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    for await (const _event of runner.runAsync({ userId: 'u', sessionId: session.id, newMessage: 'go' })) break;

    expect(recorder.count('beforeRun')).toEqual({ Agent: 1 });
    expect(recorder.count('afterRun')).toEqual({ cancelled: 1 });
    expect(model.requests).toHaveLength(1);
  });
});

describe('plugins run before agent callbacks and short-circuit', () => {
  it('for every hook, the plugin runs before the callback of the same kind', async () => {
    const log: string[] = [];
    class Order extends BasePlugin {
      constructor() {
        super('order');
      }
      override beforeAgent() {
        log.push('plugin.beforeAgent');
      }
      override afterAgent() {
        log.push('plugin.afterAgent');
      }
      override beforeModel() {
        log.push('plugin.beforeModel');
      }
      override afterModel() {
        log.push('plugin.afterModel');
      }
      override beforeTool() {
        log.push('plugin.beforeTool');
      }
      override afterTool() {
        log.push('plugin.afterTool');
      }
    }
    const tool = new FunctionTool({
      name: 'work',
      description: 'works',
      execute: () => {
        log.push('tool');
        return 'ok';
      },
    });
    const agent = new LlmAgent({
      name: 'Worker',
      model: new ScriptedModel([{ functionCalls: [{ name: 'work' }] }, 'done']),
      tools: [tool],
      beforeAgentCallback: () => {
        log.push('callback.beforeAgent');
      },
      afterAgentCallback: () => {
        log.push('callback.afterAgent');
      },
      beforeModelCallback: () => {
        log.push('callback.beforeModel');
      },
      afterModelCallback: () => {
        log.push('callback.afterModel');
      },
      beforeToolCallback: () => {
        log.push('callback.beforeTool');
      },
      afterToolCallback: () => {
        log.push('callback.afterTool');
      },
    });
    const result = await runOnce(agent, 'go', { plugins: [new Order()] });

    expect(result.status).toBe('completed');
    expect(log).toEqual([
      'plugin.beforeAgent',
      'callback.beforeAgent',
      'plugin.beforeModel',
      'callback.beforeModel',
      'plugin.afterModel',
      'callback.afterModel',
      'plugin.beforeTool',
      'callback.beforeTool',
      'tool',
      'plugin.afterTool',
      'callback.afterTool',
      'plugin.beforeModel',
      'callback.beforeModel',
      'plugin.afterModel',
      'callback.afterModel',
      'plugin.afterAgent',
      'callback.afterAgent',
    ]);
  });

  it('beforeModel returning a response skips the model and the agent callback', async () => {
    let callbackCalls = 0;
    class Cache extends BasePlugin {
      constructor() {
        super('cache');
      }
      override beforeModel({ request }: { context: CallbackContext; request: LlmRequest }) {
        return request.contents.length > 0 ? answer('cached answer') : undefined;
      }
    }
    const model = new ScriptedModel([]);
    const agent = new LlmAgent({
      name: 'Cached',
      model,
      outputKey: 'out',
      beforeModelCallback: () => {
        callbackCalls++;
        return answer('callback answer');
      },
    });
    const result = await runOnce(agent, 'question', { plugins: [new Cache()] });

    expect(result.status).toBe('completed');
    expect(model.requests).toHaveLength(0);
    expect(callbackCalls).toBe(0);
    expect(result.output).toBe('cached answer');
    expect(result.state.out).toBe('cached answer');
  });

  it("beforeTool returning an object is used as the tool's result; the tool and the agent callback do not run", async () => {
    let executed = 0;
    let callbackCalls = 0;
    class Guard extends BasePlugin {
      constructor() {
        super('guard');
      }
      override beforeTool({ tool }: { tool: BaseTool; args: Record<string, unknown>; context: ToolContext }) {
        return tool.name === 'dangerous' ? { blocked: 'by policy' } : undefined;
      }
    }
    const dangerous = new FunctionTool({
      name: 'dangerous',
      description: 'do not run',
      execute: () => {
        executed++;
        return 'ran';
      },
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'dangerous' }] }, 'It was blocked.']);
    const agent = new LlmAgent({
      name: 'Agent',
      model,
      tools: [dangerous],
      beforeToolCallback: () => {
        callbackCalls++;
        return { from: 'callback' };
      },
    });
    const result = await runOnce(agent, 'go', { plugins: [new Guard()] });

    expect(executed).toBe(0);
    expect(callbackCalls).toBe(0);
    const response = result.events.find((e) => getFunctionResponses(e).length > 0)!;
    expect(getFunctionResponses(response)[0]!.response).toEqual({ blocked: 'by policy' });
    expect(result.output).toBe('It was blocked.');
  });

  it('afterModel and afterTool results replace the response and the tool result', async () => {
    class Rewrite extends BasePlugin {
      constructor() {
        super('rewrite');
      }
      override afterModel({ response }: { context: CallbackContext; response: LlmResponse }) {
        const text = response.content?.parts.map((p) => ('text' in p ? p.text : '')).join('');
        return text ? answer(text.toUpperCase()) : undefined;
      }
      override afterTool({
        response,
      }: {
        tool: BaseTool;
        args: Record<string, unknown>;
        context: ToolContext;
        response: Record<string, unknown>;
      }) {
        return { ...response, audited: true };
      }
    }
    const tool = new FunctionTool({ name: 'fetch', description: 'fetches', execute: () => ({ value: 1 }) });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'fetch' }] }, 'quiet answer']);
    const result = await runOnce(new LlmAgent({ name: 'Agent', model, tools: [tool], outputKey: 'out' }), 'go', {
      plugins: [new Rewrite()],
    });

    const response = result.events.find((e) => getFunctionResponses(e).length > 0)!;
    expect(getFunctionResponses(response)[0]!.response).toEqual({ value: 1, audited: true });
    expect(result.output).toBe('QUIET ANSWER');
    expect(result.state.out).toBe('QUIET ANSWER');
  });

  it('beforeAgent returning content skips the agent and emits that content', async () => {
    class Gate extends BasePlugin {
      constructor() {
        super('gate');
      }
      override beforeAgent({ agent }: { agent: BaseAgent; context: CallbackContext }) {
        return agent.name === 'Closed' ? content('closed today') : undefined;
      }
    }
    const closedModel = new ScriptedModel([]);
    const closed = new LlmAgent({ name: 'Closed', model: closedModel, outputKey: 'closed_out' });
    const open = new LlmAgent({ name: 'Open', model: new ScriptedModel(['open answer']) });
    const result = await runOnce(new SequentialAgent({ name: 'Flow', subAgents: [closed, open] }), 'go', {
      plugins: [new Gate()],
    });

    expect(closedModel.requests).toHaveLength(0);
    expect(result.events.filter((e) => e.author === 'Closed').map(textOf)).toEqual(['closed today']);
    expect(result.state.closed_out).toBe('closed today');
    expect(result.output).toBe('open answer');
  });

  it('several plugins run in order; the first defined result wins and later plugins are not asked', async () => {
    const log: string[] = [];
    const make = (name: string, reply: string | undefined) =>
      new (class extends BasePlugin {
        constructor() {
          super(name);
        }
        override beforeModel() {
          log.push(name);
          return reply === undefined ? undefined : answer(reply);
        }
      })();
    const model = new ScriptedModel([]);
    const result = await runOnce(new LlmAgent({ name: 'Agent', model }), 'go', {
      plugins: [make('first', undefined), make('second', 'from second'), make('third', 'from third')],
    });

    expect(log).toEqual(['first', 'second']);
    expect(result.output).toBe('from second');
    expect(model.requests).toHaveLength(0);
  });
});

describe('plugins recover from errors', () => {
  it('onModelError returning a response recovers the run with it', async () => {
    const seen: { message: string; agent: string; contents: number }[] = [];
    class Fallback extends BasePlugin {
      constructor() {
        super('fallback');
      }
      override onModelError({
        context,
        request,
        error,
      }: {
        context: CallbackContext;
        request: LlmRequest;
        error: unknown;
      }) {
        seen.push({ message: (error as Error).message, agent: context.agentName, contents: request.contents.length });
        return answer('fallback answer');
      }
    }
    const model = new ScriptedModel([{ error: 'overloaded', status: 503 }]);
    const result = await runOnce(new LlmAgent({ name: 'Agent', model, outputKey: 'out' }), 'go', {
      plugins: [new Fallback()],
    });

    expect(result.status).toBe('completed');
    expect(result.output).toBe('fallback answer');
    expect(result.state.out).toBe('fallback answer');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.message).toMatch(/overloaded/);
    expect(seen[0]!.agent).toBe('Agent');
    expect(seen[0]!.contents).toBeGreaterThan(0);
  });

  it('without a recovering plugin a model error fails the run', async () => {
    class Observer extends BasePlugin {
      constructor() {
        super('observer');
      }
      override onModelError() {
        return undefined;
      }
    }
    const result = await runOnce(
      new LlmAgent({ name: 'Agent', model: new ScriptedModel([{ error: 'overloaded', status: 503 }]) }),
      'go',
      { plugins: [new Observer()] },
    );
    expect(result.status).toBe('failed');
    expect(result.error!.message).toMatch(/overloaded/);
  });

  it('onToolError returning an object recovers with it as the tool result; otherwise the model gets { error }', async () => {
    const errors: string[] = [];
    class Recover extends BasePlugin {
      constructor() {
        super('recover');
      }
      override onToolError({
        tool,
        error,
      }: {
        tool: BaseTool;
        args: Record<string, unknown>;
        context: ToolContext;
        error: unknown;
      }) {
        errors.push(`${tool.name}: ${(error as Error).message}`);
        return tool.name === 'flaky' ? { recovered: true } : undefined;
      }
    }
    const flaky = new FunctionTool({
      name: 'flaky',
      description: 'fails',
      execute: () => {
        throw new Error('flaky failure');
      },
    });
    const broken = new FunctionTool({
      name: 'broken',
      description: 'fails',
      execute: () => {
        throw new Error('broken failure');
      },
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'flaky' }, { name: 'broken' }] }, 'done']);
    const result = await runOnce(new LlmAgent({ name: 'Agent', model, tools: [flaky, broken] }), 'go', {
      plugins: [new Recover()],
    });

    expect(result.status).toBe('completed');
    expect(errors.sort()).toEqual(['broken: broken failure', 'flaky: flaky failure']);
    const responses = getFunctionResponses(result.events.find((e) => getFunctionResponses(e).length > 0)!);
    expect(responses.map((r) => r.response)).toEqual([{ recovered: true }, { error: 'broken failure' }]);
  });
});

describe('agent callbacks', () => {
  it('callbacks given as arrays: the first non-undefined result wins and the rest are not called', async () => {
    const log: string[] = [];
    const tool = new FunctionTool({
      name: 'work',
      description: 'works',
      execute: () => {
        log.push('tool ran');
        return 'real';
      },
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'work' }] }, 'model text']);
    const agent = new LlmAgent({
      name: 'Arrays',
      model,
      tools: [tool],
      outputKey: 'out',
      beforeModelCallback: [
        () => {
          log.push('beforeModel 1');
        },
        () => {
          log.push('beforeModel 2');
          return undefined;
        },
      ],
      afterModelCallback: [
        () => {
          log.push('afterModel 1');
        },
        ({ response }) => {
          log.push('afterModel 2');
          const text = response.content?.parts.map((p) => ('text' in p ? p.text : '')).join('');
          // Always a defined result, so the third callback never runs.
          return text ? answer(`${text} (edited)`) : response;
        },
        () => {
          log.push('afterModel 3');
          return answer('never');
        },
      ],
      beforeToolCallback: [
        () => {
          log.push('beforeTool 1');
        },
        () => {
          log.push('beforeTool 2');
          return { from: 'second callback' };
        },
        () => {
          log.push('beforeTool 3');
          return { from: 'third callback' };
        },
      ],
      afterToolCallback: [
        () => {
          log.push('afterTool 1');
        },
        ({ response }) => {
          log.push('afterTool 2');
          return { ...response, after: 2 };
        },
        () => {
          log.push('afterTool 3');
          return { after: 3 };
        },
      ],
    });
    const result = await runOnce(agent, 'go');

    expect(log).toEqual([
      'beforeModel 1',
      'beforeModel 2',
      'afterModel 1',
      'afterModel 2',
      'beforeTool 1',
      'beforeTool 2',
      'afterTool 1',
      'afterTool 2',
      'beforeModel 1',
      'beforeModel 2',
      'afterModel 1',
      'afterModel 2',
    ]);
    const response = result.events.find((e) => getFunctionResponses(e).length > 0)!;
    expect(getFunctionResponses(response)[0]!.response).toEqual({ from: 'second callback', after: 2 });
    expect(result.output).toBe('model text (edited)');
    expect(result.state.out).toBe('model text (edited)');
  });

  it('beforeAgentCallback arrays: the first content wins', async () => {
    const log: string[] = [];
    const agent = new LlmAgent({
      name: 'Gated',
      model: new ScriptedModel([]),
      beforeAgentCallback: [
        () => {
          log.push('1');
        },
        () => {
          log.push('2');
          return content('second says hi');
        },
        () => {
          log.push('3');
          return content('third');
        },
      ],
    });
    const result = await runOnce(agent, 'go');
    expect(log).toEqual(['1', '2']);
    expect(result.events.map(textOf)).toEqual(['second says hi']);
  });

  it('beforeAgentCallback returning Content skips the LlmAgent, emits the content and stores it with outputKey', async () => {
    const model = new ScriptedModel([]);
    const skipped = new LlmAgent({
      name: 'Skipped',
      model,
      outputKey: 'skipped_out',
      beforeAgentCallback: () => content('canned reply'),
    });
    const next = new FunctionAgent({
      name: 'Next',
      run: (_input, ctx) => `next saw ${String(ctx.state.get('skipped_out'))}`,
    });
    const result = await runOnce(new SequentialAgent({ name: 'Flow', subAgents: [skipped, next] }), 'go');

    expect(result.status).toBe('completed');
    expect(model.requests).toHaveLength(0);
    const emitted = result.events.filter((e) => e.author === 'Skipped');
    expect(emitted).toHaveLength(1);
    expect(emitted[0]!.content).toEqual({ role: 'model', parts: [{ text: 'canned reply' }] });
    expect(isFinalResponse(emitted[0]!)).toBe(true);
    expect(emitted[0]!.actions.stateDelta).toEqual({ skipped_out: 'canned reply' });
    expect(result.state.skipped_out).toBe('canned reply');
    expect(result.output).toBe('next saw canned reply');
  });

  it('beforeAgentCallback on a workflow agent skips all its children', async () => {
    const model = new ScriptedModel([]);
    const flow = new SequentialAgent({
      name: 'Flow',
      subAgents: [new LlmAgent({ name: 'Inner', model })],
      beforeAgentCallback: () => content('maintenance'),
    });
    const result = await runOnce(flow, 'go');
    expect(model.requests).toHaveLength(0);
    expect(result.events.map((e) => `${e.author}:${textOf(e)}`)).toEqual(['Flow:maintenance']);
  });

  it('beforeModelCallback supplying the answer skips the model; outputKey stores it', async () => {
    const model = new ScriptedModel([]);
    const agent = new LlmAgent({
      name: 'Canned',
      model,
      outputKey: 'out',
      beforeModelCallback: () => answer('from the callback'),
    });
    const result = await runOnce(agent, 'go');
    expect(model.requests).toHaveLength(0);
    expect(result.output).toBe('from the callback');
    expect(result.state.out).toBe('from the callback');
  });

  it("afterAgentCallback content is appended as the agent's final event", async () => {
    const agent = new LlmAgent({
      name: 'Signed',
      model: new ScriptedModel(['model answer']),
      afterAgentCallback: (ctx) => content(`-- signed by ${ctx.agentName}`),
    });
    const quiet = new LlmAgent({
      name: 'Quiet',
      model: new ScriptedModel(['quiet answer']),
      afterAgentCallback: () => undefined,
    });
    const result = await runOnce(new SequentialAgent({ name: 'Flow', subAgents: [agent, quiet] }), 'go');

    const withContent = result.events.filter((e) => e.content !== undefined);
    expect(withContent.map((e) => `${e.author}:${textOf(e)}`)).toEqual([
      'Signed:model answer',
      'Signed:-- signed by Signed',
      'Quiet:quiet answer',
    ]);
    const signed = result.events.filter((e) => e.author === 'Signed');
    expect(signed).toHaveLength(2);
    const appended = signed[1]!;
    expect(appended.content!.role).toBe('model');
    expect(isFinalResponse(appended)).toBe(true);
  });

  it('callback state writes are recorded on the event they produce', async () => {
    const agent = new LlmAgent({
      name: 'Stateful',
      model: new ScriptedModel(['answer']),
      beforeAgentCallback: (ctx) => {
        ctx.state.set('started', true);
      },
      beforeModelCallback: ({ context }) => {
        context.state.set('model_calls', (context.state.get<number>('model_calls') ?? 0) + 1);
      },
      afterAgentCallback: (ctx) => {
        ctx.state.set('finished', true);
      },
    });
    const result = await runOnce(agent, 'go');
    expect(result.state).toMatchObject({ started: true, model_calls: 1, finished: true });
    const stored = await result.runner.sessionService.getSession({
      appName: result.runner.appName,
      userId: 'u',
      sessionId: result.sessionId,
    });
    expect(stored!.state).toMatchObject({ started: true, model_calls: 1, finished: true });
  });
});
