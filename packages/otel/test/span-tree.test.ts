import { SpanKind, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AgentTool,
  FunctionTool,
  LlmAgent,
  LoopAgent,
  ParallelAgent,
  RoutedAgent,
  SequentialAgent,
  TeamAgent,
  getFunctionCalls,
  type LlmRequest,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { OK, childrenOf, only, outline, parentOf, runOn, tracedRunner, withPrefix } from './helpers.js';

/** A ParallelAgent, an AgentTool call and a transfer, each LlmAgent driven by a ScriptedModel. */
function multiAgentTree() {
  const lookupA = new FunctionTool({ name: 'lookup_a', description: 'Looks up for A.', execute: () => 'a-data' });
  const a = new LlmAgent({
    name: 'A',
    model: new ScriptedModel([{ functionCalls: [{ name: 'lookup_a', id: 'a1' }] }, 'A done'], { model: 'gpt-4o-mini' }),
    tools: [lookupA],
  });
  const b = new LlmAgent({ name: 'B', model: new ScriptedModel(['B done']) });
  const lookup = new FunctionTool({ name: 'lookup', description: 'Looks up.', execute: () => 'facts' });
  const researcher = new LlmAgent({
    name: 'Researcher',
    description: 'Researches.',
    model: new ScriptedModel([{ functionCalls: [{ name: 'lookup', id: 'r1' }] }, 'research notes']),
    tools: [lookup],
  });
  const specialist = new LlmAgent({
    name: 'Specialist',
    description: 'Answers hard questions.',
    model: new ScriptedModel(['final answer']),
  });
  const coordinator = new LlmAgent({
    name: 'Coordinator',
    model: new ScriptedModel([
      { functionCalls: [{ name: 'Researcher', args: { request: 'find facts' }, id: 'c1' }] },
      { functionCalls: [{ name: 'transfer_to_agent', args: { agent_name: 'Specialist' }, id: 'c2' }] },
    ]),
    tools: [new AgentTool({ agent: researcher })],
    subAgents: [specialist],
  });
  return new SequentialAgent({
    name: 'Root',
    subAgents: [new ParallelAgent({ name: 'Fan', subAgents: [a, b] }), coordinator],
  });
}

describe('OpenTelemetryPlugin: the span tree', () => {
  it('nests parallel branches, an AgentTool call and a transfer target, with GenAI attributes', async () => {
    const { exporter, runner } = tracedRunner(multiAgentTree());
    const result = await runOn(runner, 'help');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('final answer');
    const spans = exporter.getFinishedSpans();

    expect(outline(spans)).toEqual([
      'invocation',
      '  invoke_agent Root',
      '    invoke_agent Fan',
      '      invoke_agent A',
      '        chat gpt-4o-mini',
      '        execute_tool lookup_a',
      '        chat gpt-4o-mini',
      '      invoke_agent B',
      '        chat scripted',
      '    invoke_agent Coordinator',
      '      chat scripted',
      '      execute_tool Researcher',
      '        invoke_agent Researcher',
      '          chat scripted',
      '          execute_tool lookup',
      '          chat scripted',
      '      chat scripted',
      '      execute_tool transfer_to_agent',
      '      invoke_agent Specialist',
      '        chat scripted',
    ]);
    // One trace, every span ended and none in error.
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(spans.every((s) => s.ended && s.status.code === OK)).toBe(true);
    expect(spans.every((s) => s.attributes['troupe.span.end_reason'] === undefined)).toBe(true);

    const root = only(spans, 'invocation');
    expect(root.attributes).toMatchObject({
      'troupe.invocation.id': result.events[0]!.invocationId,
      'gen_ai.conversation.id': result.sessionId,
      // The agent that answered (after a transfer to Specialist), and the one the run started with.
      'troupe.invocation.agent': 'Specialist',
      'troupe.invocation.entry_agent': 'Root',
      'troupe.run.status': 'completed',
      'troupe.usage.input_tokens': result.usage.inputTokens,
      'troupe.usage.output_tokens': result.usage.outputTokens,
    });

    const a = only(spans, 'invoke_agent A');
    expect(a.kind).toBe(SpanKind.INTERNAL);
    expect(a.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'A',
      'troupe.agent.path': 'Root/Fan/A',
      'troupe.agent.branch': 'Fan.A',
      'troupe.agent.type': 'LlmAgent',
      'troupe.agent.kind': 'llm',
      'gen_ai.conversation.id': result.sessionId,
    });
    const researcher = only(spans, 'invoke_agent Researcher');
    expect(researcher.attributes).toMatchObject({
      'troupe.agent.path': 'Root/Coordinator/Researcher',
      'troupe.agent.branch': 'Coordinator.Researcher',
      'gen_ai.agent.description': 'Researches.',
    });
    expect(only(spans, 'invoke_agent Specialist').attributes['troupe.agent.path']).toBe('Root/Coordinator/Specialist');

    // Model calls: request and response model, provider when the name tells it, usage, finish reason.
    const [firstA] = childrenOf(spans, a);
    expect(firstA!.kind).toBe(SpanKind.CLIENT);
    expect(firstA!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.response.model': 'gpt-4o-mini',
      'gen_ai.response.finish_reasons': ['STOP'],
      'gen_ai.agent.name': 'A',
    });
    const chats = spans.filter((s) => s.name.startsWith('chat '));
    expect(chats).toHaveLength(8);
    const sum = (key: string) => chats.reduce((n, s) => n + (s.attributes[key] as number), 0);
    expect(sum('gen_ai.usage.input_tokens')).toBe(result.usage.inputTokens);
    expect(sum('gen_ai.usage.output_tokens')).toBe(result.usage.outputTokens);
    expect(
      only(spans, 'chat scripted', (s) => parentOf(spans, s)?.name === 'invoke_agent B').attributes[
        'gen_ai.provider.name'
      ],
    ).toBeUndefined();

    // Tool calls: name, call id, the calling agent.
    const calls = result.events.flatMap(getFunctionCalls);
    const researcherCall = calls.find((c) => c.name === 'Researcher')!;
    expect(only(spans, 'execute_tool Researcher').attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'Researcher',
      'gen_ai.tool.call.id': researcherCall.id,
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'Researches.',
      'gen_ai.agent.name': 'Coordinator',
    });
    expect(only(spans, 'execute_tool lookup').attributes).toMatchObject({
      'gen_ai.tool.call.id': 'r1',
      'gen_ai.agent.name': 'Researcher',
      'troupe.agent.path': 'Root/Coordinator/Researcher',
    });

    // No content unless asked for.
    for (const span of spans) {
      expect(withPrefix(span.attributes, 'gen_ai.input.')).toEqual([]);
      expect(withPrefix(span.attributes, 'gen_ai.output.')).toEqual([]);
      expect(withPrefix(span.attributes, 'gen_ai.tool.call.a')).toEqual([]);
      expect(withPrefix(span.attributes, 'gen_ai.tool.call.r')).toEqual([]);
      expect(span.attributes['gen_ai.system_instructions']).toBeUndefined();
    }
  });

  it('nests TeamAgent skills, a RoutedAgent choice and LoopAgent iterations under the agent that ran them', async () => {
    const skill = (name: string) =>
      new LlmAgent({ name, model: new ScriptedModel([{ delayMs: 5, reply: `${name} out` }]) });
    const team = new TeamAgent({ name: 'Team', skills: [skill('Writer'), skill('Editor')], mode: 'parallel' });
    const routed = new RoutedAgent({ name: 'Router', agents: [skill('Fast'), skill('Slow')], router: () => 'Fast' });
    const worker = new LlmAgent({ name: 'Worker', model: new ScriptedModel(['w1', 'w2']) });
    const loop = new LoopAgent({ name: 'Loop', subAgents: [worker], maxIterations: 2 });
    const { exporter, runner } = tracedRunner(new SequentialAgent({ name: 'Root', subAgents: [team, routed, loop] }));
    const result = await runOn(runner, 'go');
    expect(result.status).toBe('completed');
    const spans = exporter.getFinishedSpans();

    expect(outline(spans)).toEqual([
      'invocation',
      '  invoke_agent Root',
      '    invoke_agent Team',
      '      invoke_agent Writer',
      '        chat scripted',
      '      invoke_agent Editor',
      '        chat scripted',
      '    invoke_agent Router',
      '      invoke_agent Fast',
      '        chat scripted',
      '    invoke_agent Loop',
      '      invoke_agent Worker',
      '        chat scripted',
      '      invoke_agent Worker',
      '        chat scripted',
    ]);
    expect(only(spans, 'invoke_agent Writer').attributes['troupe.agent.branch']).toBe('Team.Writer');
    expect(spans.every((s) => s.status.code === OK && s.attributes['troupe.span.end_reason'] === undefined)).toBe(true);
  });

  it('keeps two concurrent calls of one AgentTool apart: each agent run nests under its own call', async () => {
    // The researcher echoes its request after a delay, so both calls are open at once.
    const echo = (request: LlmRequest) => {
      const last = request.contents.at(-1)!.parts[0]!;
      return `notes on ${'text' in last ? last.text : '?'}`;
    };
    const researcher = new LlmAgent({
      name: 'Researcher',
      model: new ScriptedModel([
        { delayMs: 20, reply: echo },
        { delayMs: 5, reply: echo },
      ]),
    });
    const coordinator = new LlmAgent({
      name: 'Coordinator',
      model: new ScriptedModel([
        {
          functionCalls: [
            { name: 'Researcher', args: { request: 'alpha' }, id: 'x1' },
            { name: 'Researcher', args: { request: 'beta' }, id: 'x2' },
          ],
        },
        'both done',
      ]),
      tools: [new AgentTool({ agent: researcher })],
    });
    const { exporter, runner } = tracedRunner(coordinator, { captureContent: true });
    const result = await runOn(runner, 'research both');
    expect(result.status).toBe('completed');
    const spans = exporter.getFinishedSpans();

    for (const [id, topic] of [
      ['x1', 'alpha'],
      ['x2', 'beta'],
    ] as const) {
      const call = only(spans, 'execute_tool Researcher', (s) => s.attributes['gen_ai.tool.call.id'] === id);
      const [agentSpan, ...rest] = childrenOf(spans, call);
      expect(rest).toEqual([]);
      expect(agentSpan!.name).toBe('invoke_agent Researcher');
      const [chat] = childrenOf(spans, agentSpan!);
      expect(chat!.attributes['gen_ai.input.messages']).toContain(topic);
      expect(chat!.attributes['gen_ai.output.messages']).toContain(`notes on ${topic}`);
      expect(call.attributes['gen_ai.tool.call.result']).toContain(`notes on ${topic}`);
    }
  });

  it('starts a new trace per invocation', async () => {
    const agent = new LlmAgent({ name: 'Solo', model: new ScriptedModel(['one', 'two']) });
    const { exporter, runner } = tracedRunner(agent);
    await runOn(runner, 'first');
    await runOn(runner, 'second');
    const roots = exporter.getFinishedSpans().filter((s) => s.name === 'invocation');
    expect(roots).toHaveLength(2);
    expect(roots[0]!.spanContext().traceId).not.toBe(roots[1]!.spanContext().traceId);
  });

  it('nests the invocation under the span active when the run starts, with a context manager registered', async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    try {
      const agent = new LlmAgent({ name: 'Solo', model: new ScriptedModel(['hi']) });
      const { exporter, provider, runner } = tracedRunner(agent);
      const request = provider.getTracer('my-app').startSpan('POST /chat');
      await context.with(trace.setSpan(context.active(), request), () => runOn(runner, 'hello'));
      request.end();
      expect(outline(exporter.getFinishedSpans())).toEqual([
        'POST /chat',
        '  invocation',
        '    invoke_agent Solo',
        '      chat scripted',
      ]);
    } finally {
      context.disable();
    }
  });
});
