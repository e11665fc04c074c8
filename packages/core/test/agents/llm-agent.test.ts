import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  OutputValidationError,
  SequentialAgent,
  isFinalResponse,
  textOf,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce, texts } from '../helpers.js';

const add = new FunctionTool({
  name: 'add',
  description: 'Adds two numbers.',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a + b,
});

describe('LlmAgent', () => {
  it('runs the tool loop until a final answer and stores it with outputKey', async () => {
    const model = new ScriptedModel([{ functionCalls: [{ name: 'add', args: { a: 1, b: 2 } }] }, 'The sum is 3.']);
    const agent = new LlmAgent({ name: 'Calc', model, tools: [add], outputKey: 'answer' });
    const result = await runOnce(agent, 'add 1 and 2');
    expect(result.status).toBe('completed');
    expect(result.state.answer).toBe('The sum is 3.');
    expect(result.output).toBe('The sum is 3.');
    const second = model.requests[1]!.contents;
    expect(second.at(-2)!.parts[0]).toMatchObject({ functionCall: { name: 'add', args: { a: 1, b: 2 } } });
    expect(second.at(-1)).toEqual({
      role: 'user',
      parts: [{ functionResponse: { id: 'call_1_1', name: 'add', response: { result: 3 } } }],
    });
    expect(result.events.map((e) => isFinalResponse(e))).toEqual([false, false, true]);
    expect(result.events[1]!.author).toBe('Calc');
  });

  it('outputKey stores the whole streamed text, never partial chunks or thoughts', async () => {
    const model = new ScriptedModel([{ chunks: ['Hel', 'lo ', 'world'] }]);
    const agent = new LlmAgent({ name: 'Streamer', model, outputKey: 'out' });
    const runner = new InMemoryRunner({ agent });
    const s = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const seen: { partial: boolean; text: string }[] = [];
    for await (const e of runner.runAsync({
      userId: 'u',
      sessionId: s.id,
      newMessage: 'hi',
      runConfig: { streaming: 'sse' },
    })) {
      seen.push({ partial: e.partial === true, text: textOf(e) });
    }
    expect(seen).toEqual([
      { partial: true, text: 'Hel' },
      { partial: true, text: 'lo ' },
      { partial: true, text: 'world' },
      { partial: false, text: 'Hello world' },
    ]);
    const stored = await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId: s.id });
    expect(stored!.state.out).toBe('Hello world');
    expect(stored!.events.every((e) => !e.partial)).toBe(true);
    expect(stored!.events).toHaveLength(2);

    const thinking = new ScriptedModel([{ text: 'Answer.', thought: 'secret reasoning' }]);
    const r2 = await runOnce(new LlmAgent({ name: 'Thinker', model: thinking, outputKey: 'out' }), 'q');
    expect(r2.state.out).toBe('Answer.');
    expect(r2.usage.thoughtTokens).toBeGreaterThan(0);
  });

  it('without streaming, chunks replies arrive as one final event', async () => {
    const model = new ScriptedModel([{ chunks: ['a', 'b'] }]);
    const result = await runOnce(new LlmAgent({ name: 'A', model }), 'hi');
    expect(result.events.map(textOf)).toEqual(['ab']);
  });

  it('outputKey with skipSummarization keeps the most recent text of the turn', async () => {
    const finish = new FunctionTool({
      name: 'finish',
      description: 'Ends.',
      execute: (_a, ctx) => {
        ctx.actions.skipSummarization = true;
        return 'done';
      },
    });
    const model = new ScriptedModel([{ text: 'Working on it.', functionCalls: [{ name: 'finish' }] }]);
    const result = await runOnce(new LlmAgent({ name: 'A', model, tools: [finish], outputKey: 'out' }), 'go');
    expect(result.status).toBe('completed');
    expect(result.state.out).toBe('Working on it.');
    expect(model.requests).toHaveLength(1);
  });

  it('outputSchema with tools: tools on intermediate turns, the final answer parsed and validated', async () => {
    const schema = z.object({ total: z.number(), explanation: z.string() });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'add', args: { a: 2, b: 3 } }] },
      '```json\n{"total": 5, "explanation": "2+3"}\n```',
    ]);
    const agent = new LlmAgent({ name: 'Calc', model, tools: [add], outputSchema: schema, outputKey: 'calc' });
    const result = await runOnce(agent, 'add');
    expect(result.status).toBe('completed');
    expect(result.state.calc).toEqual({ total: 5, explanation: '2+3' });
    expect(result.output).toEqual({ total: 5, explanation: '2+3' });
    expect(model.requests[0]!.config.tools!.map((t) => t.name)).toEqual(['add']);
    expect(model.requests[0]!.config.responseSchema).toMatchObject({
      type: 'object',
      properties: { total: { type: 'number' } },
    });
  });

  it('outputSchema retries once on invalid JSON, then fails with OutputValidationError', async () => {
    const schema = z.object({ total: z.number() });
    const ok = new ScriptedModel(['not json', '{"total": 1}']);
    const r1 = await runOnce(new LlmAgent({ name: 'A', model: ok, outputSchema: schema, outputKey: 'o' }), 'go');
    expect(r1.status).toBe('completed');
    expect(r1.state.o).toEqual({ total: 1 });
    expect(texts(ok.requests[1]!.contents).at(-1)).toMatch(/did not match the required JSON schema/);

    const bad = new ScriptedModel(['nope', '{"total": "x"}']);
    const r2 = await runOnce(new LlmAgent({ name: 'A', model: bad, outputSchema: schema, outputKey: 'o' }), 'go');
    expect(r2.status).toBe('failed');
    expect(r2.error).toBeInstanceOf(OutputValidationError);
    expect(r2.error!.message).toMatch(/total/);
    expect(r2.state.o).toBeUndefined();
  });

  it('includeContents none sees only the current turn', async () => {
    const first = new ScriptedModel(['first answer']);
    const second = new ScriptedModel(['second answer']);
    const a = new LlmAgent({ name: 'First', model: first });
    const b = new LlmAgent({ name: 'Second', model: second, includeContents: 'none' });
    const runner = new InMemoryRunner({ agent: new SequentialAgent({ name: 'Seq', subAgents: [a, b] }) });
    const s = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    await runner.run({ userId: 'u', sessionId: s.id, newMessage: 'hello' });
    expect(second.requests[0]!.contents).toEqual([{ role: 'user', parts: [{ text: '[First] said: first answer' }] }]);
  });

  it("rewrites other agents' turns as user-role context, keeping every call paired", async () => {
    const m1 = new ScriptedModel([{ functionCalls: [{ name: 'add', args: { a: 1, b: 1 } }] }, 'two']);
    const m2 = new ScriptedModel(['ok']);
    const a = new LlmAgent({ name: 'Adder', model: m1, tools: [add] });
    const b = new LlmAgent({ name: 'Reader', model: m2 });
    await runOnce(new SequentialAgent({ name: 'Seq', subAgents: [a, b] }), 'sum');
    const contents = m2.requests[0]!.contents;
    expect(contents.every((c) => c.role === 'user')).toBe(true);
    expect(texts(contents)).toEqual([
      'sum',
      `[Adder] called tool 'add' with parameters: {"a":1,"b":1}`,
      `[Adder] tool 'add' returned: {"result":2}`,
      '[Adder] said: two',
    ]);
    expect(JSON.stringify(contents)).not.toContain('[object Object]');
  });

  it('model inherits from the nearest ancestor LlmAgent, then the runner default', async () => {
    const parentModel = new ScriptedModel([
      { functionCalls: [{ name: 'transfer_to_agent', args: { agent_name: 'Child' } }] },
      'from child',
    ]);
    const child = new LlmAgent({ name: 'Child' });
    const parent = new LlmAgent({ name: 'Parent', model: parentModel, subAgents: [child] });
    const result = await runOnce(parent, 'hi');
    expect(result.output).toBe('from child');
    expect(child.canonicalModel()).toBe(parentModel);

    const fallback = new ScriptedModel(['default']);
    const r2 = await runOnce(new LlmAgent({ name: 'Lonely' }), 'hi', { defaultModel: fallback });
    expect(r2.output).toBe('default');

    const r3 = await runOnce(new LlmAgent({ name: 'NoModel' }), 'hi');
    expect(r3.status).toBe('failed');
    expect(r3.error!.message).toMatch(/Agent 'NoModel' has no model/);
  });

  it('passes generateContentConfig through and records model and usage on events', async () => {
    const model = new ScriptedModel(['hi'], { model: 'test-model' });
    const result = await runOnce(
      new LlmAgent({ name: 'A', model, generateContentConfig: { temperature: 0.2, maxOutputTokens: 50 } }),
      'x',
    );
    expect(model.requests[0]!.config).toMatchObject({ temperature: 0.2, maxOutputTokens: 50 });
    expect(result.events[0]).toMatchObject({
      model: 'test-model',
      usage: { inputTokens: expect.any(Number), outputTokens: 1 },
    });
  });

  it('structured input: inputKey, a lone request, or JSON', async () => {
    const m1 = new ScriptedModel(['a']);
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: 'A', model: m1, inputKey: 'question' }) });
    const s = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    await runner.run({ userId: 'u', sessionId: s.id, input: { question: 'Why?', extra: 1 } });
    expect(texts(m1.requests[0]!.contents)).toEqual(['Why?']);

    const m2 = new ScriptedModel(['b']);
    const r2 = new InMemoryRunner({ agent: new LlmAgent({ name: 'B', model: m2 }) });
    const s2 = await r2.sessionService.createSession({ appName: r2.appName, userId: 'u' });
    await r2.run({ userId: 'u', sessionId: s2.id, input: { topic: 'cats', words: 10 } });
    expect(texts(m2.requests[0]!.contents)).toEqual(['{"topic":"cats","words":10}']);
  });
});
