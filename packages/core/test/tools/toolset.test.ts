import { describe, expect, it } from 'vitest';
import {
  AgentTool,
  BaseToolset,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  SequentialAgent,
  type BaseTool,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';

class ListToolset extends BaseToolset {
  closed = 0;
  constructor(public tools: BaseTool[]) {
    super();
  }
  async getTools() {
    return this.tools;
  }
  override async close() {
    this.closed++;
  }
}

const tool = (name: string) => new FunctionTool({ name, description: name, execute: () => `${name} ran` });

describe('toolsets', () => {
  it('offers the toolset’s current tools on every run, next to the fixed ones', async () => {
    const toolset = new ListToolset([tool('alpha')]);
    const model = new ScriptedModel([{ functionCalls: [{ name: 'alpha' }] }, 'done', 'second']);
    const agent = new LlmAgent({ name: 'A', model, tools: [tool('fixed'), toolset] });
    const runner = new InMemoryRunner({ agent });
    const s = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const first = await runner.run({ userId: 'u', sessionId: s.id, newMessage: 'go' });
    expect(first.status).toBe('completed');
    expect(model.requests[0]!.config.tools!.map((t) => t.name)).toEqual(['fixed', 'alpha']);
    toolset.tools = [tool('beta')];
    await runner.run({ userId: 'u', sessionId: s.id, newMessage: 'again' });
    expect(model.requests[2]!.config.tools!.map((t) => t.name)).toEqual(['fixed', 'beta']);
  });

  it('a toolset tool clashing with a fixed tool fails with a clear error', async () => {
    const agent = new LlmAgent({
      name: 'A',
      model: new ScriptedModel([]),
      tools: [tool('same'), new ListToolset([tool('same')])],
    });
    const runner = new InMemoryRunner({ agent });
    const s = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: s.id, newMessage: 'go' });
    expect(result.error!.message).toMatch(/two tools named 'same'/);
  });

  it('runner.close() closes every toolset in the tree, behind AgentTools too, once each', async () => {
    const shared = new ListToolset([]);
    const inner = new ListToolset([]);
    const helper = new LlmAgent({ name: 'Helper', tools: [inner] });
    const a = new LlmAgent({ name: 'A', tools: [shared, new AgentTool({ agent: helper })] });
    const b = new LlmAgent({ name: 'B', tools: [shared] });
    const runner = new InMemoryRunner({ agent: new SequentialAgent({ name: 'S', subAgents: [a, b] }) });
    await runner.close();
    expect(shared.closed).toBe(1);
    expect(inner.closed).toBe(1);
  });
});
