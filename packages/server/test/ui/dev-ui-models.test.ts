import { expect, it } from 'vitest';
import type { WireEvent } from '../../src/index.js';
import type { WireTraceSpan } from '../../src/dev-ui-wire.js';
import { eventFacts } from '../../ui/src/model/event-facts.js';
import { formFields, formValue } from '../../ui/src/model/schema-form.js';
import { traceTimelines } from '../../ui/src/model/trace-timeline.js';
import { transcript } from '../../ui/src/model/transcript.js';
import { workflowProgress } from '../../ui/src/model/workflow-progress.js';

// The dev UI's models for workflow progress, the inputSchema form and the trace timeline.

function progressEvent(author: string, agentState: Record<string, unknown> | undefined, endOfAgent = false): WireEvent {
  return {
    id: `e-${author}-${JSON.stringify(agentState)}`,
    invocationId: 'inv-1',
    timestamp: 1_700_000_000,
    author,
    branch: '',
    path: author,
    actions: {
      stateDelta: {},
      artifactDelta: {},
      ...(agentState ? { agentState } : {}),
      ...(endOfAgent ? { endOfAgent } : {}),
    },
  };
}

it('reads loop iterations and stop reasons, sequence steps and parallel branches from progress records', () => {
  expect(workflowProgress(progressEvent('Drafts', { iteration: 1, next: 1 }))?.text).toBe(
    'Loop iteration 2: step 1 done',
  );
  expect(workflowProgress(progressEvent('Drafts', { stopReason: 'maxIterations', iterations: 2 }, true))).toEqual({
    workflow: 'loop',
    text: 'Loop stopped: reached its maximum of 2 iterations',
  });
  expect(workflowProgress(progressEvent('Drafts', { stopReason: 'escalated', iterations: 1 }))?.text).toBe(
    'Loop stopped: escalated after 1 iteration',
  );
  expect(workflowProgress(progressEvent('Pipeline', { next: 1 }))?.text).toBe('Sequence: step 1 done, step 2 next');
  expect(workflowProgress(progressEvent('Reviews', { completed: ['Grammar', 'Facts'] }, true))?.text).toBe(
    'Parallel branches finished: Grammar, Facts',
  );
  expect(workflowProgress(progressEvent('Worker', undefined, true))?.text).toBe('Worker finished');
  expect(workflowProgress(progressEvent('user', { input: { city: 'Oslo' } }))).toBeUndefined();
  expect(workflowProgress(progressEvent('Plain', undefined))).toBeUndefined();
  // The event list shows them as facts, and the chat as step lines (not "(no content)").
  expect(eventFacts(progressEvent('Drafts', { iteration: 0, next: 1 }))).toEqual([
    { kind: 'progress', workflow: 'loop', text: 'Loop iteration 1: step 1 done' },
  ]);
  expect(transcript([progressEvent('Reviews', { completed: ['Grammar', 'Facts'] })]).map((i) => i.kind)).toEqual([
    'step',
  ]);
});

it("gives the patterns' records their own words, by the kind of their author, and a custom record its JSON", () => {
  const kinds: Record<string, string> = {
    Trip: 'plan_execute',
    Room: 'group_chat',
    Lead: 'supervisor',
    Drafts: 'loop',
  };
  const kindOf = (author: string) => kinds[author];
  // A plan that answered is no loop that reached its maximum.
  expect(workflowProgress(progressEvent('Trip', { stopReason: 'responded', iterations: 2 }, true), kindOf)).toEqual({
    workflow: 'plan_execute',
    text: 'Plan answered after 2 steps',
  });
  expect(workflowProgress(progressEvent('Trip', { stopReason: 'maxIterations', iterations: 3 }), kindOf)?.text).toBe(
    'Plan stopped: reached its maximum of 3 steps',
  );
  expect(workflowProgress(progressEvent('Drafts', { stopReason: 'maxIterations', iterations: 3 }), kindOf)?.text).toBe(
    'Loop stopped: reached its maximum of 3 iterations',
  );
  const next = { next: 'execute', iteration: 1, plan: ['Go'], pastSteps: [{ step: 'Pack', result: 'ok' }] };
  expect(workflowProgress(progressEvent('Trip', next), kindOf)?.text).toBe('Plan: step 2 of 2 next: Go');
  expect(workflowProgress(progressEvent('Room', { speakers: ['Writer'], done: false }), kindOf)?.text).toBe(
    'Group chat: turn 1, Writer speaks',
  );
  expect(workflowProgress(progressEvent('Lead', { stopReason: 'answered', delegations: 2 }), kindOf)?.text).toBe(
    'Supervisor answered after 2 delegations',
  );
  expect(workflowProgress(progressEvent('Custom', { step: 3 }))).toEqual({
    workflow: 'agent',
    text: 'Custom recorded its progress: {"step":3}',
  });
  // The chat shows the patterns' lines too, with the kinds given.
  expect(
    transcript([progressEvent('Trip', { stopReason: 'planCompleted', iterations: 1 })], kindOf).map((i) =>
      'text' in i ? i.text : i.kind,
    ),
  ).toEqual(['Plan completed: all 1 step done']);
});

it('builds a form from an inputSchema and turns its values into the input, checking what was typed', () => {
  const fields = formFields({
    type: 'object',
    properties: {
      city: { type: 'string', title: 'City' },
      days: { type: 'integer', default: 3 },
      ratio: { type: 'number' },
      metric: { type: 'boolean', default: true },
      tone: { type: 'string', enum: ['plain', 'cheerful'] },
      tags: { type: 'array', items: { type: 'string' } },
      extra: { type: 'object' },
    },
    required: ['city'],
  });
  expect(fields.map((f) => [f.name, f.control, f.required, f.initial])).toEqual([
    ['city', 'text', true, ''],
    ['days', 'integer', false, '3'],
    ['ratio', 'number', false, ''],
    ['metric', 'checkbox', false, true],
    ['tone', 'select', false, 'plain'],
    ['tags', 'list', false, ''],
    ['extra', 'json', false, ''],
  ]);
  expect(formValue(fields, {})).toEqual({ ok: false, message: 'City is required.' });
  expect(formValue(fields, { city: 'Oslo', days: '2.5' })).toEqual({
    ok: false,
    message: 'days must be a whole number; got "2.5".',
  });
  expect(
    formValue(fields, {
      city: ' Oslo ',
      ratio: '0.5',
      metric: false,
      tone: 'cheerful',
      tags: 'a\n\n b ',
      extra: '{"k":1}',
    }),
  ).toEqual({
    ok: true,
    value: { city: 'Oslo', days: 3, ratio: 0.5, metric: false, tone: 'cheerful', tags: ['a', 'b'], extra: { k: 1 } },
  });
  expect(formValue(fields, { city: 'Oslo', extra: '{' })).toMatchObject({ ok: false });
});

it('lays out spans per invocation under their parents, with offsets and durations', () => {
  const ms = 1_000_000;
  const span = (id: string, parent: string | null, kind: string, start: number, end: number | null): WireTraceSpan => ({
    name: kind === 'model' ? 'call_llm' : kind === 'tool' ? 'execute_tool t' : 'invoke_agent A',
    span_id: id,
    parent_span_id: parent,
    trace_id: 'inv-1',
    start_time: start * ms,
    end_time: end === null ? null : end * ms,
    attributes: {
      'troupe.span.kind': kind,
      'troupe.agent.name': 'A',
      'gen_ai.request.model': 'm',
      'gen_ai.tool.name': 't',
    },
  });
  const [timeline] = traceTimelines([
    span('a', null, 'agent', 1000, 1200),
    span('t', 'a', 'tool', 1100, 1150),
    span('m', 'a', 'model', 1000, 1100),
  ]);
  expect(timeline!.durationMs).toBe(200);
  expect(timeline!.rows.map((r) => [r.label, r.depth, r.offset, r.width, r.durationMs])).toEqual([
    ['A', 0, 0, 100, 200],
    ['A → m', 1, 0, 50, 100],
    ['t', 1, 50, 25, 50],
  ]);
  // An open span lasts until now.
  const [open] = traceTimelines([span('a', null, 'agent', 1000, null)], 1500);
  expect(open!.rows[0]!.durationMs).toBeUndefined();
  expect(open!.durationMs).toBe(500);
});

it('shows a custom event (ctx.emit) as a fact with its name and data, and as a chat step', () => {
  const event: WireEvent = {
    ...progressEvent('Fetcher', undefined),
    id: 'e-custom',
    customEvent: { name: 'fetch.progress', data: { page: 1, of: 2 } },
  };
  expect(eventFacts(event)).toEqual([{ kind: 'custom', name: 'fetch.progress', data: { page: 1, of: 2 } }]);
  expect(transcript([event]).map((i) => (i.kind === 'step' ? i.text : i.kind))).toEqual([
    'fetch.progress {"page":1,"of":2}',
  ]);
  const bare: WireEvent = { ...event, customEvent: { name: 'done' } };
  expect(transcript([bare]).map((i) => (i.kind === 'step' ? i.text : i.kind))).toEqual(['done']);
});
