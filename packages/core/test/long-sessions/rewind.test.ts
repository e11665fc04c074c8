import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  FunctionTool,
  InMemoryArtifactService,
  InMemorySessionService,
  InvocationNotFoundError,
  LlmAgent,
  Runner,
  SessionBusyError,
  SessionNotFoundError,
  type Event,
} from '@troupe/core';
import { rewoundEventIds } from '@troupe/core/hosting';
import { ScriptedModel } from '@troupe/core/testing';
import { z } from 'zod';
import { texts } from '../helpers.js';

/** A tool that writes the state keys and artifacts it is given. */
const write = new FunctionTool({
  name: 'write',
  description: 'Writes state and files.',
  parameters: z.object({
    state: z.record(z.string(), z.string()).optional(),
    files: z.record(z.string(), z.string()).optional(),
  }),
  execute: async ({ state, files }, ctx) => {
    for (const [key, value] of Object.entries(state ?? {})) ctx.state.set(key, value);
    for (const [name, text] of Object.entries(files ?? {})) await ctx.saveArtifact(name, { text });
    return { ok: true };
  },
});

/** A model reply that calls `write`, then a text answer. */
const writes = (args: { state?: Record<string, string>; files?: Record<string, string> }, answer: string) => [
  { functionCalls: [{ name: 'write', args }] },
  answer,
];

async function setup(
  replies: unknown[],
  options: {
    state?: Record<string, unknown>;
    compaction?: { everyInvocations: number; summarizer: ScriptedModel };
  } = {},
) {
  const model = new ScriptedModel(replies as never[]);
  const artifactService = new InMemoryArtifactService();
  const runner = new Runner({
    appName: 'app',
    agent: new LlmAgent({ name: 'Helper', model, tools: [write] }),
    sessionService: new InMemorySessionService(),
    artifactService,
    ...(options.compaction ? { compaction: options.compaction } : {}),
  });
  const session = await runner.sessionService.createSession({
    appName: 'app',
    userId: 'u',
    ...(options.state ? { state: options.state } : {}),
  });
  const key = { userId: 'u', sessionId: session.id };
  const turn = async (newMessage: string) => runner.run({ ...key, newMessage });
  const read = async () => (await runner.sessionService.getSession({ appName: 'app', ...key }))!;
  const file = async (filename: string) => artifactService.loadArtifact({ appName: 'app', ...key, filename });
  return { model, runner, artifactService, key, turn, read, file };
}

describe('runner.rewind', () => {
  it("restores this session's state and artifacts to before the invocation, deletes new keys, keeps user: and app: keys and the events", async () => {
    const t = await setup(
      [
        ...writes({ state: { plan: 'A', 'user:lang': 'en' }, files: { 'notes.txt': 'v0' } }, 'a1'),
        ...writes(
          {
            state: { plan: 'B', extra: 'x', 'user:lang': 'fr', 'app:flag': 'on' },
            files: { 'notes.txt': 'v1', 'new.txt': 'n', 'user:profile.txt': 'p' },
          },
          'a2',
        ),
      ],
      { state: { kept: 'from createSession' } },
    );
    await t.turn('q1');
    const second = await t.turn('q2');
    const before = (await t.read()).events.length;

    await t.runner.rewind({ ...t.key, beforeInvocationId: second.invocationId });

    const session = await t.read();
    expect(session.state).toEqual({ kept: 'from createSession', plan: 'A', 'user:lang': 'fr', 'app:flag': 'on' });
    expect(session.events).toHaveLength(before + 1);
    const rewind = session.events.at(-1)!;
    expect(rewind).toMatchObject({
      author: 'user',
      actions: { rewindBeforeInvocationId: second.invocationId, artifactDelta: { 'notes.txt': 2 } },
    });
    expect(rewind.content).toBeUndefined();
    expect(await t.file('notes.txt')).toEqual({ text: 'v0' });
    expect(await t.artifactService.listVersions({ appName: 'app', ...t.key, filename: 'notes.txt' })).toEqual([
      0, 1, 2,
    ]);
    expect(await t.file('new.txt')).toBeUndefined();
    expect(await t.file('user:profile.txt')).toEqual({ text: 'p' });
    // The rewound events: the invocation's first event up to the rewind event.
    const ids = rewoundEventIds(session.events);
    expect(session.events.filter((e) => ids.has(e.id)).map((e) => e.invocationId)).toEqual(
      second.events.map(() => second.invocationId).concat(second.invocationId),
    );
    expect(ids.has(rewind.id)).toBe(false);
  });

  it('history skips rewound events; a new turn continues from before the rewind', async () => {
    const t = await setup(['a1', 'a2', 'a3']);
    await t.turn('q1');
    const second = await t.turn('q2');
    await t.runner.rewind({ ...t.key, beforeInvocationId: second.invocationId });
    expect((await t.turn('q3')).status).toBe('completed');
    expect(texts(t.model.requests[2]!.contents)).toEqual(['q1', 'a1', 'q3']);
  });

  it('rewinds twice: further back, and again after a new turn; an already rewound invocation is refused', async () => {
    const t = await setup([
      ...writes({ state: { step: '1' } }, 'a1'),
      ...writes({ state: { step: '2' } }, 'a2'),
      ...writes({ state: { step: '3' } }, 'a3'),
      'a4',
    ]);
    const first = await t.turn('q1');
    const second = await t.turn('q2');
    await t.runner.rewind({ ...t.key, beforeInvocationId: second.invocationId });
    expect((await t.read()).state).toEqual({ step: '1' });
    const third = await t.turn('q3');
    expect((await t.read()).state).toEqual({ step: '3' });
    await t.runner.rewind({ ...t.key, beforeInvocationId: third.invocationId });
    expect((await t.read()).state).toEqual({ step: '1' });
    await expect(t.runner.rewind({ ...t.key, beforeInvocationId: second.invocationId })).rejects.toThrow(
      /'.*' of session '.*' was already rewound/,
    );
    await t.runner.rewind({ ...t.key, beforeInvocationId: first.invocationId });
    expect((await t.read()).state).toEqual({});
    await t.turn('q4');
    expect(texts(t.model.requests.at(-1)!.contents)).toEqual(['q4']);
  });

  it('refuses an unknown invocation and a busy session, changing nothing', async () => {
    const t = await setup(['a1', 'a2']);
    const first = await t.turn('q1');
    const count = (await t.read()).events.length;
    await expect(t.runner.rewind({ ...t.key, beforeInvocationId: 'nope' })).rejects.toThrow(InvocationNotFoundError);
    await expect(t.runner.rewind({ ...t.key, beforeInvocationId: 'nope' })).rejects.toThrow(
      /has no invocation 'nope' to rewind to/,
    );
    await expect(t.runner.rewind({ ...t.key, beforeInvocationId: '' })).rejects.toThrow(ConfigurationError);
    await expect(
      t.runner.rewind({ userId: 'u', sessionId: 'missing', beforeInvocationId: first.invocationId }),
    ).rejects.toThrow(SessionNotFoundError);
    const running = await t.runner.start({ ...t.key, newMessage: 'q2' });
    await expect(t.runner.rewind({ ...t.key, beforeInvocationId: first.invocationId })).rejects.toThrow(
      SessionBusyError,
    );
    await running.return(undefined as never);
    expect((await t.read()).events).toHaveLength(count);
  });

  it('a rewound paused invocation cannot be resumed, and its open interrupts no longer block new turns', async () => {
    const approve = new FunctionTool({
      name: 'pay',
      description: 'Pays.',
      parameters: z.object({}),
      requireConfirmation: true,
      execute: () => ({ paid: true }),
    });
    const model = new ScriptedModel(['a1', { functionCalls: [{ name: 'pay', args: {} }] }, 'a3']);
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({ name: 'Helper', model, tools: [approve] }),
      sessionService: new InMemorySessionService(),
    });
    const session = await runner.sessionService.createSession({ appName: 'app', userId: 'u' });
    const key = { userId: 'u', sessionId: session.id };
    await runner.run({ ...key, newMessage: 'q1' });
    const paused = await runner.run({ ...key, newMessage: 'pay' });
    expect(paused.status).toBe('interrupted');
    await runner.rewind({ ...key, beforeInvocationId: paused.invocationId });
    await expect(
      runner.resume({ ...key, invocationId: paused.invocationId, responses: { [paused.interrupts[0]!.id]: true } }),
    ).rejects.toThrow(/was rewound, so it can no longer be resumed/);
    const next = await runner.run({ ...key, newMessage: 'q3' });
    expect(next.status).toBe('completed');
    expect(texts(model.requests[2]!.contents)).toEqual(['q1', 'a1', 'q3']);
  });

  it('the next turn starts where it would have before the rewound turn, not at the agent that turn transferred to', async () => {
    const bookerModel = new ScriptedModel(['Booked.']);
    const rootModel = new ScriptedModel([
      'Hello.',
      { functionCalls: [{ name: 'transfer_to_agent', args: { agent_name: 'Booker' } }] },
      'Welcome back.',
    ]);
    const booker = new LlmAgent({ name: 'Booker', description: 'Books tables.', model: bookerModel });
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({ name: 'Concierge', model: rootModel, subAgents: [booker] }),
      sessionService: new InMemorySessionService(),
    });
    const session = await runner.sessionService.createSession({ appName: 'app', userId: 'u' });
    const key = { userId: 'u', sessionId: session.id };
    await runner.run({ ...key, newMessage: 'hi' });
    const booking = await runner.run({ ...key, newMessage: 'book a table' });
    expect(booking.output).toBe('Booked.');
    await runner.rewind({ ...key, beforeInvocationId: booking.invocationId });
    const next = await runner.run({ ...key, newMessage: 'hello again' });
    expect(next.output).toBe('Welcome back.');
    expect(next.events.at(-1)!.author).toBe('Concierge');
  });

  it('a compaction that covered rewound events is rewound with them', async () => {
    const summarizer = new ScriptedModel(['S: q1 and q2.']);
    const t = await setup(['a1', 'a2', 'a3'], { compaction: { everyInvocations: 2, summarizer } });
    await t.turn('q1');
    const second = await t.turn('q2');
    expect((await t.read()).events.some((e: Event) => e.actions.compaction)).toBe(true);
    await t.runner.rewind({ ...t.key, beforeInvocationId: second.invocationId });
    await t.turn('q3');
    expect(texts(t.model.requests[2]!.contents)).toEqual(['q1', 'a1', 'q3']);
  });
});
