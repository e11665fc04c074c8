import { describe, expect, it } from 'vitest';
import { createEvent } from '@troupe/core';
import { encodeSession, type AgentGraphNode, type WireEvent, type WireSession } from '../../src/index.js';
import { eventFacts } from '../../ui/src/model/event-facts.js';
import { inputAnswer, openInterrupts } from '../../ui/src/model/interrupts.js';
import { foldEvent, localResumeEvent, localUserEvent, type LiveView } from '../../ui/src/model/live-run.js';
import { patternProgress } from '../../ui/src/model/pattern-progress.js';
import { diffState, initialStateOf, replayStates } from '../../ui/src/model/state-replay.js';
import { transcript } from '../../ui/src/model/transcript.js';
import { readEventStream } from '../../ui/src/sse.js';

// The dev UI's pure logic: what it derives from the events the API sends (state replay, open
// interrupts, streamed text, the transcript), tested without a browser.

let nextId = 0;
function event(fields: Partial<WireEvent>): WireEvent {
  return {
    id: `e${++nextId}`,
    invocationId: 'inv-1',
    timestamp: 1_700_000_000 + nextId,
    author: 'agent',
    branch: '',
    path: 'agent',
    actions: { stateDelta: {}, artifactDelta: {} },
    ...fields,
  };
}
const delta = (stateDelta: Record<string, unknown>) => ({ stateDelta, artifactDelta: {} });
const confirmation = {
  id: 'Root/Booker:call_1',
  kind: 'confirmation' as const,
  agentPath: 'Root/Booker',
  toolCallId: 'call_1',
  toolName: 'book_table',
  args: { guests: 2 },
  hint: 'Allow?',
};

describe('state replay', () => {
  it('keeps the stored keys no event wrote as the initial state, and replays each delta', () => {
    const events = [
      event({ author: 'user' }),
      event({ actions: delta({ topic: 'cats', count: 1 }) }),
      event({ actions: delta({ count: 2 }) }),
    ];
    const session: WireSession = {
      id: 's',
      appName: 'a',
      userId: 'u',
      state: { 'user:name': 'Ada', topic: 'cats', count: 2 },
      events,
      lastUpdateTime: 1,
    };
    const initial = initialStateOf(session);
    expect(initial).toEqual({ 'user:name': 'Ada' });
    const steps = replayStates(initial, events);
    expect(steps.map((s) => s.after)).toEqual([
      { 'user:name': 'Ada' },
      { 'user:name': 'Ada', topic: 'cats', count: 1 },
      { 'user:name': 'Ada', topic: 'cats', count: 2 },
    ]);
    expect(steps[2]!.before).toBe(steps[1]!.after);
    expect(diffState(steps[1]!.before, steps[1]!.after)).toEqual([
      { key: 'count', kind: 'added', after: 1 },
      { key: 'topic', kind: 'added', after: 'cats' },
    ]);
    expect(diffState(steps[2]!.before, steps[2]!.after)).toEqual([
      { key: 'count', kind: 'changed', before: 1, after: 2 },
    ]);
    expect(diffState({ a: { x: [1] }, gone: true }, { a: { x: [1] } })).toEqual([
      { key: 'gone', kind: 'removed', before: true },
    ]);
  });
});

describe('open interrupts', () => {
  it('are those of the latest invocation raised after its last resume', () => {
    const asked = event({ interrupt: confirmation });
    expect(
      openInterrupts([event({ author: 'user', content: { role: 'user', parts: [{ text: 'book' }] } }), asked]),
    ).toEqual([confirmation]);
    expect(openInterrupts([asked, localResumeEvent('inv-1', { [confirmation.id]: true }, 0)])).toEqual([]);
    expect(openInterrupts([asked, event({ invocationId: 'inv-2' })])).toEqual([]);
  });

  it('sends typed text as a string unless the request expects another JSON type', () => {
    const input = { ...confirmation, kind: 'input' as const };
    expect(inputAnswer(input, '42')).toBe('42');
    expect(inputAnswer({ ...input, responseSchema: { type: 'integer' } }, '42')).toBe(42);
    expect(inputAnswer({ ...input, responseSchema: { type: 'object' } }, '{"a":1}')).toEqual({ a: 1 });
    expect(inputAnswer({ ...input, responseSchema: { type: 'number' } }, 'many')).toBe('many');
  });
});

describe('a streamed run', () => {
  it('grows the text of partial chunks, then appends the complete event once', () => {
    let view: LiveView = { events: [localUserEvent('hi', 1000)], streaming: undefined };
    const chunk = (text: string, author = 'Concierge') =>
      event({ author, partial: true, content: { role: 'model', parts: [{ text }] } });
    view = foldEvent(view, chunk('Hel'));
    view = foldEvent(view, chunk('lo'));
    expect(view.streaming).toMatchObject({ author: 'Concierge', text: 'Hello' });
    view = foldEvent(view, chunk('Ot', 'Other'));
    expect(view.streaming).toMatchObject({ author: 'Other', text: 'Ot' });
    const complete = event({ author: 'Concierge', content: { role: 'model', parts: [{ text: 'Hello' }] } });
    view = foldEvent(foldEvent(view, complete), complete);
    expect(view.streaming).toBeUndefined();
    expect(view.events.map((e) => e.id)).toEqual(['local-1000', complete.id]);
  });

  it('reads SSE frames split across chunks, several to a chunk', async () => {
    const frames = [event({ author: 'a' }), event({ author: 'b' }), event({ author: 'c' })]
      .map((e) => `data: ${JSON.stringify(e)}\n\n`)
      .join('');
    const cuts = [0, 7, frames.indexOf('\n\n') + 1, frames.length - 3, frames.length];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 1; i < cuts.length; i++)
          controller.enqueue(new TextEncoder().encode(frames.slice(cuts[i - 1], cuts[i])));
        controller.close();
      },
    });
    const authors: string[] = [];
    for await (const e of readEventStream(new Response(body))) authors.push(e.author);
    expect(authors).toEqual(['a', 'b', 'c']);
  });
});

describe('what the panels show', () => {
  it('lists tool calls and results, transfers, routes, state, usage, errors and interrupts of an event', () => {
    const facts = eventFacts(
      event({
        content: {
          role: 'model',
          parts: [
            { text: 'ok' },
            { functionCall: { id: 'c1', name: 'search', args: { q: 'x' } } },
            { functionResponse: { id: 'c1', name: 'search', response: { hits: 1 } } },
          ],
        },
        actions: {
          stateDelta: { k: 1 },
          artifactDelta: {},
          transferToAgent: 'Booker',
          route: { key: 'fast', reason: 'short' },
        },
        usage: { inputTokens: 10, outputTokens: 2 },
        errorCode: 'MODEL',
        errorMessage: 'down',
        interrupt: confirmation,
      }),
    );
    expect(facts.map((f) => f.kind)).toEqual([
      'text',
      'call',
      'result',
      'transfer',
      'route',
      'state',
      'interrupt',
      'usage',
      'error',
    ]);
  });

  it("leaves out ADK's form of a confirmation and of its answer, which the server adds for ADK clients", () => {
    const session = encodeSession({
      id: 's',
      appName: 'a',
      userId: 'u',
      state: {},
      lastUpdateTime: 1,
      version: 2,
      events: [
        createEvent({ invocationId: 'inv-1', author: 'Booker', interrupt: confirmation }),
        createEvent({
          invocationId: 'inv-1',
          author: 'user',
          actions: { agentState: { resume: { responses: { [confirmation.id]: { confirmed: true } } } } },
        }),
      ],
    });
    const [asked, answered] = session.events!;
    expect(asked!.content!.parts[0]).toMatchObject({ functionCall: { name: 'adk_request_confirmation' } });
    expect(answered!.content!.parts[0]).toMatchObject({ functionResponse: { name: 'adk_request_confirmation' } });
    expect(eventFacts(asked!).map((f) => f.kind)).toEqual(['interrupt']);
    expect(eventFacts(answered!).map((f) => f.kind)).toEqual(['answers']);
    expect(transcript(session.events!).map((item) => ('text' in item ? item.text : item.kind))).toEqual([
      'asks to approve book_table',
      'approved book_table',
    ]);
  });

  it("leaves out ADK's form of a workflow's request for input, and tells it by its question", () => {
    const request = {
      id: 'triage.approve@1',
      kind: 'input' as const,
      agentPath: 'triage',
      toolCallId: 'triage.approve@1',
      toolName: 'adk_request_input',
      args: { interruptId: 'triage.approve@1', message: 'Refund 20 USD?' },
      message: 'Refund 20 USD?',
    };
    const session = encodeSession({
      id: 's',
      appName: 'a',
      userId: 'u',
      state: {},
      lastUpdateTime: 1,
      version: 2,
      events: [
        createEvent({ invocationId: 'inv-1', author: 'approve', interrupt: request }),
        createEvent({
          invocationId: 'inv-1',
          author: 'user',
          actions: { agentState: { resume: { responses: { [request.id]: 'yes' } } } },
        }),
      ],
    });
    const [asked, answered] = session.events!;
    expect(asked!.content!.parts[0]).toMatchObject({ functionCall: { name: 'adk_request_input' } });
    expect(eventFacts(asked!).map((f) => f.kind)).toEqual(['interrupt']);
    expect(eventFacts(answered!).map((f) => f.kind)).toEqual(['answers']);
    expect(transcript(session.events!).map((item) => ('text' in item ? item.text : item.kind))).toEqual([
      'asks: Refund 20 USD?',
      'answered the request with "yes"',
    ]);
  });

  it('tells the conversation: messages, steps, answers and errors', () => {
    const events = [
      localUserEvent('Book a table', 1),
      event({
        content: {
          role: 'model',
          parts: [{ functionCall: { id: 't', name: 'transfer_to_agent', args: { agent_name: 'Booker' } } }],
        },
      }),
      event({
        content: { role: 'model', parts: [{ functionResponse: { id: 't', name: 'transfer_to_agent', response: {} } }] },
        actions: { stateDelta: {}, artifactDelta: {}, transferToAgent: 'Booker' },
      }),
      event({ author: 'Booker', interrupt: confirmation }),
      localResumeEvent('inv-1', { [confirmation.id]: true }, 2),
      event({
        author: 'Booker',
        content: { role: 'model', parts: [{ text: 'thinking', thought: true }, { text: 'Booked.' }] },
      }),
      event({ author: 'Booker', errorCode: 'TIMEOUT', errorMessage: 'too slow' }),
    ];
    expect(
      transcript(events).map((item) => [
        item.kind,
        'author' in item ? item.author : 'user',
        'text' in item ? item.text : item.mimeType,
      ]),
    ).toEqual([
      ['user', 'user', 'Book a table'],
      ['step', 'agent', 'transferred to Booker'],
      ['step', 'Booker', 'asks to approve book_table'],
      ['step', 'user', 'approved book_table'],
      ['agent', 'Booker', 'Booked.'],
      ['error', 'Booker', 'TIMEOUT: too slow'],
    ]);
  });
});

describe('pattern progress', () => {
  const leaf = (name: string): AgentGraphNode => ({
    name,
    type: 'llm',
    class: 'LlmAgent',
    description: '',
    children: [],
    tools: [],
  });
  const graph: AgentGraphNode = {
    name: 'Root',
    type: 'sequential',
    class: 'SequentialAgent',
    description: '',
    children: [
      // Recognised by kind, not class: TripPlanner stands for an app's subclass of PlanExecuteAgent.
      {
        name: 'Trip',
        type: 'plan_execute',
        class: 'TripPlanner',
        description: '',
        children: [leaf('Planner'), leaf('Executor')],
        tools: [],
      },
      {
        name: 'Room',
        type: 'group_chat',
        class: 'GroupChatAgent',
        description: '',
        children: [leaf('Writer'), leaf('Critic')],
        tools: [],
      },
      // A class named like a pattern but of another kind is not one.
      { name: 'Lookalike', type: 'custom', class: 'PlanExecuteAgent', description: '', children: [], tools: [] },
    ],
    tools: [],
  };

  it("shows a plan-execute agent's plan with its finished, current and open steps", () => {
    const state = {
      plan: { steps: ['Book the hotel', 'Rent a car'] },
      pastSteps: [{ step: 'Book the flight', result: 'AF123' }],
    };
    expect(patternProgress(graph, [], state).plans).toEqual([
      {
        agent: 'Trip',
        steps: [
          { text: 'Book the flight', state: 'done' },
          { text: 'Book the hotel', state: 'current' },
          { text: 'Rent a car', state: 'open' },
        ],
        status: undefined,
        finished: false,
      },
    ]);
    expect(patternProgress(graph, [], {}).plans).toEqual([]);
  });

  it('keeps a finished plan with its steps ticked and says why it stopped; the steps it never ran are not current', () => {
    const record = (agentState: Record<string, unknown>) => ({
      ...event({ author: 'Trip', path: 'Root/Trip' }),
      actions: { stateDelta: {}, artifactDelta: {}, agentState },
    });
    // Its only step done: no steps left in the plan.
    const done = { plan: { steps: [] }, pastSteps: [{ step: 'Book the flight', result: 'AF123' }] };
    expect(patternProgress(graph, [record({ stopReason: 'planCompleted', iterations: 1 })], done).plans).toEqual([
      {
        agent: 'Trip',
        steps: [{ text: 'Book the flight', state: 'done' }],
        status: 'Plan completed: all 1 step done',
        finished: true,
      },
    ]);
    // Answered early: the remaining step is left open, and a maxIterations stop is the plan's, not a loop's.
    const early = { plan: { steps: ['Rent a car'] }, pastSteps: [{ step: 'Book the flight', result: 'AF123' }] };
    expect(
      patternProgress(graph, [record({ stopReason: 'maxIterations', iterations: 1 })], early).plans[0],
    ).toMatchObject({
      steps: [
        { text: 'Book the flight', state: 'done' },
        { text: 'Rent a car', state: 'open' },
      ],
      status: 'Plan stopped: reached its maximum of 1 step',
      finished: true,
    });
  });

  it("lists a group chat's speakers in order, one entry per turn, only the chat's own participants", () => {
    const events = [
      event({ author: 'user', path: '' }),
      event({ author: 'Writer', path: 'Root/Room/Writer' }),
      event({ author: 'Writer', path: 'Root/Room/Writer', partial: true }),
      event({ author: 'Critic', path: 'Root/Room/Critic' }),
      event({ author: 'Critic', path: 'Root/Room/Critic' }),
      event({ author: 'Writer', path: 'Root/Room/Writer' }),
      event({ author: 'Writer', path: 'Root/Elsewhere/Writer' }),
    ];
    expect(patternProgress(graph, events, {}).chats).toEqual([
      { agent: 'Room', speakers: ['Writer', 'Critic', 'Writer'] },
    ]);
  });
});
