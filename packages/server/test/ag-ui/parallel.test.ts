import { EventType, type TextMessageContentEvent, type TextMessageStartEvent } from '@ag-ui/client';
import { describe, expect, it } from 'vitest';
import { LlmAgent, ParallelAgent, SequentialAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { AG_UI_USER } from '../../src/index.js';
import { client, ofType, PacedModel, runOnce, say, serveApps, threadState } from './helpers.js';

describe('AG-UI: sub-agents', () => {
  it('a 3-branch ParallelAgent streams three interleaved messages, each with its own id, author and text', async () => {
    const branch = (name: string, chunks: string[], gapMs: number) =>
      new LlmAgent({
        name,
        model: new PacedModel(new ScriptedModel([{ chunks }]), gapMs),
        outputKey: `${name.toLowerCase()}_said`,
      });
    const fanOut = new ParallelAgent({
      name: 'FanOut',
      subAgents: [
        branch('Weather', ['Sunny ', 'and ', 'warm.'], 7),
        branch('News', ['Markets ', 'are ', 'up.'], 5),
        branch('Traffic', ['Roads ', 'are ', 'clear.'], 6),
      ],
    });
    const summary = new LlmAgent({ name: 'Summary', model: new ScriptedModel(['All good.']) });
    const served = await serveApps({ brief: new SequentialAgent({ name: 'Brief', subAgents: [fanOut, summary] }) });
    const agent = client(served, 'brief');
    say(agent, 'Morning brief');
    const run = await runOnce(agent);

    const starts = ofType<TextMessageStartEvent>(run, EventType.TEXT_MESSAGE_START);
    expect(starts.map((s) => s.name).sort()).toEqual(['News', 'Summary', 'Traffic', 'Weather']);
    expect(new Set(starts.map((s) => s.messageId)).size).toBe(4);
    // Interleaved: every branch's message opens before the first one closes.
    const firstEnd = run.types.indexOf(EventType.TEXT_MESSAGE_END);
    expect(run.events.slice(0, firstEnd).filter((e) => e.type === EventType.TEXT_MESSAGE_START)).toHaveLength(3);
    const contents = ofType<TextMessageContentEvent>(run, EventType.TEXT_MESSAGE_CONTENT);
    const switches = contents.filter((e, i) => i > 0 && e.messageId !== contents[i - 1]!.messageId).length;
    expect(switches).toBeGreaterThan(3);
    // Each message holds its own branch's text, whatever the interleaving.
    const byAuthor = Object.fromEntries(
      run.newMessages.map((m) => [(m as { name?: string }).name, 'content' in m ? m.content : undefined]),
    );
    expect(byAuthor).toEqual({
      Weather: 'Sunny and warm.',
      News: 'Markets are up.',
      Traffic: 'Roads are clear.',
      Summary: 'All good.',
    });
    // The branches' state writes reach the client too.
    expect(agent.state).toEqual({
      weather_said: 'Sunny and warm.',
      news_said: 'Markets are up.',
      traffic_said: 'Roads are clear.',
    });
    expect(agent.state).toEqual(await threadState(served, 'brief', AG_UI_USER, agent.threadId));
  });

  it('a transfer hands the turn to another agent, whose message carries its name', async () => {
    const booker = new LlmAgent({
      name: 'Booker',
      description: 'Books flights.',
      model: new ScriptedModel(['Booked.']),
    });
    const coordinator = new LlmAgent({
      name: 'Coordinator',
      model: new ScriptedModel([
        { functionCalls: [{ name: 'transfer_to_agent', args: { agent_name: 'Booker' }, id: 't1' }] },
      ]),
      subAgents: [booker],
    });
    const served = await serveApps({ travel: coordinator });
    const agent = client(served, 'travel');
    say(agent, 'Book a flight');
    const run = await runOnce(agent);
    expect(run.newMessages.map((m) => [m.role, (m as { name?: string }).name])).toEqual([
      ['assistant', undefined],
      ['tool', undefined],
      ['assistant', 'Booker'],
    ]);
    expect(run.finished).toMatchObject({ outcome: { type: 'success' }, result: 'Booked.' });
  });
});
