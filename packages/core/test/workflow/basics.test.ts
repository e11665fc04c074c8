import { describe, expect, it } from 'vitest';
import {
  createEvent,
  DEFAULT_ROUTE,
  InMemoryRunner,
  JoinNode,
  LlmAgent,
  node,
  RequestInput,
  Workflow,
  type Event,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';

async function run(workflow: Workflow, message: string) {
  const runner = new InMemoryRunner({ agent: workflow });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: message });
  const stored = await runner.sessionService.getSession({
    appName: runner.appName,
    userId: 'u',
    sessionId: session.id,
  });
  return { runner, result, events: stored!.events, sessionId: session.id };
}

const ends = (events: Event[]) =>
  events
    .filter((e) => e.actions.agentState?.node === 'ended')
    .map((e) => `${e.nodeInfo!.path}=${JSON.stringify(e.output)}`);

describe('Workflow', () => {
  it('runs a chain: each output is the next input, the last is the output', async () => {
    const upper = node((_ctx, text: string) => text.toUpperCase(), { name: 'upper' });
    const exclaim = node((_ctx, text: string) => `${text}!`, { name: 'exclaim' });
    const { result, events } = await run(new Workflow({ name: 'w', edges: [['START', upper, exclaim]] }), 'hi');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('HI!');
    expect(ends(events)).toEqual(['w.upper="HI"', 'w.exclaim="HI!"']);
  });

  it('routes with a route map and DEFAULT_ROUTE, fans out and joins', async () => {
    const classify = node(
      (_ctx, text: string) => createEvent({ output: text, route: text.endsWith('?') ? 'question' : 'other' }),
      {
        name: 'classify',
      },
    );
    const answer = node((_ctx, q: string) => `answer to ${q}`, { name: 'answer' });
    const fallback = node(() => 'noted', { name: 'fallback' });
    const { result } = await run(
      new Workflow({ name: 'w', edges: [['START', classify, { question: answer, [DEFAULT_ROUTE]: fallback }]] }),
      'why?',
    );
    expect(result.output).toBe('answer to why?');

    const a = node(() => 1, { name: 'a' });
    const b = node(() => 2, { name: 'b' });
    const join = new JoinNode({ name: 'join' });
    const sum = node((_ctx, parts: Record<string, number>) => parts.a! + parts.b!, { name: 'sum' });
    const fan = await run(new Workflow({ name: 'w2', edges: [['START', [a, b], join, sum]] }), 'go');
    expect(fan.result.output).toBe(3);
  });

  it('an LlmAgent node gets its input as the user turn and outputs its answer', async () => {
    const model = new ScriptedModel(['Paris']);
    const capital = new LlmAgent({ name: 'capital', model, instruction: 'Name the capital.' });
    const shout = node((_ctx, city: string) => city.toUpperCase(), { name: 'shout' });
    const { result } = await run(new Workflow({ name: 'w', edges: [['START', capital, shout]] }), 'France');
    expect(result.output).toBe('PARIS');
    const request = model.requests[0]!;
    expect(JSON.stringify(request.contents)).toContain('France');
  });

  it('pauses on RequestInput and takes the answer as the node output on resume', async () => {
    let drafted = 0;
    const draft = node(
      () => {
        drafted += 1;
        return 'draft';
      },
      { name: 'draft' },
    );
    const approve = node((_ctx, d: string) => new RequestInput({ message: `Approve ${d}?` }), { name: 'approve' });
    const publish = node((_ctx, answer: string) => `published (${answer})`, { name: 'publish' });
    const { runner, result, sessionId } = await run(
      new Workflow({ name: 'w', edges: [['START', draft, approve, publish]] }),
      'go',
    );
    expect(result.status).toBe('interrupted');
    expect(result.interrupts).toHaveLength(1);
    const interrupt = result.interrupts[0]!;
    expect(interrupt).toMatchObject({ kind: 'input', message: 'Approve draft?', toolName: 'adk_request_input' });
    const resumed = await runner.resume({ userId: 'u', sessionId, responses: { [interrupt.id]: 'yes' } });
    expect(resumed.status).toBe('completed');
    expect(resumed.output).toBe('published (yes)');
    expect(drafted).toBe(1);
  });

  it('createEvent({ output, route, content, stateDelta }): stateDelta is stored with the node event', async () => {
    const note = node((_ctx, text: string) => createEvent({ output: text, stateDelta: { seen: text } }), {
      name: 'note',
    });
    const { result } = await run(new Workflow({ name: 'w', edges: [['START', note]] }), 'hello');
    expect(result.state.seen).toBe('hello');
  });
});
