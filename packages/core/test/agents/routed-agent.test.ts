import { describe, expect, it } from 'vitest';
import {
  BaseAgent,
  FunctionAgent,
  FunctionTool,
  LlmAgent,
  RoutedAgent,
  RoutedLlm,
  RoutingError,
  createEvent,
  type RoutingErrorContext,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce } from '../helpers.js';

const answer = (name: string, text: string) => new FunctionAgent({ name, run: () => text });
const failing = (name: string, message = `${name} is down`) =>
  new FunctionAgent({
    name,
    run: () => {
      throw new Error(message);
    },
  });

class FailsAfterEvent extends BaseAgent {
  protected async *runAsyncImpl() {
    yield createEvent({ content: { role: 'model', parts: [{ text: 'partial result' }] } });
    throw new Error('failed after yielding');
  }
}

describe('RoutedAgent', () => {
  it('routes by an external config; records the route; output is the chosen agent output', async () => {
    const config = { selected: 'agent_a' };
    const routed = new RoutedAgent({
      name: 'my_routed_agent',
      agents: { agent_a: answer('agent_a', 'I am A'), agent_b: answer('agent_b', 'I am B') },
      router: () => config.selected,
    });
    const first = await runOnce(routed, 'Who are you?');
    expect(first.output).toBe('I am A');
    expect(first.events[0]!.actions.route).toEqual({ key: 'agent_a' });
    config.selected = 'agent_b';
    const second = await first.runner.run({ userId: 'u', sessionId: first.sessionId, newMessage: 'And now?' });
    expect(second.output).toBe('I am B');
    expect(second.events[1]!.path).toBe('my_routed_agent/agent_b');
  });

  it('accepts an array keyed by agent name and an async router', async () => {
    const routed = new RoutedAgent({
      name: 'R',
      agents: [answer('simple', 'easy'), answer('complex', 'hard')],
      router: async (_a, ctx) =>
        String(ctx.userContent?.parts[0] && 'text' in ctx.userContent.parts[0] ? ctx.userContent.parts[0].text : '')
          .length > 20
          ? 'complex'
          : 'simple',
    });
    expect((await runOnce(routed, 'hi')).output).toBe('easy');
    expect((await runOnce(routed, 'a much longer and more complicated question')).output).toBe('hard');
  });

  it('falls back when the chosen agent fails before yielding, with failedKeys and lastError', async () => {
    const calls: (RoutingErrorContext | undefined)[] = [];
    const routed = new RoutedAgent({
      name: 'R',
      agents: { primary: failing('primary'), fallback: answer('fallback', 'fallback answered') },
      router: (_agents, _ctx, errorContext) => {
        calls.push(errorContext && { failedKeys: new Set(errorContext.failedKeys), lastError: errorContext.lastError });
        if (!errorContext) return 'primary';
        return errorContext.failedKeys.has('primary') ? 'fallback' : undefined;
      },
    });
    const result = await runOnce(routed, 'go');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('fallback answered');
    expect(calls[0]).toBeUndefined();
    expect([...calls[1]!.failedKeys]).toEqual(['primary']);
    expect((calls[1]!.lastError as Error).message).toBe('primary is down');
    expect(result.events[0]!.actions.route).toEqual({ key: 'fallback', reason: 'fallback after primary failed' });
  });

  it('does not retry once the chosen agent has yielded an event', async () => {
    let routerCalls = 0;
    const routed = new RoutedAgent({
      name: 'R',
      agents: { a: new FailsAfterEvent({ name: 'a' }), b: answer('b', 'b') },
      router: () => (routerCalls++ === 0 ? 'a' : 'b'),
    });
    const result = await runOnce(routed, 'go');
    expect(result.status).toBe('failed');
    expect(result.error!.message).toBe('failed after yielding');
    expect(routerCalls).toBe(1);
  });

  it('a key that already failed, an unknown key or undefined after a failure propagates the last error', async () => {
    for (const second of ['primary', 'nope', undefined]) {
      const routed = new RoutedAgent({
        name: 'R',
        agents: { primary: failing('primary', 'original failure'), other: answer('other', 'x') },
        router: (_a, _c, err) => (err ? second : 'primary'),
      });
      const result = await runOnce(routed, 'go');
      expect(result.status).toBe('failed');
      expect(result.error!.message).toBe('original failure');
    }
  });

  it('an unknown key or undefined on the first call is a RoutingError naming the options', async () => {
    const unknown = await runOnce(
      new RoutedAgent({ name: 'R', agents: { a: answer('a', 'x') }, router: () => 'zzz' }),
      'go',
    );
    expect(unknown.error).toBeInstanceOf(RoutingError);
    expect(unknown.error!.message).toMatch(/chose 'zzz'.*options: a/);
    const none = await runOnce(
      new RoutedAgent({ name: 'R', agents: { a: answer('a', 'x') }, router: () => undefined }),
      'go',
    );
    expect(none.error).toBeInstanceOf(RoutingError);
  });

  it('planning mode: switching agents with different tools and instructions', async () => {
    const read = new FunctionTool({
      name: 'read_file',
      description: 'Reads a file.',
      execute: () => ({ content: 'x' }),
    });
    const write = new FunctionTool({
      name: 'write_file',
      description: 'Writes a file.',
      execute: () => ({ ok: true }),
    });
    const basicModel = new ScriptedModel(['basic answer']);
    const planningModel = new ScriptedModel(['plan answer']);
    let planningMode = false;
    const routed = new RoutedAgent({
      name: 'Assistant',
      agents: {
        basic: new LlmAgent({ name: 'basic', model: basicModel, tools: [read, write], instruction: 'Help.' }),
        planning: new LlmAgent({
          name: 'planning',
          model: planningModel,
          tools: [read],
          instruction: 'Plan; read only.',
        }),
      },
      router: () => (planningMode ? 'planning' : 'basic'),
    });
    await runOnce(routed, 'x');
    planningMode = true;
    await runOnce(routed, 'y');
    expect(basicModel.requests[0]!.config.tools!.map((t) => t.name)).toEqual(['read_file', 'write_file']);
    expect(planningModel.requests[0]!.config.tools!.map((t) => t.name)).toEqual(['read_file']);
  });

  it('a transfer-capable sub-agent is in the tree: names are unique and parents are set', () => {
    const a = answer('a', 'x');
    const routed = new RoutedAgent({ name: 'R', agents: { first: a }, router: () => 'first' });
    expect(a.parentAgent).toBe(routed);
    expect(routed.findAgent('a')).toBe(a);
  });
});

describe('RoutedLlm and fallbackModels', () => {
  it('RoutedLlm falls back before the first chunk and records the answering model', async () => {
    const primary = new ScriptedModel([{ error: 'overloaded', status: 503 }], { model: 'primary-model' });
    const backup = new ScriptedModel(['from backup'], { model: 'backup-model' });
    const routed = new RoutedLlm({
      models: [primary, backup],
      router: (_m, _r, err) => (err ? 'backup-model' : 'primary-model'),
    });
    const result = await runOnce(new LlmAgent({ name: 'A', model: routed }), 'hi');
    expect(result.output).toBe('from backup');
    expect(result.events[0]!.model).toBe('backup-model');
  });

  it('fallbackModels tries the primary first on every request', async () => {
    const primary = new ScriptedModel([{ error: 'down', status: 503 }, 'primary is back'], { model: 'p' });
    const second = new ScriptedModel(['second answered'], { model: 's' });
    const agent = new LlmAgent({ name: 'A', model: primary, fallbackModels: [second] });
    const first = await runOnce(agent, 'one');
    expect(first.events[0]).toMatchObject({ model: 's', output: 'second answered' });
    const next = await first.runner.run({ userId: 'u', sessionId: first.sessionId, newMessage: 'two' });
    expect(next.events[0]).toMatchObject({ model: 'p', output: 'primary is back' });
    primary.assertDone();
    second.assertDone();
  });

  it('does not fall back after the first streamed chunk', async () => {
    class CutStream extends ScriptedModel {
      override async *generateContentAsync() {
        yield { content: { role: 'model' as const, parts: [{ text: 'half' }] }, partial: true };
        throw new Error('stream cut');
      }
    }
    const second = new ScriptedModel(['never used'], { model: 's' });
    const agent = new LlmAgent({ name: 'A', model: new CutStream([], { model: 'p' }), fallbackModels: [second] });
    const result = await runOnce(agent, 'x', { runConfig: { streaming: 'sse' } });
    expect(result.status).toBe('failed');
    expect(result.error!.message).toMatch(/stream cut/);
    expect(second.requests).toHaveLength(0);
  });

  it('every model failing propagates the last error', async () => {
    const agent = new LlmAgent({
      name: 'A',
      model: new ScriptedModel([{ error: 'first down', status: 500 }], { model: 'p' }),
      fallbackModels: [new ScriptedModel([{ error: 'second down', status: 503 }], { model: 's' })],
    });
    const result = await runOnce(agent, 'x');
    expect(result.status).toBe('failed');
    expect(result.error!.message).toMatch(/second down/);
  });
});

describe('interrupt inside a RoutedAgent', () => {
  it('resumes the chosen agent without asking the router again', async () => {
    let routerCalls = 0;
    const ran: string[] = [];
    const pay = new FunctionTool({
      name: 'pay',
      description: 'Pays.',
      requireConfirmation: true,
      execute: () => {
        ran.push('paid');
        return 'paid';
      },
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'pay', id: 'p1' }] }, 'payment done']);
    const routed = new RoutedAgent({
      name: 'R',
      agents: { payer: new LlmAgent({ name: 'payer', model, tools: [pay] }), other: answer('other', 'x') },
      router: () => {
        routerCalls++;
        return 'payer';
      },
    });
    const paused = await runOnce(routed, 'pay');
    expect(paused.status).toBe('interrupted');
    const done = await paused.runner.resume({
      userId: 'u',
      sessionId: paused.sessionId,
      responses: { [paused.interrupts[0]!.id]: true },
    });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('payment done');
    expect(routerCalls).toBe(1);
    expect(ran).toEqual(['paid']);
  });
});
