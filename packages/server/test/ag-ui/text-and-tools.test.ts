import {
  type AssistantMessage,
  EventType,
  type RunStartedEvent,
  type StateDeltaEvent,
  type TextMessageStartEvent,
  type ToolCallResultEvent,
} from '@ag-ui/client';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentTool, FunctionTool, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { AG_UI_USER } from '../../src/index.js';
import { client, ofType, runOnce, say, serveApps, threadState } from './helpers.js';

describe('AG-UI: text, tools and state', () => {
  it('streams a text answer as one message, and the thread keeps the conversation across runs', async () => {
    const model = new ScriptedModel([{ chunks: ['Hel', 'lo!'] }, 'Again.']);
    const served = await serveApps({ chat: new LlmAgent({ name: 'assistant', model }) });
    const agent = client(served, 'chat');

    say(agent, 'Hi');
    const first = await runOnce(agent);
    expect(first.types).toEqual([
      EventType.RUN_STARTED,
      EventType.STATE_SNAPSHOT,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.RUN_FINISHED,
    ]);
    expect(ofType<TextMessageStartEvent>(first, EventType.TEXT_MESSAGE_START)[0]).toMatchObject({
      role: 'assistant',
      name: 'assistant',
    });
    expect(first.newMessages).toEqual([expect.objectContaining({ role: 'assistant', content: 'Hello!' })]);
    expect(first.finished).toMatchObject({
      threadId: agent.threadId,
      result: 'Hello!',
      outcome: { type: 'success' },
      usage: [expect.objectContaining({ model: 'scripted', totalTokens: expect.any(Number) })],
    });
    // The run id is the invocation id.
    const started = ofType<RunStartedEvent>(first, EventType.RUN_STARTED)[0]!;
    expect(started.metadata).toEqual({ troupe: { invocationId: started.runId, userId: AG_UI_USER } });

    say(agent, 'Once more');
    await runOnce(agent);
    expect(agent.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Hi'],
      ['assistant', 'Hello!'],
      ['user', 'Once more'],
      ['assistant', 'Again.'],
    ]);
    // The model saw the whole thread from the session, not from the client's copy.
    expect(model.requests[1]!.contents.map((c) => c.parts.map((p) => ('text' in p ? p.text : '')).join(''))).toEqual([
      'Hi',
      'Hello!',
      'Once more',
    ]);
    const session = await served.sessionService.getSession({
      appName: 'chat',
      userId: AG_UI_USER,
      sessionId: agent.threadId,
    });
    expect(new Set(session!.events.map((e) => e.invocationId)).size).toBe(2);
  });

  it('sends tool calls and results on the turn’s message, and state deltas that bring the client to the session’s state', async () => {
    const add = new FunctionTool({
      name: 'add',
      description: 'Adds two numbers.',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }, ctx) => {
        ctx.state.set('last_sum', a + b);
        ctx.state.set('temp:scratch', 'never sent');
        ctx.state.set('history/~log', [a, b]);
        return { sum: a + b };
      },
    });
    const model = new ScriptedModel([
      { text: 'Adding.', functionCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: 'c1' }] },
      { chunks: ['It is ', '5.'] },
      { functionCalls: [{ name: 'add', args: { a: 1, b: 1 }, id: 'c2' }] },
      'It is 2.',
    ]);
    const served = await serveApps({ calc: new LlmAgent({ name: 'Calc', model, tools: [add], outputKey: 'answer' }) });
    const agent = client(served, 'calc', { initialState: { theme: 'dark' } });

    say(agent, 'What is 2 + 3?');
    const run = await runOnce(agent);
    expect(run.types).toEqual([
      EventType.RUN_STARTED,
      EventType.STATE_SNAPSHOT,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_ARGS,
      EventType.TOOL_CALL_END,
      EventType.TOOL_CALL_RESULT,
      EventType.STATE_DELTA,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.STATE_DELTA,
      EventType.RUN_FINISHED,
    ]);
    // The call sits on the message that announced it; its result is JSON text.
    const [announce] = run.newMessages as AssistantMessage[];
    expect(announce).toMatchObject({
      role: 'assistant',
      content: 'Adding.',
      toolCalls: [{ id: 'Calc:c1', function: { name: 'add', arguments: '{"a":2,"b":3}' } }],
    });
    expect(ofType<ToolCallResultEvent>(run, EventType.TOOL_CALL_RESULT)[0]).toMatchObject({
      toolCallId: 'Calc:c1',
      content: '{"sum":5}',
    });
    // The client's state (its own key written to the session on the way in) is patched to the session's.
    expect(ofType<StateDeltaEvent>(run, EventType.STATE_DELTA).map((e) => e.delta)).toEqual([
      [
        { op: 'add', path: '/last_sum', value: 5 },
        { op: 'add', path: '/history~1~0log', value: [2, 3] },
      ],
      [{ op: 'add', path: '/answer', value: 'It is 5.' }],
    ]);
    expect(agent.state).toEqual({ theme: 'dark', last_sum: 5, 'history/~log': [2, 3], answer: 'It is 5.' });
    expect(agent.state).toEqual(await threadState(served, 'calc', AG_UI_USER, agent.threadId));

    // The next turn replaces what changed.
    say(agent, 'And 1 + 1?');
    const second = await runOnce(agent);
    expect(ofType<StateDeltaEvent>(second, EventType.STATE_DELTA).flatMap((e) => e.delta)).toEqual([
      { op: 'replace', path: '/last_sum', value: 2 },
      { op: 'replace', path: '/history~1~0log', value: [1, 1] },
      { op: 'replace', path: '/answer', value: 'It is 2.' },
    ]);
    expect(agent.state).toEqual(await threadState(served, 'calc', AG_UI_USER, agent.threadId));
  });

  it('an AgentTool’s agent streams its own messages inside the call, and thoughts arrive as reasoning', async () => {
    const researcher = new LlmAgent({
      name: 'Researcher',
      description: 'Finds facts.',
      model: new ScriptedModel([{ chunks: ['Paris is ', 'the capital.'] }]),
    });
    const writer = new LlmAgent({
      name: 'Writer',
      model: new ScriptedModel([
        { functionCalls: [{ name: 'Researcher', args: { request: 'capital of France?' }, id: 'w1' }] },
        { text: 'The capital is Paris.', thought: 'The researcher answered.' },
      ]),
      tools: [new AgentTool({ agent: researcher })],
    });
    const served = await serveApps({ writer });
    const agent = client(served, 'writer');
    say(agent, 'Capital of France?');
    const run = await runOnce(agent);

    expect(run.types).toEqual([
      EventType.RUN_STARTED,
      EventType.STATE_SNAPSHOT,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_ARGS,
      EventType.TOOL_CALL_END,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.TOOL_CALL_RESULT,
      EventType.REASONING_START,
      EventType.REASONING_MESSAGE_START,
      EventType.REASONING_MESSAGE_CONTENT,
      EventType.REASONING_MESSAGE_END,
      EventType.REASONING_END,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.RUN_FINISHED,
    ]);
    expect(ofType<TextMessageStartEvent>(run, EventType.TEXT_MESSAGE_START).map((e) => e.name)).toEqual([
      'Researcher',
      'Writer',
    ]);
    expect(ofType<ToolCallResultEvent>(run, EventType.TOOL_CALL_RESULT)[0]).toMatchObject({
      toolCallId: 'Writer:w1',
      content: JSON.stringify({ result: 'Paris is the capital.' }),
    });
    // The client files each tool result right after the call it answers.
    expect(run.newMessages.map((m) => [m.role, 'content' in m ? m.content : undefined])).toEqual([
      ['assistant', undefined],
      ['tool', JSON.stringify({ result: 'Paris is the capital.' })],
      ['assistant', 'Paris is the capital.'],
      ['reasoning', 'The researcher answered.'],
      ['assistant', 'The capital is Paris.'],
    ]);
    expect(run.finished!.usage).toEqual([
      expect.objectContaining({ model: 'scripted', reasoningTokens: expect.any(Number) }),
    ]);
  });
});
