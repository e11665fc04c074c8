import { DiagLogLevel, diag, type Tracer } from '@opentelemetry/api';
import {
  AgentTool,
  BasePlugin,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  ParallelAgent,
  SequentialAgent,
  type CallbackContext,
  type LlmRequest,
  type LlmResponse,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { deferred } from '../../core/test/wait.js';
import { OpenTelemetryPlugin } from '../src/index.js';
import { ERROR, OK, childrenOf, exceptionMessages, only, outline, runOn, tracedRunner, tracing } from './helpers.js';

describe('OpenTelemetryPlugin: errors, pauses and spans that never got their end hook', () => {
  it('records a failing tool on its span; the run still completes and the plugin does not change the tool response', async () => {
    const flaky = new FunctionTool({
      name: 'flaky',
      description: 'Fails.',
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'flaky', id: 'f1' }] }, 'I could not do it.']);
    const { exporter, runner } = tracedRunner(new LlmAgent({ name: 'Worker', model, tools: [flaky] }));
    const result = await runOn(runner, 'try');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('I could not do it.');
    // The model got the error response core makes, untouched.
    expect(JSON.stringify(model.requests[1]!.contents)).toContain('disk on fire');

    const spans = exporter.getFinishedSpans();
    const tool = only(spans, 'execute_tool flaky');
    expect(tool.status).toEqual({ code: ERROR, message: 'disk on fire' });
    expect(exceptionMessages(tool)).toEqual(['disk on fire']);
    expect(tool.attributes['error.type']).toBe('Error');
    expect(tool.attributes['gen_ai.tool.call.id']).toBe('f1');
    for (const name of ['invocation', 'invoke_agent Worker']) expect(only(spans, name).status.code).toBe(OK);
  });

  it('ends the spans of an AgentTool agent that failed with the error, under the failed tool call', async () => {
    const broken = new LlmAgent({ name: 'Broken', model: new ScriptedModel([{ error: 'upstream 503', status: 503 }]) });
    const caller = new LlmAgent({
      name: 'Caller',
      model: new ScriptedModel([
        { functionCalls: [{ name: 'Broken', args: { request: 'go' }, id: 't1' }] },
        'fallback answer',
      ]),
      tools: [new AgentTool({ agent: broken })],
    });
    const { exporter, runner } = tracedRunner(caller);
    const result = await runOn(runner, 'go');
    expect(result.status).toBe('completed');
    const spans = exporter.getFinishedSpans();
    expect(outline(spans)).toEqual([
      'invocation',
      '  invoke_agent Caller',
      '    chat scripted',
      '    execute_tool Broken',
      '      invoke_agent Broken',
      '        chat scripted',
      '    chat scripted',
    ]);
    const tool = only(spans, 'execute_tool Broken');
    expect(tool.status.code).toBe(ERROR);
    const [inner] = childrenOf(spans, tool);
    expect(inner!.status.code).toBe(ERROR);
    // The agent reports its own failure (afterAgent outcome 'failed').
    expect(inner!.attributes['troupe.span.end_reason']).toBe('failed');
    const [innerChat] = childrenOf(spans, inner!);
    expect(innerChat!.status.code).toBe(ERROR);
    expect(innerChat!.attributes['error.type']).toBe('MODEL');
    expect(exceptionMessages(innerChat!)[0]).toMatch(/upstream 503/);
    expect(only(spans, 'invocation').status.code).toBe(OK);
  });

  it('records a failed model call and the failed run; a parallel sibling the failure cancelled ends without error', async () => {
    const bad = new LlmAgent({
      name: 'Bad',
      model: new ScriptedModel([{ delayMs: 5, reply: { error: 'quota exceeded', status: 429 } }]),
    });
    const slow = new LlmAgent({ name: 'Slow', model: new ScriptedModel([{ delayMs: 5_000, reply: 'too late' }]) });
    const { exporter, runner } = tracedRunner(
      new SequentialAgent({ name: 'Root', subAgents: [new ParallelAgent({ name: 'Fan', subAgents: [bad, slow] })] }),
    );
    const result = await runOn(runner, 'go');
    expect(result.status).toBe('failed');
    const spans = exporter.getFinishedSpans();
    expect(outline(spans)).toEqual([
      'invocation',
      '  invoke_agent Root',
      '    invoke_agent Fan',
      '      invoke_agent Bad',
      '        chat scripted',
      '      invoke_agent Slow',
      '        chat scripted',
    ]);
    expect(spans.every((s) => s.ended)).toBe(true);

    const badChat = childrenOf(spans, only(spans, 'invoke_agent Bad'))[0]!;
    expect(badChat.status.code).toBe(ERROR);
    expect(exceptionMessages(badChat)[0]).toMatch(/quota exceeded/);
    expect(badChat.attributes['troupe.span.end_reason']).toBeUndefined();
    // The agents the error passed through, up to the invocation.
    for (const name of ['invoke_agent Bad', 'invoke_agent Fan', 'invoke_agent Root']) {
      const span = only(spans, name);
      expect(span.status.code).toBe(ERROR);
      expect(span.attributes['troupe.span.end_reason']).toBe('failed');
      expect(exceptionMessages(span)[0]).toMatch(/quota exceeded/);
    }
    const root = only(spans, 'invocation');
    expect(root.status.code).toBe(ERROR);
    expect(root.attributes['troupe.run.status']).toBe('failed');
    expect(exceptionMessages(root)[0]).toBe(result.error!.message);
    // The sibling was stopped by the failure, not failing itself.
    const slowSpan = only(spans, 'invoke_agent Slow');
    expect(slowSpan.status.code).toBe(OK);
    expect(slowSpan.attributes['troupe.span.end_reason']).toBe('cancelled');
    expect(childrenOf(spans, slowSpan)[0]!.status.code).toBe(OK);
  });

  it('marks a model error another plugin recovers from, and the run goes on', async () => {
    class Fallback extends BasePlugin {
      constructor() {
        super('fallback');
      }
      override onModelError(): LlmResponse {
        return { content: { role: 'model', parts: [{ text: 'canned answer' }] } };
      }
    }
    const { provider, exporter } = tracing();
    const agent = new LlmAgent({ name: 'Solo', model: new ScriptedModel([{ error: 'timeout' }]) });
    const runner = new InMemoryRunner({
      agent,
      plugins: [new OpenTelemetryPlugin({ tracerProvider: provider }), new Fallback()],
    });
    const result = await runOn(runner, 'hi');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('canned answer');
    const spans = exporter.getFinishedSpans();
    expect(only(spans, 'chat scripted').status.code).toBe(ERROR);
    expect(only(spans, 'invoke_agent Solo').status.code).toBe(OK);
  });

  it('ends the spans of an interrupted run, marks the paused call, and traces the resumed run of the same invocation', async () => {
    const ran: string[] = [];
    const pay = new FunctionTool({
      name: 'pay',
      description: 'Pays.',
      requireConfirmation: true,
      execute: () => (ran.push('paid'), 'paid'),
    });
    const agent = new LlmAgent({
      name: 'Banker',
      model: new ScriptedModel([{ functionCalls: [{ name: 'pay', id: 'p1' }] }, 'Paid.']),
      tools: [pay],
    });
    const { exporter, runner } = tracedRunner(new SequentialAgent({ name: 'Desk', subAgents: [agent] }));
    const paused = await runOn(runner, 'pay it');
    expect(paused.status).toBe('interrupted');
    const first = exporter.getFinishedSpans();
    expect(outline(first)).toEqual([
      'invocation',
      '  invoke_agent Desk',
      '    invoke_agent Banker',
      '      chat scripted',
      '      execute_tool pay',
    ]);
    expect(first.every((s) => s.ended && s.status.code === OK)).toBe(true);
    const tool = only(first, 'execute_tool pay');
    expect(tool.attributes).toMatchObject({
      'troupe.span.end_reason': 'interrupted',
      'troupe.interrupt.id': 'Desk/Banker:p1',
      'troupe.interrupt.kind': 'confirmation',
    });
    for (const name of ['invoke_agent Desk', 'invoke_agent Banker'])
      expect(only(first, name).attributes['troupe.span.end_reason']).toBe('interrupted');
    expect(only(first, 'invocation').attributes['troupe.run.status']).toBe('interrupted');

    exporter.reset();
    const resumed = await runner.resume({
      userId: 'u',
      sessionId: paused.sessionId,
      responses: { 'Desk/Banker:p1': true },
    });
    expect(resumed.status).toBe('completed');
    expect(ran).toEqual(['paid']);
    const second = exporter.getFinishedSpans();
    // Core calls no before-agent hook for agents that resume, so the plugin opens the span of the
    // agent on its first call; the workflow around it has no call of its own and no span.
    expect(outline(second)).toEqual([
      'invocation',
      '  invoke_agent Banker',
      '    execute_tool pay',
      '    chat scripted',
    ]);
    const root = only(second, 'invocation');
    expect(root.attributes).toMatchObject({
      'troupe.invocation.resumed': true,
      'troupe.invocation.id': paused.events[0]!.invocationId,
      'troupe.run.status': 'completed',
    });
    expect(only(second, 'invoke_agent Banker').attributes).toMatchObject({
      'troupe.agent.resumed': true,
      'troupe.agent.path': 'Desk/Banker',
    });
    expect(second.every((s) => s.status.code === OK)).toBe(true);
  });

  it('ends the span of an agent a callback skipped when the next agent on its branch starts', async () => {
    const skipped = new LlmAgent({
      name: 'Skipped',
      model: new ScriptedModel([]),
      beforeAgentCallback: () => ({ role: 'model', parts: [{ text: 'not needed' }] }),
    });
    const next = new LlmAgent({ name: 'Next', model: new ScriptedModel(['next answer']) });
    const { exporter, runner } = tracedRunner(new SequentialAgent({ name: 'Root', subAgents: [skipped, next] }));
    const result = await runOn(runner, 'go');
    expect(result.status).toBe('completed');
    const spans = exporter.getFinishedSpans();
    expect(outline(spans)).toEqual([
      'invocation',
      '  invoke_agent Root',
      '    invoke_agent Skipped',
      '    invoke_agent Next',
      '      chat scripted',
    ]);
    const span = only(spans, 'invoke_agent Skipped');
    expect(span.attributes['troupe.span.end_reason']).toBe('superseded');
    expect(span.status.code).toBe(OK);
  });

  it('ends a model span a before-model callback answered when the agent moves on', async () => {
    const agent = new LlmAgent({
      name: 'Cached',
      model: new ScriptedModel([]),
      beforeModelCallback: ({ request }: { context: CallbackContext; request: LlmRequest }) => ({
        content: { role: 'model', parts: [{ text: `cached for ${request.model}` }] },
      }),
    });
    const { exporter, runner } = tracedRunner(agent);
    const result = await runOn(runner, 'hi');
    expect(result.output).toBe('cached for scripted');
    const spans = exporter.getFinishedSpans();
    const chat = only(spans, 'chat scripted');
    expect(chat.attributes['troupe.span.end_reason']).toBe('parent_ended');
    expect(chat.attributes['gen_ai.usage.input_tokens']).toBeUndefined();
  });

  it('records a run stopped by a limit on the agents that hit it', async () => {
    const loopy = new LlmAgent({
      name: 'Loopy',
      model: new ScriptedModel([
        { functionCalls: [{ name: 'noop', id: 'n1' }] },
        { functionCalls: [{ name: 'noop', id: 'n2' }] },
      ]),
      tools: [new FunctionTool({ name: 'noop', description: 'Nothing.', execute: () => 'ok' })],
    });
    const { exporter, runner } = tracedRunner(loopy);
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({
      userId: 'u',
      sessionId: session.id,
      newMessage: 'go',
      runConfig: { maxLlmCalls: 2 },
    });
    expect(result.status).toBe('limit');
    const spans = exporter.getFinishedSpans();
    expect(spans.every((s) => s.ended)).toBe(true);
    const root = only(spans, 'invocation');
    expect(root.status.code).toBe(ERROR);
    expect(root.attributes['troupe.run.stop_reason']).toBe('maxLlmCalls');
    const agentSpan = only(spans, 'invoke_agent Loopy');
    expect(agentSpan.status.code).toBe(ERROR);
    expect(agentSpan.attributes['error.type']).toBe('RUN_LIMIT');
    // The third model call never reached the model: its span ends with the run.
    const chats = spans.filter((s) => s.name === 'chat scripted');
    expect(chats).toHaveLength(3);
    expect(chats.filter((s) => s.attributes['troupe.span.end_reason'] === 'limit')).toHaveLength(1);
  });

  it('ends every span of a cancelled run as cancelled, without error', async () => {
    // The run is aborted once the model call is under way (its span open), and only the abort ends it.
    const calling = deferred();
    const model = new ScriptedModel([
      () => {
        calling.resolve();
        return { delayMs: 60_000, reply: 'late' };
      },
    ]);
    const slow = new LlmAgent({ name: 'Slow', model });
    const { exporter, runner } = tracedRunner(new SequentialAgent({ name: 'Root', subAgents: [slow] }));
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const abort = new AbortController();
    void calling.promise.then(() => abort.abort());
    const result = await runner.run({
      userId: 'u',
      sessionId: session.id,
      newMessage: 'go',
      abortSignal: abort.signal,
    });
    expect(result.status).toBe('cancelled');
    const spans = exporter.getFinishedSpans();
    expect(outline(spans)).toEqual([
      'invocation',
      '  invoke_agent Root',
      '    invoke_agent Slow',
      '      chat scripted',
    ]);
    expect(spans.every((s) => s.status.code === OK)).toBe(true);
    for (const name of ['invoke_agent Root', 'invoke_agent Slow', 'chat scripted'])
      expect(only(spans, name).attributes['troupe.span.end_reason']).toBe('cancelled');
    expect(only(spans, 'invocation').attributes['troupe.run.status']).toBe('cancelled');
  });

  it('never breaks a run when tracing itself fails: the fault goes to the OpenTelemetry diagnostic logger', async () => {
    const logged: string[] = [];
    diag.setLogger(
      {
        error: (message: string) => logged.push(message),
        warn: () => {},
        info: () => {},
        debug: () => {},
        verbose: () => {},
      },
      DiagLogLevel.ERROR,
    );
    try {
      const broken = {
        startSpan: () => {
          throw new Error('tracer down');
        },
        startActiveSpan: () => {
          throw new Error('tracer down');
        },
      } as unknown as Tracer;
      const agent = new LlmAgent({ name: 'Solo', model: new ScriptedModel(['still fine']) });
      const result = await runOn(
        new InMemoryRunner({ agent, plugins: [new OpenTelemetryPlugin({ tracer: broken })] }),
        'hi',
      );
      expect(result.status).toBe('completed');
      expect(result.output).toBe('still fine');
      expect(logged).toEqual(['@troupe/otel: the beforeRun hook failed; the run goes on without that span data.']);
    } finally {
      diag.disable();
    }
  });
});
