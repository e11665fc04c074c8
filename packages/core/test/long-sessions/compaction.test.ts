import { describe, expect, it } from 'vitest';
import {
  COMPACTION_FAILED,
  ConfigurationError,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  RunDrainedError,
  Runner,
  SequentialAgent,
  SessionBusyError,
  type BaseLlm,
  type CompactionOptions,
  type Event,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { z } from 'zod';
import { texts } from '../helpers.js';

async function setup(agent: LlmAgent, compaction: CompactionOptions) {
  const runner = new Runner({ appName: 'app', agent, sessionService: new InMemorySessionService(), compaction });
  const session = await runner.sessionService.createSession({ appName: 'app', userId: 'u' });
  const turn = async (newMessage: string) => runner.run({ userId: 'u', sessionId: session.id, newMessage });
  const events = async (): Promise<Event[]> =>
    (await runner.sessionService.getSession({ appName: 'app', userId: 'u', sessionId: session.id }))!.events;
  return { runner, session, turn, events };
}

const compactions = (events: Event[]) => events.filter((e) => e.actions.compaction);

describe('Runner compaction', () => {
  it('every N invocations stores one compaction event; the model sees the summary in place of the compacted events', async () => {
    const model = new ScriptedModel(['a1', 'a2', 'a3', 'a4', 'a5']);
    const summarizer = new ScriptedModel(['S1: user asked q1 and q2.', 'S2: then q3 and q4.'], { model: 'summarizer' });
    const { turn, events } = await setup(new LlmAgent({ name: 'Helper', model }), {
      everyInvocations: 2,
      overlapInvocations: 1,
      summarizer,
    });
    for (const q of ['q1', 'q2', 'q3', 'q4', 'q5']) expect((await turn(q)).status).toBe('completed');

    const stored = await events();
    const [first, second] = compactions(stored);
    expect(compactions(stored)).toHaveLength(2);
    // Stored shape: ADK's actions.compaction with the summary as the model wrote it.
    const q1 = stored.find((e) => e.content && texts([e.content])[0] === 'q1')!;
    const a2 = stored.find((e) => e.content && texts([e.content])[0] === 'a2')!;
    expect(first).toMatchObject({
      author: 'user',
      model: 'summarizer',
      actions: {
        compaction: {
          startTimestamp: q1.timestamp,
          endTimestamp: a2.timestamp,
          summary: { role: 'model', parts: [{ text: 'S1: user asked q1 and q2.' }] },
          startEventId: q1.id,
          endEventId: a2.id,
        },
      },
    });
    expect(first!.content).toBeUndefined();
    // Compacted after q2 (invocations 1-2) and after q4 (3-4, plus 2 again: the overlap).
    expect(texts(summarizer.requests[0]!.contents)[0]).toMatch(/user: q1\nHelper: a1\nuser: q2\nHelper: a2$/);
    expect(texts(summarizer.requests[1]!.contents)[0]).toMatch(
      /user: q2\nHelper: a2\nuser: q3\nHelper: a3\nuser: q4\nHelper: a4$/,
    );
    expect(second!.actions.compaction!.startEventId).toBe(
      stored.find((e) => e.content && texts([e.content])[0] === 'q2')!.id,
    );

    // Turn 3 sees the first summary, then its own message; turn 5 sees both summaries (they overlap, neither contains the other).
    expect(texts(model.requests[2]!.contents)).toEqual([
      '[Summary of the earlier conversation] S1: user asked q1 and q2.',
      'q3',
    ]);
    expect(texts(model.requests[3]!.contents)).toEqual([
      '[Summary of the earlier conversation] S1: user asked q1 and q2.',
      'q3',
      'a3',
      'q4',
    ]);
    expect(texts(model.requests[4]!.contents)).toEqual([
      '[Summary of the earlier conversation] S1: user asked q1 and q2.',
      '[Summary of the earlier conversation] S2: then q3 and q4.',
      'q5',
    ]);
    summarizer.assertDone();
  });

  it("defaults to the root agent's model as summariser, and the compaction event is not part of the run", async () => {
    const model = new ScriptedModel(['a1', 'Summary of q1.', 'a2']);
    const { turn, events } = await setup(new LlmAgent({ name: 'Helper', model }), { everyInvocations: 1 });
    const first = await turn('q1');
    expect(first.events.some((e) => e.actions.compaction)).toBe(false);
    expect(compactions(await events())).toHaveLength(1);
    await turn('q2');
    expect(texts(model.requests[1]!.contents)[0]).toMatch(/^Summarise the conversation/);
    expect(texts(model.requests[2]!.contents)).toEqual(['[Summary of the earlier conversation] Summary of q1.', 'q2']);
  });

  it("keeps tool calls with their results in what it summarises, and a later turn's history stays valid", async () => {
    const add = new FunctionTool({
      name: 'add',
      description: 'Adds.',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => ({ sum: a + b }),
    });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: 'c1' }] },
      'It is 5.',
      'ok',
    ]);
    const summarizer = new ScriptedModel(['They added 2 and 3: 5.']);
    const { turn } = await setup(new LlmAgent({ name: 'Helper', model, tools: [add] }), {
      everyInvocations: 1,
      summarizer,
    });
    await turn('add 2 and 3');
    expect(texts(summarizer.requests[0]!.contents)[0]).toContain(
      `Helper called tool 'add' with {"a":2,"b":3}\ntool 'add' returned {"sum":5}\nHelper: It is 5.`,
    );
    await turn('thanks');
    const sent = model.requests[2]!.contents;
    expect(sent.some((c) => c.parts.some((p) => 'functionCall' in p || 'functionResponse' in p))).toBe(false);
  });

  it('a failing summariser leaves the run completed, stores one COMPACTION_FAILED event and tries again after the next run', async () => {
    const model = new ScriptedModel(['a1', 'a2', 'a3']);
    const summarizer = new ScriptedModel([{ error: 'summariser is down', status: 503 }, 'S: q1 and q2.']);
    const { turn, events } = await setup(new LlmAgent({ name: 'Helper', model }), { everyInvocations: 1, summarizer });
    const result = await turn('q1');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('a1');
    const failed = (await events()).filter((e) => e.errorCode === COMPACTION_FAILED);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ author: 'user', errorMessage: expect.stringContaining('summariser is down') });
    expect(compactions(await events())).toHaveLength(0);
    // The session is consistent: the next turn sees everything, and the next compaction covers both turns.
    expect((await turn('q2')).status).toBe('completed');
    expect(texts(model.requests[1]!.contents)).toEqual(['q1', 'a1', 'q2']);
    expect(texts(summarizer.requests[1]!.contents)[0]).toMatch(/user: q1\nHelper: a1\nuser: q2\nHelper: a2$/);
    await turn('q3');
    expect(texts(model.requests[2]!.contents)).toEqual(['[Summary of the earlier conversation] S: q1 and q2.', 'q3']);
  });

  it('does not compact after an interrupted run; the paused invocation resumes, and compaction follows its completion', async () => {
    const transfer = new FunctionTool({
      name: 'transfer_money',
      description: 'Moves money.',
      parameters: z.object({ amount: z.number() }),
      requireConfirmation: true,
      execute: ({ amount }) => ({ moved: amount }),
    });
    const model = new ScriptedModel([
      'a1',
      { functionCalls: [{ name: 'transfer_money', args: { amount: 5 }, id: 't1' }] },
      'Moved 5.',
      'a3',
    ]);
    const summarizer = new ScriptedModel(['S1', 'S2']);
    const { runner, session, turn, events } = await setup(new LlmAgent({ name: 'Helper', model, tools: [transfer] }), {
      everyInvocations: 1,
      summarizer,
    });
    await turn('q1');
    const paused = await turn('move 5');
    expect(paused.status).toBe('interrupted');
    expect(compactions(await events())).toHaveLength(1);
    const resumed = await runner.resume({
      userId: 'u',
      sessionId: session.id,
      responses: { [paused.interrupts[0]!.id]: true },
    });
    expect(resumed.status).toBe('completed');
    expect(resumed.output).toBe('Moved 5.');
    expect(compactions(await events())).toHaveLength(2);
    // The second summary covers the resumed invocation whole, its tool call and result included.
    expect(texts(summarizer.requests[1]!.contents)[0]).toContain(`tool 'transfer_money' returned {"moved":5}`);
    await turn('q3');
    expect(texts(model.requests[3]!.contents)).toEqual([
      '[Summary of the earlier conversation] S1',
      '[Summary of the earlier conversation] S2',
      'q3',
    ]);
  });

  it('a crashed-then-resumed invocation is not refused because a compaction followed an earlier one', async () => {
    const model = new ScriptedModel(['a1', 'a2']);
    const summarizer = new ScriptedModel(['S1']);
    const { runner, session, turn } = await setup(new LlmAgent({ name: 'Helper', model }), {
      everyInvocations: 1,
      summarizer,
    });
    const first = await turn('q1');
    // Resuming a finished invocation is allowed (it has nothing left to do) although the compaction came after it.
    const again = await runner.resume({ userId: 'u', sessionId: session.id, invocationId: first.invocationId });
    expect(again.status).toBe('completed');
    expect(again.events).toHaveLength(0);
  });

  it('compacts before the session is given back: a turn started meanwhile is refused as busy, and the compaction follows its invocation directly', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let started: () => void = () => {};
    const summarising = new Promise<void>((resolve) => (started = resolve));
    const summarizer = new ScriptedModel([
      async () => {
        started();
        await held;
        return 'S1';
      },
    ]);
    const { runner, session, turn, events } = await setup(
      new LlmAgent({ name: 'Helper', model: new ScriptedModel(['a1', 'a2']) }),
      { everyInvocations: 1, summarizer },
    );
    const first = turn('q1');
    await summarising;
    await expect(runner.run({ userId: 'u', sessionId: session.id, newMessage: 'too soon' })).rejects.toThrow(
      SessionBusyError,
    );
    release();
    expect((await first).status).toBe('completed');
    const stored = await events();
    expect(stored.map((e) => (e.actions.compaction ? 'compaction' : e.author))).toEqual([
      'user',
      'Helper',
      'compaction',
    ]);
    expect((await turn('q2')).status).toBe('completed');
  });

  it('every agent of a tree sees the summary: the agent a turn was transferred to, too', async () => {
    const bookerModel = new ScriptedModel(['Booked for two.', 'Yes, for two.']);
    const booker = new LlmAgent({ name: 'Booker', description: 'Books tables.', model: bookerModel });
    const rootModel = new ScriptedModel([
      { functionCalls: [{ name: 'transfer_to_agent', args: { agent_name: 'Booker' } }] },
    ]);
    const summarizer = new ScriptedModel(['Booker booked a table for two.']);
    const { turn } = await setup(new LlmAgent({ name: 'Concierge', model: rootModel, subAgents: [booker] }), {
      everyInvocations: 1,
      summarizer,
    });
    await turn('book for two');
    expect(texts(summarizer.requests[0]!.contents)[0]).toContain('Booker: Booked for two.');
    // The next turn starts at Booker (the agent that answered last), whose history is the summary.
    expect((await turn('is it for two?')).output).toBe('Yes, for two.');
    expect(texts(bookerModel.requests[1]!.contents)).toEqual([
      '[Summary of the earlier conversation] Booker booked a table for two.',
      'is it for two?',
    ]);
  });

  it('a drained run (its process stopping) is not compacted; resumed by its invocationId it completes and compaction follows', async () => {
    const controller = new AbortController();
    let drain = true;
    const tool = new FunctionTool({
      name: 'work',
      description: 'Works.',
      parameters: z.object({}),
      execute: () => {
        if (drain) controller.abort(new RunDrainedError());
        return { done: true };
      },
    });
    const model = new ScriptedModel([
      'a1',
      { functionCalls: [{ name: 'work', args: {} }] },
      { functionCalls: [{ name: 'work', args: {} }] },
      'Worked.',
    ]);
    const summarizer = new ScriptedModel(['S1', 'S2']);
    const { runner, session, turn, events } = await setup(new LlmAgent({ name: 'Helper', model, tools: [tool] }), {
      everyInvocations: 1,
      summarizer,
    });
    await turn('q1');
    const drained = await runner.run({
      userId: 'u',
      sessionId: session.id,
      newMessage: 'work',
      abortSignal: controller.signal,
    });
    expect(drained.status).toBe('cancelled');
    expect(compactions(await events())).toHaveLength(1);
    drain = false;
    const resumed = await runner.resume({ userId: 'u', sessionId: session.id, invocationId: drained.invocationId });
    expect(resumed.status).toBe('completed');
    expect(resumed.output).toBe('Worked.');
    expect(compactions(await events())).toHaveLength(2);
  });

  it('rejects bad options in the constructor', () => {
    const agent = new LlmAgent({ name: 'Helper', model: new ScriptedModel([]) });
    const make = (compaction: unknown, root: LlmAgent | SequentialAgent = agent) =>
      new Runner({
        appName: 'app',
        agent: root,
        sessionService: new InMemorySessionService(),
        compaction: compaction as CompactionOptions,
      });
    expect(() => make({ everyInvocations: 0 })).toThrow(/everyInvocations must be a whole number of at least 1; got 0/);
    expect(() => make({ everyInvocations: 2, overlapInvocations: -1 })).toThrow(
      /overlapInvocations must be a whole number of at least 0/,
    );
    expect(() => make({ everyInvocations: 2, every: 3 })).toThrow(/'every' is not a compaction setting/);
    expect(() => make({ everyInvocations: 2, summarizer: 42 })).toThrow(ConfigurationError);
    const workflow = new SequentialAgent({
      name: 'Flow',
      subAgents: [new LlmAgent({ name: 'Step', model: new ScriptedModel([]) })],
    });
    expect(() => make({ everyInvocations: 2 }, workflow as unknown as LlmAgent)).toThrow(
      /root agent 'Flow' is not an LlmAgent.*set compaction.summarizer/,
    );
    expect(() =>
      make({ everyInvocations: 2, summarizer: new ScriptedModel([]) as BaseLlm }, workflow as unknown as LlmAgent),
    ).not.toThrow();
  });
});
