import {
  createEvent,
  DEFAULT_ROUTE,
  JoinNode,
  LlmAgent,
  node,
  RequestInput,
  Workflow,
  type NodeContext,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { ERROR, childrenOf, only, outline, parentOf, runOn, tracedRunner } from './helpers.js';

// One span per graph workflow node run (SPEC §17 "Seen everywhere"): `invoke_node <name>` under the
// workflow's agent span, with the node's path, run id, attempt and route.

/** classify routes a question to an LLM node; a nested workflow counts words beside it; a join merges both. */
function triage(model: ScriptedModel) {
  let flakes = 0;
  const classify = node(
    (_ctx, text: string) => createEvent({ output: text, route: text.endsWith('?') ? 'question' : 'other' }),
    { name: 'classify' },
  );
  const answer = new LlmAgent({ name: 'answer', model, instruction: 'Answer.' });
  // Fails its first try: its span shows two attempts and the failed try as an event.
  const count = node(
    (_ctx, text: string) => {
      flakes += 1;
      if (flakes === 1) throw new Error('counter busy');
      return text.split(' ').length;
    },
    { name: 'count', retryConfig: { maxAttempts: 2, initialDelayMs: 0 } },
  );
  const tally = new Workflow({ name: 'tally', edges: [['START', count]] });
  const note = node(() => 'noted', { name: 'note' });
  return new Workflow({
    name: 'triage',
    edges: [
      ['START', classify, { question: answer, [DEFAULT_ROUTE]: note }],
      ['START', tally],
      { fromNode: answer, toNode: 'merge' },
      [tally, new JoinNode({ name: 'merge' })],
    ],
  });
}

describe('OpenTelemetryPlugin: graph workflow nodes', () => {
  it('makes one invoke_node span per node run under its workflow agent, with path, run id, attempt and route', async () => {
    const { exporter, runner } = tracedRunner(triage(new ScriptedModel(['Paris.'])));
    const result = await runOn(runner, 'capital of France?');
    expect(result.status).toBe('completed');
    const spans = exporter.getFinishedSpans();
    const workflow = only(spans, 'invoke_agent triage');
    expect(
      childrenOf(spans, workflow)
        .map((s) => s.name)
        .sort(),
    ).toEqual([
      'invoke_agent answer',
      'invoke_agent tally',
      'invoke_node answer',
      'invoke_node classify',
      'invoke_node merge',
      'invoke_node tally',
    ]);
    // The nested workflow's node goes under that workflow's agent span.
    expect(parentOf(spans, only(spans, 'invoke_node count'))).toBe(only(spans, 'invoke_agent tally'));
    expect(outline(spans)).toContain('      chat scripted');

    const classify = only(spans, 'invoke_node classify');
    expect(classify.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_node',
      'gen_ai.agent.name': 'triage',
      'troupe.agent.path': 'triage',
      'troupe.node.name': 'classify',
      'troupe.node.path': 'triage.classify',
      'troupe.node.run_id': '1',
      'troupe.node.attempt': 1,
      'troupe.node.route': 'question',
      'troupe.invocation.id': expect.any(String),
    });
    expect(classify.attributes).not.toHaveProperty('troupe.node.input');
    expect(only(spans, 'invoke_node merge').attributes).not.toHaveProperty('troupe.node.route');

    const count = only(spans, 'invoke_node count');
    expect(count.attributes).toMatchObject({ 'troupe.node.path': 'triage.tally.count', 'troupe.node.attempt': 2 });
    expect(count.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'troupe.node.try_failed',
        {
          'troupe.node.attempt': 1,
          'error.type': 'ERROR',
          'exception.message': expect.stringContaining('counter busy'),
        },
      ],
    ]);
    expect(count.status.code).not.toBe(ERROR);
    // Dated by the node's records: within its workflow's span.
    const toMs = ([s, ns]: [number, number]) => s * 1000 + ns / 1e6;
    expect(toMs(classify.startTime)).toBeGreaterThanOrEqual(toMs(workflow.startTime) - 1);
    expect(toMs(classify.endTime)).toBeLessThanOrEqual(toMs(workflow.endTime) + 1);
  });

  it('records inputs and outputs only with captureContent', async () => {
    const { exporter, runner } = tracedRunner(triage(new ScriptedModel(['Paris.'])), { captureContent: true });
    await runOn(runner, 'capital of France?');
    const merge = only(exporter.getFinishedSpans(), 'invoke_node merge');
    expect(JSON.parse(merge.attributes['troupe.node.input'] as string)).toEqual({ answer: 'Paris.', tally: 3 });
    expect(JSON.parse(merge.attributes['troupe.node.output'] as string)).toEqual({ answer: 'Paris.', tally: 3 });
  });

  it('dates a node that returned at once by its one record (its end, alone), with its input', async () => {
    const upper = node((_ctx, text: string) => text.toUpperCase(), { name: 'upper' });
    const { exporter, runner } = tracedRunner(new Workflow({ name: 'w', edges: [['START', upper]] }), {
      captureContent: true,
    });
    const result = await runOn(runner, 'hi');
    expect(result.events.filter((e) => e.nodeInfo?.path === 'w.upper').map((e) => e.actions.agentState)).toEqual([
      { node: 'ended', alone: true, input: 'hi' },
    ]);
    const span = only(exporter.getFinishedSpans(), 'invoke_node upper');
    expect(span.attributes).not.toHaveProperty('troupe.node.resumed');
    expect(span.attributes).toMatchObject({ 'troupe.node.input': 'hi', 'troupe.node.output': 'HI' });
  });

  it('puts the runs of ctx.runNode children and parallel worker items under the node that ran them', async () => {
    const double = node((_ctx, n: number) => n * 2, { name: 'double' });
    const fan = node(
      async (ctx: NodeContext, items: number[]) =>
        (await Promise.all(items.map((n) => ctx.runNode(double, n)))).map((r) => r.output),
      { name: 'fan' },
    );
    const each = node((_ctx, n: number) => n + 1, { name: 'each', parallelWorker: true });
    const split = node(() => [1, 2], { name: 'split' });
    const both = new JoinNode({ name: 'both' });
    const { exporter, runner } = tracedRunner(
      new Workflow({ name: 'w', edges: [['START', split, [fan, each], both]] }),
    );
    const result = await runOn(runner, 'go');
    expect(result.output).toEqual({ fan: [2, 4], each: [2, 3] });
    const spans = exporter.getFinishedSpans();
    const fanSpan = only(spans, 'invoke_node fan');
    expect(childrenOf(spans, fanSpan).map((s) => [s.name, s.attributes['troupe.node.path']])).toEqual([
      ['invoke_node double', 'w.fan.double@1'],
      ['invoke_node double', 'w.fan.double@2'],
    ]);
    // The items are runs of the same node: named after it, told apart by their paths.
    const eachSpan = only(spans, 'invoke_node each', (s) => s.attributes['troupe.node.path'] === 'w.each');
    expect(childrenOf(spans, eachSpan).map((s) => s.attributes['troupe.node.path'])).toEqual([
      'w.each.each@0',
      'w.each.each@1',
    ]);
  });

  it('ends a paused node run with the interrupt, and traces its resumed run in the next invocation', async () => {
    const approve = node((_ctx, draft: string) => new RequestInput({ message: `Send ${draft}?` }), { name: 'approve' });
    const send = node((_ctx, answer: string) => `sent: ${answer}`, { name: 'send' });
    const draft = node(() => 'the draft', { name: 'draft' });
    const { exporter, runner } = tracedRunner(new Workflow({ name: 'mail', edges: [['START', draft, approve, send]] }));
    const paused = await runOn(runner, 'write');
    expect(paused.status).toBe('interrupted');
    const first = exporter.getFinishedSpans();
    const waiting = only(first, 'invoke_node approve');
    expect(waiting.attributes).toMatchObject({
      'troupe.span.end_reason': 'interrupted',
      'troupe.interrupt.id': 'mail.approve@1',
      'troupe.interrupt.kind': 'input',
    });
    expect(parentOf(first, waiting)).toBe(only(first, 'invoke_agent mail'));
    exporter.reset();

    const resumed = await runner.resume({
      userId: 'u',
      sessionId: paused.sessionId,
      responses: { 'mail.approve@1': 'yes' },
    });
    expect(resumed.status).toBe('completed');
    const spans = exporter.getFinishedSpans();
    // The workflow resumes without a before-agent hook, so its nodes go under the invocation span.
    const again = only(spans, 'invoke_node approve');
    expect(again.attributes).toMatchObject({ 'troupe.node.resumed': true, 'troupe.node.path': 'mail.approve' });
    expect(again.attributes).not.toHaveProperty('troupe.span.end_reason');
    expect(parentOf(spans, again)).toBe(only(spans, 'invocation'));
    expect(only(spans, 'invoke_node send').attributes).not.toHaveProperty('troupe.node.resumed');
    expect(spans.filter((s) => s.name === 'invoke_node draft')).toHaveLength(0);
  });

  it('marks the node runs a failed workflow left open with its error', async () => {
    const boom = node(
      () => {
        throw new Error('no ink');
      },
      { name: 'boom' },
    );
    const { exporter, runner } = tracedRunner(new Workflow({ name: 'w', edges: [['START', boom]] }));
    const result = await runOn(runner, 'go');
    expect(result.status).toBe('failed');
    const spans = exporter.getFinishedSpans();
    const span = only(spans, 'invoke_node boom');
    expect(span.status.code).toBe(ERROR);
    expect(span.attributes['troupe.span.end_reason']).toBe('failed');
    expect(span.attributes['error.type']).toBe('NODE_FAILED');
    expect(parentOf(spans, span)).toBe(only(spans, 'invoke_agent w'));
  });
});
