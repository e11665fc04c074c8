import {
  AgentTool,
  ConfigurationError,
  FunctionTool,
  LlmAgent,
  ParallelAgent,
  SequentialAgent,
  type Event,
  type RunResult,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { OpenTelemetryPlugin } from '../src/index.js';
import { only, runOn, runTurn, tracedRunner, tracing } from './helpers.js';

/** A fresh tree with parallel branches, an AgentTool call, a failing tool, a transfer and state writes. */
function scenario() {
  const broken = new FunctionTool({
    name: 'broken',
    description: 'Fails.',
    execute: () => {
      throw new Error('no route');
    },
  });
  const a = new LlmAgent({
    name: 'A',
    model: new ScriptedModel([{ functionCalls: [{ name: 'broken', id: 'b1' }] }, 'A recovered']),
    tools: [broken],
    outputKey: 'a',
  });
  const b = new LlmAgent({ name: 'B', model: new ScriptedModel(['B done']), outputKey: 'b' });
  const helper = new LlmAgent({
    name: 'Helper',
    description: 'Helps.',
    model: new ScriptedModel(['helped']),
    outputKey: 'helped',
  });
  const closer = new LlmAgent({
    name: 'Closer',
    description: 'Closes.',
    instruction: 'Close politely.',
    model: new ScriptedModel(['closed']),
  });
  const lead = new LlmAgent({
    name: 'Lead',
    instruction: 'Lead the work.',
    model: new ScriptedModel([
      { functionCalls: [{ name: 'Helper', args: { request: 'help me' }, id: 'h1' }] },
      { functionCalls: [{ name: 'transfer_to_agent', args: { agent_name: 'Closer' }, id: 't1' }] },
    ]),
    tools: [new AgentTool({ agent: helper })],
    subAgents: [closer],
  });
  return new SequentialAgent({
    name: 'Root',
    subAgents: [new ParallelAgent({ name: 'Fan', subAgents: [a, b] }), lead],
  });
}

/** A result without ids and timestamps; events grouped by branch (parallel branches interleave freely). */
function comparable(result: RunResult) {
  const strip = ({ id: _id, timestamp: _timestamp, invocationId: _invocationId, ...rest }: Event) => rest;
  const events = result.events.map(strip);
  const branches = [...new Set(events.map((e) => e.branch))].sort();
  return {
    status: result.status,
    output: result.output,
    state: result.state,
    usage: result.usage,
    interrupts: result.interrupts,
    error: result.error?.message,
    events: branches.map((branch) => events.filter((e) => e.branch === branch)),
  };
}

describe('OpenTelemetryPlugin: never changes a run', () => {
  it('gives the same result and events with and without the plugin, tracing or not, with or without content', async () => {
    const plain = comparable(await runTurn(scenario(), 'start'));
    expect(plain.status).toBe('completed');
    expect(plain.output).toBe('closed');
    expect(plain.state).toMatchObject({ a: 'A recovered', b: 'B done', helped: 'helped' });

    const traced = tracedRunner(scenario());
    expect(comparable(await runOn(traced.runner, 'start'))).toEqual(plain);
    expect(traced.exporter.getFinishedSpans().length).toBeGreaterThan(10);

    const withContent = tracedRunner(scenario(), { captureContent: true });
    expect(comparable(await runOn(withContent.runner, 'start'))).toEqual(plain);

    // No provider registered: the global tracer is a no-op one.
    expect(comparable(await runTurn(scenario(), 'start', [new OpenTelemetryPlugin()]))).toEqual(plain);
  });

  it('has no onEvent hook, so the runner makes no per-event call for it', () => {
    const plugin = new OpenTelemetryPlugin();
    expect('onEvent' in plugin).toBe(false);
  });
});

describe('OpenTelemetryPlugin: content capture', () => {
  it('records prompts, answers, tool arguments and results only with captureContent', async () => {
    const { exporter, runner } = tracedRunner(scenario(), { captureContent: true });
    const result = await runOn(runner, 'start');
    const spans = exporter.getFinishedSpans();

    const root = only(spans, 'invocation');
    expect(JSON.parse(root.attributes['gen_ai.input.messages'] as string)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'start' }] },
    ]);
    expect(root.attributes['troupe.run.output']).toBe(result.output);

    const leadChats = spans.filter((s) => s.name === 'chat scripted' && s.attributes['gen_ai.agent.name'] === 'Lead');
    expect(leadChats).toHaveLength(2);
    expect(leadChats[0]!.attributes['gen_ai.system_instructions']).toContain('Lead the work.');
    const output = JSON.parse(leadChats[0]!.attributes['gen_ai.output.messages'] as string);
    expect(output).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'h1', name: 'Helper', arguments: { request: 'help me' } }],
        finish_reason: 'STOP',
      },
    ]);
    // The second call sees the tool's answer as a tool message.
    const input = JSON.parse(leadChats[1]!.attributes['gen_ai.input.messages'] as string) as {
      role: string;
      parts: { type: string }[];
    }[];
    expect(input.at(-1)).toMatchObject({ role: 'tool', parts: [{ type: 'tool_call_response', id: 'h1' }] });

    const helperCall = only(spans, 'execute_tool Helper');
    expect(helperCall.attributes['gen_ai.tool.call.arguments']).toBe('{"request":"help me"}');
    expect(helperCall.attributes['gen_ai.tool.call.result']).toBe('{"result":"helped"}');
    const brokenCall = only(spans, 'execute_tool broken');
    expect(brokenCall.attributes['gen_ai.tool.call.result']).toBe('{"error":"no route"}');
  });
});

describe('OpenTelemetryPlugin: options', () => {
  it('rejects conflicting or malformed options, naming the option and the fix', () => {
    const { provider } = tracing();
    expect(() => new OpenTelemetryPlugin({ tracer: provider.getTracer('x'), tracerProvider: provider })).toThrow(
      ConfigurationError,
    );
    expect(() => new OpenTelemetryPlugin({ tracer: provider.getTracer('x'), tracerProvider: provider })).toThrow(
      /both tracer and tracerProvider/,
    );
    expect(() => new OpenTelemetryPlugin({ tracer: {} as never })).toThrow(
      /option tracer must be an OpenTelemetry Tracer/,
    );
    expect(() => new OpenTelemetryPlugin({ tracerProvider: 'otel' as never })).toThrow(
      /option tracerProvider must be .*got string "otel"/,
    );
    expect(() => new OpenTelemetryPlugin({ captureContent: 'yes' as never })).toThrow(
      /captureContent must be true or false; got string "yes"/,
    );
    expect(() => new OpenTelemetryPlugin(null as never)).toThrow(/needs an options object/);
  });

  it('is named opentelemetry unless told otherwise, and takes a tracer directly', async () => {
    expect(new OpenTelemetryPlugin().name).toBe('opentelemetry');
    expect(new OpenTelemetryPlugin({ name: 'otel-2' }).name).toBe('otel-2');
    const { provider, exporter } = tracing();
    const agent = new LlmAgent({ name: 'Solo', model: new ScriptedModel(['hi']) });
    await runTurn(agent, 'hello', [new OpenTelemetryPlugin({ tracer: provider.getTracer('my-app') })]);
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['chat scripted', 'invoke_agent Solo', 'invocation']);
    expect(spans[0]!.instrumentationScope.name).toBe('my-app');
  });
});
