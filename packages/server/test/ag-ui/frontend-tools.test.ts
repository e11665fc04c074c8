import { EventType, type RunStartedEvent, type Tool } from '@ag-ui/client';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentTool, FunctionTool, getFunctionResponses, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { AG_UI_USER } from '../../src/index.js';
import { client, runOnce, say, serveApps } from './helpers.js';

const showNote: Tool = {
  name: 'show_note',
  description: 'Shows a note on the page.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
};

const invocationOf = (run: { events: unknown[] }) =>
  (run.events[0] as RunStartedEvent).metadata!.troupe.invocationId as string;

describe('AG-UI: frontend tools', () => {
  it('are offered to the agent; a call ends the run as a success with the call pending, and the tool message of the next run is its result in the same invocation', async () => {
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'show_note', args: { text: 'Buy milk' }, id: 'n1' }] },
      'The note is on your screen.',
    ]);
    const served = await serveApps({ notes: new LlmAgent({ name: 'Notes', model }) });
    const agent = client(served, 'notes');
    say(agent, 'Remind me to buy milk');

    const first = await runOnce(agent, { tools: [showNote] });
    expect(model.requests[0]!.config.tools).toEqual([
      { name: 'show_note', description: 'Shows a note on the page.', parameters: showNote.parameters },
    ]);
    expect(first.types).toEqual([
      EventType.RUN_STARTED,
      EventType.STATE_SNAPSHOT,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_ARGS,
      EventType.TOOL_CALL_END,
      EventType.RUN_FINISHED,
    ]);
    expect(first.finished!.outcome).toEqual({ type: 'success', pendingToolCallIds: ['Notes:n1'] });
    expect(first.finished!.result).toBeUndefined();
    expect(agent.pendingInterrupts).toEqual([]);

    // The page runs its tool and answers with a tool message, as AG-UI front ends do.
    agent.addMessage({ id: 'tool-1', role: 'tool', toolCallId: 'Notes:n1', content: JSON.stringify({ shown: true }) });
    const second = await runOnce(agent, { tools: [showNote] });
    expect(invocationOf(second)).toBe(invocationOf(first));
    // The result is the page's already: it is not sent back.
    expect(second.types).not.toContain(EventType.TOOL_CALL_RESULT);
    expect(second.finished).toMatchObject({ outcome: { type: 'success' }, result: 'The note is on your screen.' });
    expect(model.requests[1]!.contents.at(-1)!.parts).toEqual([
      { functionResponse: { id: 'n1', name: 'show_note', response: { shown: true } } },
    ]);
    expect(agent.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('reach an agent behind an AgentTool; the result returns to the call that was made there', async () => {
    const ui = new LlmAgent({
      name: 'Ui',
      description: 'Drives the page.',
      model: new ScriptedModel([{ functionCalls: [{ name: 'show_note', args: { text: 'hi' }, id: 'u1' }] }, 'Shown.']),
    });
    const lead = new LlmAgent({
      name: 'Lead',
      model: new ScriptedModel([{ functionCalls: [{ name: 'Ui', args: { request: 'show hi' }, id: 'l1' }] }, 'Done.']),
      tools: [new AgentTool({ agent: ui })],
    });
    const served = await serveApps({ lead });
    const agent = client(served, 'lead');
    say(agent, 'Say hi on the page');
    const first = await runOnce(agent, { tools: [showNote] });
    expect(first.finished!.outcome).toEqual({ type: 'success', pendingToolCallIds: ['Lead/Ui:u1'] });

    agent.addMessage({ id: 'tool-1', role: 'tool', toolCallId: 'Lead/Ui:u1', content: 'ok' });
    // The page may stop listing the tool: the paused call is answered all the same.
    const second = await runOnce(agent);
    expect(second.finished).toMatchObject({ outcome: { type: 'success' }, result: 'Done.' });
    const session = await served.sessionService.getSession({
      appName: 'lead',
      userId: AG_UI_USER,
      sessionId: agent.threadId,
    });
    expect(session!.events.flatMap(getFunctionResponses).map((r) => [r.name, r.response])).toEqual([
      ['show_note', { result: 'ok' }],
      ['Ui', { result: 'Shown.' }],
    ]);
  });

  it('with a question for a person in the same turn: the interrupt outcome lists the question, and the next run answers both', async () => {
    const sent: number[] = [];
    const transfer = new FunctionTool({
      name: 'transfer_money',
      description: 'Sends money.',
      parameters: z.object({ amount: z.number() }),
      requireConfirmation: true,
      execute: ({ amount }) => void sent.push(amount),
    });
    const model = new ScriptedModel([
      {
        functionCalls: [
          { name: 'show_note', args: { text: 'Paying' }, id: 'n1' },
          { name: 'transfer_money', args: { amount: 3 }, id: 't1' },
        ],
      },
      'Paid, and the note is up.',
    ]);
    const served = await serveApps({ pay: new LlmAgent({ name: 'Payer', model, tools: [transfer] }) });
    const agent = client(served, 'pay');
    say(agent, 'Pay 3 and show a note');
    const first = await runOnce(agent, { tools: [showNote] });
    expect(first.finished!.outcome).toMatchObject({ type: 'interrupt', interrupts: [{ id: 'Payer:t1' }] });

    agent.addMessage({ id: 'tool-1', role: 'tool', toolCallId: 'Payer:n1', content: '{"shown":true}' });
    const second = await runOnce(agent, {
      tools: [showNote],
      resume: [{ interruptId: 'Payer:t1', status: 'resolved', payload: true }],
    });
    expect(sent).toEqual([3]);
    expect(second.finished).toMatchObject({ outcome: { type: 'success' }, result: 'Paid, and the note is up.' });
    expect(
      model.requests[1]!.contents.at(-1)!.parts.map((p) =>
        'functionResponse' in p ? [p.functionResponse.name, p.functionResponse.response] : undefined,
      ),
    ).toEqual([
      ['show_note', { shown: true }],
      ['transfer_money', { result: null }],
    ]);
  });

  it('a tool message with an error, or a call the page declines, reaches the model as an error', async () => {
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'show_note', args: { text: 'x' }, id: 'n1' }] },
      'The page failed.',
      { functionCalls: [{ name: 'show_note', args: { text: 'y' }, id: 'n2' }] },
      'Declined.',
    ]);
    const served = await serveApps({ notes: new LlmAgent({ name: 'Notes', model }) });
    const agent = client(served, 'notes');
    say(agent, 'Note x');
    await runOnce(agent, { tools: [showNote] });
    agent.addMessage({
      id: 'tool-1',
      role: 'tool',
      toolCallId: 'Notes:n1',
      content: '',
      error: 'No room on the screen.',
    });
    await runOnce(agent, { tools: [showNote] });
    expect(model.requests[1]!.contents.at(-1)!.parts[0]).toEqual({
      functionResponse: { id: 'n1', name: 'show_note', response: { error: 'No room on the screen.' } },
    });

    say(agent, 'Note y');
    await runOnce(agent, { tools: [showNote] });
    await runOnce(agent, { tools: [showNote], resume: [{ interruptId: 'Notes:n2', status: 'cancelled' }] });
    expect(model.requests[3]!.contents.at(-1)!.parts[0]).toEqual({
      functionResponse: {
        id: 'n2',
        name: 'show_note',
        response: { error: "The user declined this call of tool 'show_note'; it did not run." },
      },
    });
  });
});
