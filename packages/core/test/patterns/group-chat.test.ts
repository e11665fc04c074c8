import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigurationError,
  FunctionAgent,
  FunctionTool,
  LlmAgent,
  SequentialAgent,
  textOf,
  type Event,
} from '@troupe/core';
import { GroupChatAgent, GroupChatSelectorError } from '@troupe/core/patterns';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce } from '../helpers.js';
import { acrossRunners } from './approve-across-runners.js';

const speaker = (name: string, lines: string[], log: string[] = []) => {
  let turn = 0;
  return new FunctionAgent({
    name,
    description: `The ${name.toLowerCase()}.`,
    run: () => {
      const line = lines[turn++] ?? `${name} again`;
      log.push(`${name}: ${line}`);
      return line;
    },
  });
};
const final = (events: Event[], chat = 'Room') =>
  events.filter((e) => e.author === chat && e.actions.endOfAgent).map((e) => e.actions.agentState);
const spoken = (events: Event[], names: string[]) =>
  events.filter((e) => names.includes(e.author) && !e.partial && textOf(e)).map((e) => e.author);

describe('GroupChatAgent', () => {
  it('round_robin: participants speak in order until maxTurns; the reason is recorded', async () => {
    const log: string[] = [];
    const room = new GroupChatAgent({
      name: 'Room',
      participants: [speaker('Writer', ['draft 1', 'draft 2'], log), speaker('Critic', ['too long'], log)],
      selector: 'round_robin',
      maxTurns: 3,
    });
    const result = await runOnce(room, 'Write a haiku');
    expect(log).toEqual(['Writer: draft 1', 'Critic: too long', 'Writer: draft 2']);
    expect(result.output).toBe('draft 2');
    expect(final(result.events)).toEqual([
      { stopReason: 'maxTurns', turns: 3, speakers: ['Writer', 'Critic', 'Writer'] },
    ]);
    expect(
      result.events.filter((e) => e.author === 'Room' && !e.actions.endOfAgent).map((e) => e.actions.agentState),
    ).toEqual([
      { speakers: ['Writer'], done: false },
      { speakers: ['Writer'], done: true },
      { speakers: ['Writer', 'Critic'], done: false },
      { speakers: ['Writer', 'Critic'], done: true },
      { speakers: ['Writer', 'Critic', 'Writer'], done: false },
      { speakers: ['Writer', 'Critic', 'Writer'], done: true },
    ]);
  });

  it('participants share one conversation: an LlmAgent sees what the others said', async () => {
    const model = new ScriptedModel(['A draft about the sea.', 'Shorter, please.']);
    const writer = new LlmAgent({ name: 'Writer', model, instruction: 'Write.' });
    const critic = new LlmAgent({ name: 'Critic', model, instruction: 'Criticise.' });
    await runOnce(
      new GroupChatAgent({ name: 'Room', participants: [writer, critic], selector: 'round_robin', maxTurns: 2 }),
      'A poem about the sea',
    );
    expect(JSON.stringify(model.requests[1]!.contents)).toContain('A draft about the sea.');
  });

  it('stops after the turn that says the termination text, or that the function matches', async () => {
    const log: string[] = [];
    const room = new GroupChatAgent({
      name: 'Room',
      participants: [speaker('Writer', ['v1', 'v2'], log), speaker('Critic', ['no', 'APPROVED'], log)],
      selector: 'round_robin',
      terminate: 'APPROVED',
    });
    const result = await runOnce(room, 'go');
    expect(log).toEqual(['Writer: v1', 'Critic: no', 'Writer: v2', 'Critic: APPROVED']);
    expect(final(result.events)).toEqual([
      { stopReason: 'terminated', turns: 4, speakers: ['Writer', 'Critic', 'Writer', 'Critic'] },
    ]);

    const byFunction = new GroupChatAgent({
      name: 'Room',
      participants: [speaker('Writer', ['v1', 'v2 final'])],
      selector: 'round_robin',
      terminate: (event) => textOf(event).endsWith('final'),
    });
    expect(final((await runOnce(byFunction, 'go')).events)).toEqual([
      { stopReason: 'terminated', turns: 2, speakers: ['Writer', 'Writer'] },
    ]);
  });

  it('a function selector picks by name and ends the chat by returning undefined', async () => {
    const seen: string[][] = [];
    const room = new GroupChatAgent({
      name: 'Room',
      participants: [speaker('Writer', ['v1', 'v2']), speaker('Critic', ['fix it'])],
      selector: ({ speakers }) => {
        seen.push([...speakers]);
        return ['Writer', 'Critic', 'Writer'][speakers.length];
      },
    });
    const result = await runOnce(room, 'go');
    expect(spoken(result.events, ['Writer', 'Critic'])).toEqual(['Writer', 'Critic', 'Writer']);
    expect(seen).toEqual([[], ['Writer'], ['Writer', 'Critic'], ['Writer', 'Critic', 'Writer']]);
    expect(final(result.events)).toEqual([
      { stopReason: 'selector', turns: 3, speakers: ['Writer', 'Critic', 'Writer'] },
    ]);
  });

  it("a function selector sees the user's message and the participants' events, their sub-agents' too", async () => {
    const texts: string[][] = [];
    const team = new SequentialAgent({
      name: 'Team',
      subAgents: [speaker('Drafter', ['draft']), speaker('Polisher', ['polished'])],
    });
    const room = new GroupChatAgent({
      name: 'Room',
      participants: [team, speaker('Critic', ['ok'])],
      selector: ({ turn, events }) => {
        texts.push(events.map((e) => `${e.author}: ${textOf(e)}`));
        return turn === 0 ? 'Team' : turn === 1 ? 'Critic' : undefined;
      },
    });
    await runOnce(room, 'Write it');
    expect(texts.at(-1)).toEqual(['user: Write it', 'Drafter: draft', 'Polisher: polished', 'Critic: ok']);
  });

  it('a model selector sees names, descriptions and the conversation; DONE ends the chat', async () => {
    const selector = new ScriptedModel(['Writer', 'critic.', 'DONE']);
    const room = new GroupChatAgent({
      name: 'Room',
      participants: [speaker('Writer', ['v1']), speaker('Critic', ['good'])],
      selector,
    });
    const result = await runOnce(room, 'Write a line');
    expect(spoken(result.events, ['Writer', 'Critic'])).toEqual(['Writer', 'Critic']);
    expect(selector.requests[0]!.config.systemInstruction).toContain('- Writer: The writer.');
    expect(JSON.stringify(selector.requests[1]!.contents)).toContain('Writer: v1');
    expect(final(result.events)).toEqual([{ stopReason: 'selector', turns: 2, speakers: ['Writer', 'Critic'] }]);
  });

  it('a model selector naming no participant gets one retry, then the run fails with GroupChatSelectorError', async () => {
    const selector = new ScriptedModel(['Bob', 'Writer', 'Alice', 'Carol']);
    const room = new GroupChatAgent({ name: 'Room', participants: [speaker('Writer', ['v1'])], selector, maxTurns: 2 });
    const result = await runOnce(room, 'go');
    expect(selector.requests).toHaveLength(4);
    expect(JSON.stringify(selector.requests[1]!.contents)).toContain('is not a participant');
    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(GroupChatSelectorError);
    expect(String(result.error)).toMatch(/answered "Carol" twice, which names no participant/);
  });

  it('a cancelled run starts no further turn', async () => {
    const controller = new AbortController();
    const log: string[] = [];
    const stopper = new FunctionAgent({
      name: 'Critic',
      run: () => {
        log.push('Critic');
        controller.abort(new Error('stop'));
        return 'x';
      },
    });
    const room = new GroupChatAgent({
      name: 'Room',
      participants: [speaker('Writer', ['v1'], log), stopper],
      selector: 'round_robin',
    });
    const result = await runOnce(room, 'go', { abortSignal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(log).toEqual(['Writer: v1', 'Critic']);
  });

  it('nests in a SequentialAgent, which goes on after the chat', async () => {
    const room = new GroupChatAgent({
      name: 'Room',
      participants: [speaker('Writer', ['v1'])],
      selector: 'round_robin',
      maxTurns: 1,
    });
    const after = new FunctionAgent({ name: 'Publish', run: () => 'published' });
    const result = await runOnce(new SequentialAgent({ name: 'Pipeline', subAgents: [room, after] }), 'go');
    expect(result.output).toBe('published');
    expect(final(result.events)).toEqual([{ stopReason: 'maxTurns', turns: 1, speakers: ['Writer'] }]);
  });

  it('an approval inside a participant pauses; a new runner over the same SQLite file continues that turn and the same order', async () => {
    const files = acrossRunners('troupe-group-chat-');
    const log: string[] = [];
    const build = (model: ScriptedModel) => {
      const publish = new FunctionTool({
        name: 'publish',
        description: 'Publishes the text.',
        parameters: z.object({ text: z.string() }),
        requireConfirmation: true,
        execute: ({ text }) => {
          log.push(`published ${text}`);
          return { ok: true };
        },
      });
      const editor = new LlmAgent({ name: 'Editor', model, tools: [publish] });
      return new GroupChatAgent({
        name: 'Room',
        participants: [speaker('Writer', ['v1'], log), editor, speaker('Critic', ['fine'], log)],
        selector: 'round_robin',
        maxTurns: 3,
      });
    };
    const paused = await files.run(
      build(new ScriptedModel([{ functionCalls: [{ name: 'publish', args: { text: 'v1' }, id: 'p1' }] }])),
      'Write and publish',
    );
    expect(paused.status).toBe('interrupted');

    const second = new ScriptedModel(['Published v1.']);
    const resumed = await files.approve(build(second), paused);
    expect(resumed.status).toBe('completed');
    // The Writer did not speak again (the second build's Writer would have said "Writer again").
    expect(log).toEqual(['Writer: v1', 'published v1', 'Critic: fine']);
    expect(final(resumed.events)).toEqual([
      { stopReason: 'maxTurns', turns: 3, speakers: ['Writer', 'Editor', 'Critic'] },
    ]);
    second.assertDone();
  });

  it('rejects bad configuration with the fix', () => {
    const a = speaker('A', []);
    expect(() => new GroupChatAgent({ name: 'Room', participants: [], selector: 'round_robin' })).toThrow(
      /no participants; give it at least one agent/,
    );
    expect(
      () => new GroupChatAgent({ name: 'Room', participants: [a, speaker('A', [])], selector: 'round_robin' }),
    ).toThrow(/two participants named 'A'/);
    expect(
      () =>
        new GroupChatAgent({ name: 'Room', participants: [speaker('B', [])], selector: 'loudest' as 'round_robin' }),
    ).toThrow(/selector "loudest"; use 'round_robin', a model/);
    expect(
      () =>
        new GroupChatAgent({ name: 'Room', participants: [speaker('C', [])], selector: 'round_robin', maxTurns: 0 }),
    ).toThrow(ConfigurationError);
    expect(
      () =>
        new GroupChatAgent({ name: 'Room', participants: [speaker('D', [])], selector: 'round_robin', maxTurns: -2 }),
    ).toThrow(/maxTurns -2; use a whole number of at least 1/);
    const room = new GroupChatAgent({ name: 'Room', participants: [speaker('E', [])], selector: () => 'Nobody' });
    return expect(runOnce(room, 'go').then((r) => String(r.error))).resolves.toMatch(
      /"Nobody" speak, which is not a participant/,
    );
  });
});
