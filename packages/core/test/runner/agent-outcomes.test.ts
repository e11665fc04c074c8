import { describe, expect, it } from 'vitest';
import {
  BasePlugin,
  FunctionAgent,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  SequentialAgent,
  type AgentOutcome,
  type BaseAgent,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { z } from 'zod';
import { waitFor } from '../wait.js';

class Outcomes extends BasePlugin {
  readonly seen: string[] = [];
  errors: unknown[] = [];
  constructor() {
    super('outcomes');
  }
  override afterAgent({ agent, outcome, error }: { agent: BaseAgent; outcome: AgentOutcome; error?: unknown }) {
    this.seen.push(`${agent.name}:${outcome}`);
    if (error !== undefined) this.errors.push(error);
    return undefined;
  }
}

async function run(agent: BaseAgent, abort?: AbortController) {
  const plugin = new Outcomes();
  const runner = new InMemoryRunner({ agent, plugins: [plugin] });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const result = await runner.run({
    userId: 'u',
    sessionId: session.id,
    newMessage: 'go',
    ...(abort ? { abortSignal: abort.signal } : {}),
  });
  return { plugin, result };
}

describe('afterAgent hears every ending, with its outcome', () => {
  it('completed agents, then a failing one and the agents its error passed through', async () => {
    const boom = new Error('boom');
    const { plugin, result } = await run(
      new SequentialAgent({
        name: 'Flow',
        subAgents: [
          new FunctionAgent({ name: 'ok', run: () => 1 }),
          new FunctionAgent({
            name: 'bad',
            run: () => {
              throw boom;
            },
          }),
        ],
      }),
    );
    expect(result.status).toBe('failed');
    expect(plugin.seen).toEqual(['ok:completed', 'bad:failed', 'Flow:failed']);
    expect(plugin.errors).toEqual([boom, boom]);
  });

  it('cancelled agents report cancelled', async () => {
    const controller = new AbortController();
    const { plugin, result } = await run(
      new SequentialAgent({
        name: 'Flow',
        subAgents: [
          new FunctionAgent({
            name: 'stopper',
            run: () => {
              controller.abort();
              return 1;
            },
          }),
          new FunctionAgent({ name: 'never', run: () => 2 }),
        ],
      }),
      controller,
    );
    expect(result.status).toBe('cancelled');
    // The runner stopped right after storing the stopper's event, before its after-callbacks ran.
    await waitFor(() => plugin.seen.length >= 2, "the stopper's and the flow's after-callbacks");
    expect(plugin.seen).toEqual(['stopper:cancelled', 'Flow:cancelled']);
  });

  it('an agent that pauses for a human reports interrupted, then completed when resumed', async () => {
    const model = new ScriptedModel([{ functionCalls: [{ name: 'pay', args: { amount: 5 } }] }, 'paid']);
    const pay = new FunctionTool({
      name: 'pay',
      description: 'pays',
      parameters: z.object({ amount: z.number() }),
      requireConfirmation: true,
      execute: () => ({ ok: true }),
    });
    const plugin = new Outcomes();
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: 'Cashier', model, tools: [pay] }),
      plugins: [plugin],
    });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const paused = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'pay 5' });
    expect(paused.status).toBe('interrupted');
    expect(plugin.seen).toEqual(['Cashier:interrupted']);
    await runner.resume({ userId: 'u', sessionId: session.id, responses: { [paused.interrupts[0]!.id]: true } });
    expect(plugin.seen).toEqual(['Cashier:interrupted', 'Cashier:completed']);
  });
});
