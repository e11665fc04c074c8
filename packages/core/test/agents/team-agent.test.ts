import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  BasePlugin,
  ConfigurationError,
  FunctionAgent,
  FunctionTool,
  InMemoryRunner,
  InputValidationError,
  LlmAgent,
  OutputValidationError,
  ReflectionError,
  TeamAgent,
  textOf,
  type Event,
  type RunConfig,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { barrier, deferred } from '../wait.js';

/** Runs the team on `input`; `onEvent` sees every event the runner yields, as it yields it. */
async function runTeam(
  team: TeamAgent,
  input: Record<string, unknown>,
  options: { runConfig?: RunConfig; onEvent?: (event: Event) => void } = {},
) {
  const { runConfig, onEvent } = options;
  class Watch extends BasePlugin {
    constructor() {
      super('watch');
    }
    override onEvent({ event }: { event: Event }): undefined {
      onEvent?.(event);
      return undefined;
    }
  }
  const runner = new InMemoryRunner({ agent: team, plugins: onEvent ? [new Watch()] : [] });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const result = await runner.run({ userId: 'u', sessionId: session.id, input, ...(runConfig ? { runConfig } : {}) });
  return { ...result, runner, sessionId: session.id };
}

const fn = (name: string, run: (input: Record<string, unknown>) => unknown, outputKey?: string) =>
  new FunctionAgent({ name, ...(outputKey ? { outputKey } : {}), run: (input) => run(input) });

describe('TeamAgent', () => {
  it('sequential: each skill gets the input plus earlier outputs; output is the last skill output', async () => {
    const seen: Record<string, unknown>[] = [];
    const research = fn('Research', (input) => {
      seen.push(input);
      return { research: `notes on ${String(input.topic)}` };
    });
    const summary = fn('Summary', (input) => {
      seen.push(input);
      return { summary: `summary of ${String(input.research)}` };
    });
    const result = await runTeam(new TeamAgent({ name: 'Team', skills: [research, summary] }), { topic: 'AI' });
    expect(seen).toEqual([{ topic: 'AI' }, { topic: 'AI', research: 'notes on AI' }]);
    expect(result.output).toEqual({ summary: 'summary of notes on AI' });
  });

  it('includeAllStepsOutput merges every skill output; non-object outputs go under outputKey or the name', async () => {
    const a = fn('A', () => 'text from A');
    const b = fn('B', () => 42, 'answer');
    const result = await runTeam(
      new TeamAgent({ name: 'Team', skills: [a, b], includeAllStepsOutput: true, outputKey: 'team_out' }),
      { q: 1 },
    );
    expect(result.output).toEqual({ A: 'text from A', answer: 42 });
    expect(result.state.team_out).toEqual({ A: 'text from A', answer: 42 });
  });

  it('parallel: skills run at the same time on the same input; outputs merge', async () => {
    // Each skill answers only once both have started: run one after the other, they would never meet.
    const bothRunning = barrier(2, 'skills running at once');
    const mk = (name: string, key: string) =>
      new FunctionAgent({
        name,
        run: async (input) => {
          await bothRunning.arrive();
          return { [key]: `${key} for ${String(input.company)}` };
        },
      });
    const result = await runTeam(
      new TeamAgent({ name: 'Team', mode: 'parallel', skills: [mk('Fin', 'financials'), mk('News', 'news')] }),
      { company: 'Initech' },
    );
    expect(result.output).toEqual({ financials: 'financials for Initech', news: 'news for Initech' });
    expect(result.events.find((e) => e.author === 'Fin')!.branch).toBe('Team.Fin');
  });

  it('parallel: the first skill to produce a key owns it (first in time, not array order), for objects and streamed text', async () => {
    // 'Slow' (first in the array) answers only once the team has recorded Fast's output (the
    // progress event that follows it), so Fast is first in time however busy the machine is.
    const fastRecorded = deferred();
    const slow = new FunctionAgent({
      name: 'Slow',
      run: async () => {
        await fastRecorded.promise;
        return { shared: 'slow value', slowOnly: 1 };
      },
    });
    const fast = new FunctionAgent({ name: 'Fast', run: () => ({ shared: 'fast value' }) });
    const objects = await runTeam(
      new TeamAgent({ name: 'Team', mode: 'parallel', skills: [slow, fast] }),
      {},
      {
        onEvent: (event) => {
          if (event.author === 'Team' && JSON.stringify(event.actions.agentState ?? null).includes('fast value'))
            fastRecorded.resolve();
        },
      },
    );
    expect(objects.output).toEqual({ shared: 'fast value', slowOnly: 1 });

    // Two LLM skills writing the same outputKey: the one that starts streaming first owns it.
    // 'Late' starts its answer only after Early's first chunk came out.
    const earlyStreamed = deferred();
    const late = new LlmAgent({
      name: 'Late',
      outputKey: 'text',
      model: new ScriptedModel([
        async () => {
          await earlyStreamed.promise;
          return { chunks: ['late ', 'words'] };
        },
      ]),
    });
    const early = new LlmAgent({
      name: 'Early',
      outputKey: 'text',
      model: new ScriptedModel([{ chunks: ['early ', 'words'] }]),
    });
    const streamed = await runTeam(
      new TeamAgent({ name: 'Writers', mode: 'parallel', skills: [late, early] }),
      { request: 'write' },
      {
        runConfig: { streaming: 'sse' },
        onEvent: (event) => {
          if (event.author === 'Early' && event.partial) earlyStreamed.resolve();
        },
      },
    );
    expect(streamed.output).toEqual({ text: 'early words' });
  });

  it('LLM skills resolve {key} in their instruction from the input first, then state', async () => {
    const model = new ScriptedModel(['done']);
    const writer = new LlmAgent({ name: 'Writer', model, instruction: 'Write about {topic} in {style}.' });
    const runner = new InMemoryRunner({ agent: new TeamAgent({ name: 'Team', skills: [writer] }) });
    const session = await runner.sessionService.createSession({
      appName: runner.appName,
      userId: 'u',
      state: { topic: 'state topic', style: 'haiku' },
    });
    await runner.run({ userId: 'u', sessionId: session.id, input: { topic: 'input topic' } });
    expect(model.requests[0]!.config.systemInstruction).toBe('Write about input topic in haiku.');
  });

  it('skills do not see the chat history, only the team input', async () => {
    const model = new ScriptedModel(['first', 'second']);
    const skill = new LlmAgent({ name: 'Skill', model, instruction: 'Handle {topic?}.' });
    const team = new TeamAgent({ name: 'Team', skills: [skill] });
    const runner = new InMemoryRunner({ agent: team });
    const s = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    await runner.run({ userId: 'u', sessionId: s.id, input: { topic: 'cats' } });
    await runner.run({ userId: 'u', sessionId: s.id, input: { topic: 'dogs' } });
    expect(model.requests[0]!.config.systemInstruction).toBe('Handle cats.');
    expect(model.requests[1]!.config.systemInstruction).toBe('Handle dogs.');
    expect(model.requests[1]!.contents).toEqual([{ role: 'user', parts: [{ text: '{"topic":"dogs"}' }] }]);
  });

  it('iterateOn: each item runs the whole team on { ...input, ...item }; results in input order; concurrency overlaps items', async () => {
    let running = 0;
    let peak = 0;
    // Items A and B wait for each other, so two provably run at once; C passes straight through.
    const firstTwo = barrier(2, 'items running at once');
    const worker = new FunctionAgent({
      name: 'Worker',
      run: async (input) => {
        running++;
        peak = Math.max(peak, running);
        if (input.title !== 'C') await firstTwo.arrive();
        else await Promise.resolve();
        running--;
        return { body: `${String(input.title)} by ${String(input.author)}` };
      },
    });
    const team = new TeamAgent({ name: 'Team', skills: [worker], iterateOn: 'sections', concurrency: 2 });
    const result = await runTeam(team, { author: 'Ann', sections: [{ title: 'A' }, { title: 'B' }, { title: 'C' }] });
    expect(result.output).toEqual({ sections: [{ body: 'A by Ann' }, { body: 'B by Ann' }, { body: 'C by Ann' }] });
    expect(peak).toBe(2);
    expect(result.events.find((e) => e.author === 'Worker')!.branch).toMatch(/^Team\.Worker\[\d\]$/);
  });

  it('iterateOn: a non-array value is one item; a missing field is no items', async () => {
    const echo = () => fn('Echo', (input) => ({ got: input.item ?? input.title }));
    expect(
      (await runTeam(new TeamAgent({ name: 'T', skills: [echo()], iterateOn: 'item' }), { item: 'solo' })).output,
    ).toEqual({ item: [{ got: 'solo' }] });
    expect((await runTeam(new TeamAgent({ name: 'T', skills: [echo()], iterateOn: 'item' }), {})).output).toEqual({
      item: [],
    });
  });

  it('iterateWithPreviousOutput carries each result into the next item and into the array', async () => {
    const seen: Record<string, unknown>[] = [];
    const story = fn('Story', (input) => {
      seen.push(structuredClone(input));
      return { story: `${String(input.story ?? '')}${String(input.event)}.` };
    });
    const team = new TeamAgent({ name: 'Team', skills: [story], iterateOn: 'events', iterateWithPreviousOutput: true });
    const result = await runTeam(team, { events: [{ event: 'a' }, { event: 'b' }, { event: 'c' }] });
    expect(result.output).toEqual({ events: [{ story: 'a.' }, { story: 'a.b.' }, { story: 'a.b.c.' }] });
    expect(seen[1]).toMatchObject({
      story: 'a.',
      event: 'b',
      events: [{ event: 'a', story: 'a.' }, { event: 'b' }, { event: 'c' }],
    });
  });

  it('iterateWithPreviousOutput with concurrency above 1 is rejected at construction with the values', () => {
    expect(
      () =>
        new TeamAgent({
          name: 'T',
          skills: [fn('A', () => 1)],
          iterateOn: 'x',
          iterateWithPreviousOutput: true,
          concurrency: 3,
        }),
    ).toThrow(/iterateWithPreviousOutput: true with concurrency 3/);
    expect(() => new TeamAgent({ name: 'T', skills: [] })).toThrow(ConfigurationError);
    expect(() => new TeamAgent({ name: 'T', skills: [fn('A', () => 1)], mode: 'random' as never })).toThrow(
      /mode "random"/,
    );
  });

  it('reflection: revises until the reviewer approves, with its feedback in the next input', async () => {
    const inputs: Record<string, unknown>[] = [];
    const writer = fn('Writer', (input) => {
      inputs.push(input);
      return { draft: `draft ${inputs.length}` };
    });
    let reviews = 0;
    const reviewer = fn('Reviewer', () =>
      ++reviews < 2 ? { approved: false, feedback: 'more detail' } : { approved: true },
    );
    const team = new TeamAgent({ name: 'Team', skills: [writer], reflection: { reviewer, isApproved: 'approved' } });
    const result = await runTeam(team, { topic: 'x' });
    expect(result.output).toEqual({ draft: 'draft 2' });
    expect(inputs[1]).toMatchObject({ topic: 'x', approved: false, feedback: 'more detail' });
  });

  it('reflection with a function, maxIterations, returnLastOnMaxIterations and customErrorMessage', async () => {
    let drafts = 0;
    const writer = () => fn('Writer', () => ({ draft: ++drafts }));
    const never = () => fn('Reviewer', () => ({ score: 1 }));
    drafts = 0;
    const last = await runTeam(
      new TeamAgent({
        name: 'T',
        skills: [writer()],
        reflection: {
          reviewer: never(),
          isApproved: (o) => Number(o.score) > 5,
          maxIterations: 2,
          returnLastOnMaxIterations: true,
        },
      }),
      {},
    );
    expect(last.output).toEqual({ draft: 2 });
    drafts = 0;
    const failed = await runTeam(
      new TeamAgent({ name: 'T', skills: [writer()], reflection: { reviewer: never(), isApproved: 'ok' } }),
      {},
    );
    expect(failed.error).toBeInstanceOf(ReflectionError);
    expect(failed.error!.message).toMatch(/within 3 rounds/);
    expect(drafts).toBe(3);
    const custom = await runTeam(
      new TeamAgent({
        name: 'T',
        skills: [writer()],
        reflection: { reviewer: never(), isApproved: 'ok', maxIterations: 1, customErrorMessage: 'Not good enough.' },
      }),
      {},
    );
    expect(custom.error!.message).toBe('Not good enough.');
  });

  it('validates input and output schemas with messages naming the field', async () => {
    const skill = fn('S', () => ({ result: 5 }));
    const team = new TeamAgent({
      name: 'T',
      skills: [skill],
      inputSchema: z.object({ topic: z.string() }),
      outputSchema: z.object({ result: z.string() }),
    });
    // Given directly to the runner, a bad input is refused before anything runs.
    await expect(runTeam(team, { topic: 3 })).rejects.toThrow(InputValidationError);
    await expect(runTeam(team, { topic: 3 })).rejects.toThrow(/topic/);
    // Inside a tree, the team checks its input on entry.
    const inner = new TeamAgent({
      name: 'Inner',
      skills: [fn('S2', () => ({ result: 'x' }))],
      inputSchema: z.object({ topic: z.string() }),
    });
    const outer = new TeamAgent({ name: 'Outer', skills: [fn('Bad', () => ({ topic: 7 })), inner] });
    const badIn = await runTeam(outer, {});
    expect(badIn.error).toBeInstanceOf(InputValidationError);
    expect(badIn.error!.message).toMatch(/Inner.*topic/);
    const badOut = await runTeam(team, { topic: 'ok' });
    expect(badOut.error).toBeInstanceOf(OutputValidationError);
    expect(badOut.error!.message).toMatch(/result/);
  });

  it('streams skill events through with their branches', async () => {
    const model = new ScriptedModel([{ chunks: ['he', 'llo'] }]);
    const result = await runTeam(
      new TeamAgent({ name: 'T', skills: [new LlmAgent({ name: 'Talker', model })] }),
      { request: 'hi' },
      { runConfig: { streaming: 'sse' } },
    );
    const talker = result.events.filter((e) => e.author === 'Talker');
    expect(talker.map(textOf)).toEqual(['hello']);
    expect(talker[0]!.branch).toBe('T.Talker');
    expect(result.output).toEqual({ Talker: 'hello' });
  });

  it('an interrupt inside a skill resumes that skill; finished skills are not re-run', async () => {
    const ran: string[] = [];
    const prep = fn('Prep', () => {
      ran.push('Prep');
      return { prepared: true };
    });
    const pay = new FunctionTool({
      name: 'pay',
      description: 'Pays.',
      requireConfirmation: true,
      execute: () => {
        ran.push('paid');
        return 'ok';
      },
    });
    const payer = new LlmAgent({
      name: 'Payer',
      outputKey: 'payment',
      tools: [pay],
      model: new ScriptedModel([{ functionCalls: [{ name: 'pay', id: 'k' }] }, 'paid it']),
    });
    const report = fn('Report', (input) => {
      ran.push('Report');
      return { report: `payment: ${String(input.payment)}` };
    });
    const { runner, sessionId, status, interrupts } = await runTeam(
      new TeamAgent({ name: 'T', skills: [prep, payer, report] }),
      { request: 'go' },
    );
    expect(status).toBe('interrupted');
    expect(ran).toEqual(['Prep']);
    const done = await runner.resume({ userId: 'u', sessionId, responses: { [interrupts[0]!.id]: true } });
    expect(done.status).toBe('completed');
    expect(ran).toEqual(['Prep', 'paid', 'Report']);
    expect(done.output).toEqual({ report: 'payment: paid it' });
  });
});
