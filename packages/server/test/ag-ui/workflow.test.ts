import {
  type BaseEvent,
  EventType,
  type StepFinishedEvent,
  type StepStartedEvent,
  type TextMessageContentEvent,
  type TextMessageStartEvent,
} from '@ag-ui/client';
import { describe, expect, it } from 'vitest';
import { createEvent, LlmAgent, node, RequestInput, Workflow } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import type { WireEvent } from '../../src/index.js';
import { transferTool } from '../helpers.js';
import { client, ofType, runOnce, say, serveApps } from './helpers.js';

// A graph workflow as the root of an AG-UI app: its nodes' text streams as messages, each node run
// is an AG-UI step whose STEP_FINISHED carries the node's end record (output, route) as rawEvent,
// the workflow's output is RUN_FINISHED's result, and a RequestInput is an interrupt that AG-UI's
// resume answers.

/** Steps as `start name` / `end name=output`, in order. */
function steps(events: readonly BaseEvent[]): string[] {
  return events.flatMap((e) => {
    if (e.type === EventType.STEP_STARTED) return [`start ${(e as StepStartedEvent).stepName}`];
    if (e.type !== EventType.STEP_FINISHED) return [];
    const { stepName, rawEvent } = e as StepFinishedEvent & { rawEvent?: WireEvent };
    return [`end ${stepName}=${JSON.stringify(rawEvent?.output)}`];
  });
}

describe('AG-UI: a graph workflow', () => {
  it("streams its agent node's text and a node's content as messages, each node run as a step with its output, and the workflow's output as the result", async () => {
    const writer = new LlmAgent({ name: 'writer', model: new ScriptedModel([{ chunks: ['Dear ', 'Ada'] }]) });
    const shout = node(
      (_ctx, text: string) =>
        createEvent({
          output: text.toUpperCase(),
          route: 'loud',
          content: { role: 'model', parts: [{ text: 'Shouting.' }] },
        }),
      { name: 'shout' },
    );
    const sign = node((_ctx, text: string) => `${text} -- Troupe`, { name: 'sign' });
    const served = await serveApps({
      letter: new Workflow({ name: 'letter', edges: [['START', writer, shout, sign]] }),
    });
    const agent = client(served, 'letter');
    say(agent, 'Write to Ada');

    const run = await runOnce(agent);
    expect(steps(run.events)).toEqual([
      'start letter.writer',
      'end letter.writer="Dear Ada"',
      'start letter.shout',
      'end letter.shout="DEAR ADA"',
      'start letter.sign',
      'end letter.sign="DEAR ADA -- Troupe"',
    ]);
    // The writer's streamed text is inside its step.
    const types = run.types;
    expect(types.indexOf(EventType.TEXT_MESSAGE_START)).toBeGreaterThan(types.indexOf(EventType.STEP_STARTED));
    expect(ofType<TextMessageStartEvent>(run, EventType.TEXT_MESSAGE_START).map((e) => e.name)).toEqual([
      'writer',
      'shout',
    ]);
    expect(ofType<TextMessageContentEvent>(run, EventType.TEXT_MESSAGE_CONTENT).map((e) => e.delta)).toEqual([
      'Dear ',
      'Ada',
      'Shouting.',
    ]);
    const shoutEnd = ofType<StepFinishedEvent & { rawEvent: WireEvent }>(run, EventType.STEP_FINISHED)[1]!.rawEvent;
    expect(shoutEnd).toMatchObject({ route: 'loud', nodeInfo: { path: 'letter.shout', runId: '1', attempt: 1 } });
    expect(run.finished).toMatchObject({ outcome: { type: 'success' }, result: 'DEAR ADA -- Troupe' });
    expect(agent.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Write to Ada'],
      ['assistant', 'Dear Ada'],
      ['assistant', 'Shouting.'],
    ]);
  });

  it("a RequestInput ends the run with the interrupt outcome (the paused node's step finished); resume answers it and the workflow completes", async () => {
    const asked: unknown[] = [];
    const ask = node(
      (_ctx, topic: string) => {
        asked.push(topic);
        return new RequestInput({ message: `Who should hear about ${topic}?` });
      },
      { name: 'ask' },
    );
    const tell = node((_ctx, name: string) => `Told ${name}.`, { name: 'tell' });
    const served = await serveApps({ news: new Workflow({ name: 'news', edges: [['START', ask, tell]] }) });
    const agent = client(served, 'news');
    say(agent, 'the launch');

    const paused = await runOnce(agent);
    expect(steps(paused.events)).toEqual(['start news.ask', 'end news.ask=undefined']);
    expect(paused.finished!.outcome).toMatchObject({
      type: 'interrupt',
      interrupts: [
        {
          id: 'news.ask@1',
          reason: 'input',
          message: 'Who should hear about the launch?',
          metadata: { troupe: { kind: 'input', toolName: 'adk_request_input' } },
        },
      ],
    });

    // The request is ADK's adk_request_input call on an assistant message, the call the interrupt names.
    const interrupt = agent.pendingInterrupts[0]!;
    const last = agent.messages.at(-1)!;
    expect(last.role).toBe('assistant');
    expect(last.role === 'assistant' ? last.toolCalls : undefined).toEqual([
      {
        id: interrupt.toolCallId,
        type: 'function',
        function: {
          name: 'adk_request_input',
          arguments: JSON.stringify({ interruptId: 'news.ask@1', message: 'Who should hear about the launch?' }),
        },
      },
    ]);

    const resumed = await runOnce(agent, {
      resume: [{ interruptId: 'news.ask@1', status: 'resolved', payload: 'Ada' }],
    });
    // The paused node ends in this run (its answer is its output), then the next node runs.
    expect(steps(resumed.events)).toEqual([
      'start news.ask',
      'end news.ask="Ada"',
      'start news.tell',
      'end news.tell="Told Ada."',
    ]);
    expect(resumed.finished).toMatchObject({ outcome: { type: 'success' }, result: 'Told Ada.' });
    expect(asked).toEqual(['the launch']);
  });

  it('a tool node that asks for approval pauses with its call on an assistant message; resume approves it and the tool runs', async () => {
    const sent: number[] = [];
    const transfer = transferTool(sent);
    const parse = node((_ctx, text: string) => ({ amount: Number(text) }), { name: 'parse' });
    const served = await serveApps({ pay: new Workflow({ name: 'pay', edges: [['START', parse, transfer]] }) });
    const agent = client(served, 'pay');
    say(agent, '500');

    const paused = await runOnce(agent);
    expect(paused.finished!.outcome).toMatchObject({ type: 'interrupt', interrupts: [{ reason: 'confirmation' }] });
    // The paused call is on an assistant message the client holds, the call the interrupt names.
    const interrupt = agent.pendingInterrupts[0]!;
    const last = agent.messages.at(-1)!;
    expect(last.role).toBe('assistant');
    expect(last.role === 'assistant' ? last.toolCalls : undefined).toEqual([
      {
        id: interrupt.toolCallId,
        type: 'function',
        function: { name: 'transfer_money', arguments: JSON.stringify({ amount: 500 }) },
      },
    ]);

    const resumed = await runOnce(agent, {
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: true }],
    });
    expect(resumed.finished).toMatchObject({ outcome: { type: 'success' }, result: { status: 'sent', amount: 500 } });
    expect(sent).toEqual([500]);
  });
});
