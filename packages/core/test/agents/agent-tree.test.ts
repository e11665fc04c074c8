import { describe, expect, it } from 'vitest';
import {
  AgentTreeError,
  BaseAgent,
  createEvent,
  FunctionAgent,
  LlmAgent,
  SequentialAgent,
  type InvocationContext,
} from '@troupe/core';

const leaf = (name: string) => new FunctionAgent({ name, run: () => name });

describe('agent tree', () => {
  it('sets parentAgent, rootAgent and finds agents', () => {
    const a = leaf('A');
    const b = leaf('B');
    const mid = new SequentialAgent({ name: 'Mid', subAgents: [b] });
    const root = new SequentialAgent({ name: 'Root', subAgents: [a, mid] });
    expect(a.parentAgent).toBe(root);
    expect(b.parentAgent).toBe(mid);
    expect(b.rootAgent).toBe(root);
    expect(root.findAgent('Root')).toBe(root);
    expect(root.findAgent('B')).toBe(b);
    expect(root.findSubAgent('Root')).toBeUndefined();
    expect(root.findSubAgent('Mid')).toBe(mid);
    expect(root.findAgent('Nope')).toBeUndefined();
  });

  it('rejects a second parent, naming the agent and both parents', () => {
    const child = leaf('Child');
    new SequentialAgent({ name: 'First', subAgents: [child] });
    expect(() => new SequentialAgent({ name: 'Second', subAgents: [child] })).toThrow(AgentTreeError);
    expect(() => new SequentialAgent({ name: 'Second', subAgents: [child] })).toThrow(/'Child'.*'First'.*'Second'/);
  });

  it('rejects duplicate names anywhere in one tree', () => {
    const deep = new SequentialAgent({ name: 'Mid', subAgents: [leaf('Dup')] });
    expect(() => new SequentialAgent({ name: 'Root', subAgents: [leaf('Dup'), deep] })).toThrow(/'Dup' is used twice/);
    expect(() => new SequentialAgent({ name: 'Same', subAgents: [leaf('Same')] })).toThrow(AgentTreeError);
  });

  it.each([['with space'], ['1starts'], ['user'], [''], ['dash-name']])('rejects the invalid name %j', (name) => {
    expect(() => new LlmAgent({ name })).toThrow(AgentTreeError);
  });

  it('a failed construction leaves the children free to join another parent', () => {
    const free = leaf('Free');
    expect(() => new SequentialAgent({ name: 'Bad', subAgents: [free, leaf('Bad')] })).toThrow(AgentTreeError);
    expect(free.parentAgent).toBeUndefined();
    expect(new SequentialAgent({ name: 'Good', subAgents: [free] }).subAgents).toEqual([free]);
  });

  it('custom agents yield events that the base fills with author, branch, path and invocation id', async () => {
    class Checker extends BaseAgent {
      protected async *runAsyncImpl(ctx: InvocationContext) {
        yield createEvent({ actions: { stateDelta: { seen: ctx.session.state.status ?? 'none' } } });
      }
    }
    const { InMemoryRunner } = await import('@troupe/core');
    const runner = new InMemoryRunner({
      agent: new SequentialAgent({ name: 'Root', subAgents: [new Checker({ name: 'Checker' })] }),
    });
    const s = await runner.sessionService.createSession({
      appName: runner.appName,
      userId: 'u',
      state: { status: 'ok' },
    });
    const result = await runner.run({ userId: 'u', sessionId: s.id, newMessage: 'hi' });
    const event = result.events.find((e) => e.author === 'Checker')!;
    expect(event).toMatchObject({ author: 'Checker', branch: '', path: 'Root/Checker' });
    expect(event.invocationId).toMatch(/^e-/);
    expect(result.state.seen).toBe('ok');
  });
});
