import { describe, expect, it } from 'vitest';
import {
  BaseAgent,
  FunctionAgent,
  FunctionTool,
  LlmAgent,
  SequentialAgent,
  type AgentKind,
  type AgentOutline,
  type Event,
  type InvocationContext,
} from '@troupe/core';
import { SupervisorAgent } from '@troupe/core/patterns';
import { ScriptedModel } from '@troupe/core/testing';
import { a2aApp } from '@troupe/a2a';

/** An agent of its own kind that runs an agent it does not hold as a sub-agent. */
class Shadowing extends BaseAgent {
  constructor(readonly shadow: BaseAgent) {
    super({ name: 'Shadowing' });
  }

  override get kind(): AgentKind {
    return 'shadow';
  }

  override outline(): AgentOutline {
    return { children: [this.shadow], tools: [] };
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    yield* this.shadow.runAsync(ctx);
  }
}

describe('the agent card', () => {
  it("has a skill per agent tagged with its role, class and kind, found through each agent's outline (tools, workers, custom children)", async () => {
    const lookup = new FunctionTool({ name: 'lookup', description: 'Looks things up.', execute: () => ({}) });
    const worker = new FunctionAgent({ name: 'worker', run: () => 'done' });
    const lead = new SupervisorAgent({
      name: 'lead',
      model: new ScriptedModel([]),
      tools: [lookup],
      subAgents: [worker],
    });
    const root = new SequentialAgent({
      name: 'pipeline',
      subAgents: [lead, new Shadowing(new LlmAgent({ name: 'echo' }))],
    });
    const app = a2aApp(root, { baseUrl: 'http://127.0.0.1:8000/a2a/pipeline' });
    const card = (await (
      await app.request('/.well-known/agent-card.json', { headers: { 'A2A-Version': '1.0' } })
    ).json()) as { skills: { id: string; tags: string[] }[] };
    expect(card.skills.map((s) => [s.id, s.tags])).toEqual([
      ['pipeline', ['root', 'SequentialAgent', 'sequential']],
      ['lead', ['sub-agent', 'SupervisorAgent', 'supervisor']],
      ['lead.lookup', ['tool', 'lead']],
      ['lead.worker', ['tool', 'lead']],
      ['worker', ['sub-agent', 'FunctionAgent', 'function']],
      ['Shadowing', ['sub-agent', 'Shadowing', 'shadow']],
      ['echo', ['sub-agent', 'LlmAgent', 'llm']],
    ]);
  });
});
