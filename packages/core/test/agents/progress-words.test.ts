import { describe, expect, it } from 'vitest';
import {
  BaseAgent,
  describeProgress,
  FunctionAgent,
  LlmAgent,
  LoopAgent,
  ParallelAgent,
  SequentialAgent,
  TeamAgent,
  type Event,
  type InvocationContext,
  type LoopStopReason,
} from '@troupe/core';
import {
  GroupChatAgent,
  PlanExecuteAgent,
  planSchema,
  replanSchema,
  SupervisorAgent,
  type GroupChatStopReason,
  type PlanExecuteStopReason,
  type SupervisorStopReason,
} from '@troupe/core/patterns';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce } from '../helpers.js';

// Every record the workflow and pattern agents write, taken from real runs, has words; and every
// stop reason of their types is listed here (the `satisfies` fails to compile when one is added).
const LOOP_STOPS = { escalated: 1, maxIterations: 1 } satisfies Record<LoopStopReason, 1>;
const PLAN_STOPS = { responded: 1, planCompleted: 1, maxIterations: 1 } satisfies Record<PlanExecuteStopReason, 1>;
const CHAT_STOPS = { terminated: 1, maxTurns: 1, selector: 1 } satisfies Record<GroupChatStopReason, 1>;
const SUPERVISOR_STOPS = { answered: 1, maxDelegations: 1 } satisfies Record<SupervisorStopReason, 1>;

/** A custom agent that is not resumable: a sequence records its own progress after it. */
class Note extends BaseAgent {
  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    yield this.createEvent(ctx, { content: { role: 'model', parts: [{ text: 'noted' }] } });
  }
}

/** Each agent record of a run (not the runner's on user events) in words, by the author's kind. */
async function wordsOf(root: BaseAgent, message = 'go'): Promise<string[]> {
  const { events } = await runOnce(root, message);
  const records = events.filter((e) => e.author !== 'user' && e.actions.agentState !== undefined);
  expect(records.length).toBeGreaterThan(0);
  return records.map((e) => {
    const words = describeProgress(e.actions.agentState, root.findAgent(e.author)?.kind);
    expect(words, `no words for ${e.author}'s ${JSON.stringify(e.actions.agentState)}`).toBeDefined();
    return words!.text;
  });
}

const say = (name: string, text = `${name} spoke`) => new FunctionAgent({ name, description: name, run: () => text });
const plan = (...steps: string[]) => JSON.stringify({ steps });

describe('describeProgress', () => {
  it('words the records of the workflow agents: sequence steps, loop iterations and stops, branches, team units', async () => {
    expect(await wordsOf(new SequentialAgent({ name: 'Seq', subAgents: [new Note({ name: 'A' }), say('B')] }))).toEqual(
      ['Sequence: step 1 done, step 2 next'],
    );
    expect(await wordsOf(new LoopAgent({ name: 'Loop', maxIterations: 2, subAgents: [say('Drafter')] }))).toEqual([
      'Loop iteration 1: step 1 done',
      'Loop iteration 2: step 1 done',
      'Loop stopped: reached its maximum of 2 iterations',
    ]);
    const escalate = new FunctionAgent({
      name: 'Checker',
      run: (_input, ctx) => {
        ctx.actions.escalate = true;
        return 'done';
      },
    });
    expect(await wordsOf(new LoopAgent({ name: 'Loop', maxIterations: 5, subAgents: [escalate] }))).toEqual([
      'Loop stopped: escalated after 1 iteration',
    ]);
    expect(await wordsOf(new ParallelAgent({ name: 'Fan', subAgents: [say('Grammar'), say('Facts')] }))).toEqual([
      'Parallel branches finished: Grammar, Facts',
    ]);
    expect(await wordsOf(new TeamAgent({ name: 'Team', skills: [say('Research'), say('Summary')] }))).toEqual([
      'Team: Research finished',
      'Team: Summary finished',
      'Team finished',
    ]);
    // A team iterating over items, with reflection rounds (items and rounds counted from 1).
    expect(describeProgress({ unit: '1:2:chat', output: {} }, 'team')?.text).toBe(
      'Team: chat finished on item 2 (reflection round 3)',
    );
    expect(describeProgress({ round: '-:1' }, 'team')?.text).toBe('Team: reflection round 2 begun');
  });

  it('words a PlanExecuteAgent’s steps and each of its stop reasons, which a loop’s maxIterations does not take', async () => {
    const planExecute = (replies: string[], maxIterations = 5, replanner?: string[]) =>
      new PlanExecuteAgent({
        name: 'Trip',
        planner: new LlmAgent({
          name: 'Planner',
          model: new ScriptedModel([plan('Pack', 'Go')]),
          outputSchema: planSchema,
        }),
        executor: new LlmAgent({ name: 'Doer', model: new ScriptedModel(replies) }),
        ...(replanner
          ? {
              replanner: new LlmAgent({
                name: 'Replanner',
                model: new ScriptedModel(replanner),
                outputSchema: replanSchema,
              }),
            }
          : {}),
        maxIterations,
      });
    expect(await wordsOf(planExecute(['packed', 'gone']))).toEqual([
      'Plan: step 1 of 2 next: Pack',
      'Plan: step 2 of 2 next: Go',
      'Plan completed: all 2 steps done',
    ]);
    expect(await wordsOf(planExecute(['packed'], 5, [JSON.stringify({ respond: 'All set' })]))).toEqual([
      'Plan: step 1 of 2 next: Pack',
      'Plan: step 1 done (Pack), replanning',
      'Plan answered after 1 step',
    ]);
    expect((await wordsOf(planExecute(['packed'], 1))).at(-1)).toBe('Plan stopped: reached its maximum of 1 step');
    // Without the kind, the shape says "loop" for maxIterations; with it, the plan's words.
    expect(describeProgress({ stopReason: 'maxIterations', iterations: 3 })?.kind).toBe('loop');
    expect(describeProgress({ stopReason: 'maxIterations', iterations: 3 }, 'plan_execute')?.text).toBe(
      'Plan stopped: reached its maximum of 3 steps',
    );
  });

  it('words a group chat’s turns and stops, and a supervisor’s', async () => {
    const room = (options: { maxTurns?: number; terminate?: string; selector?: 'round_robin' | (() => undefined) }) =>
      new GroupChatAgent({
        name: 'Room',
        participants: [say('Writer', 'draft APPROVED'), say('Critic')],
        selector: options.selector ?? 'round_robin',
        ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
        ...(options.terminate ? { terminate: options.terminate } : {}),
      });
    expect(await wordsOf(room({ maxTurns: 2 }))).toEqual([
      'Group chat: turn 1, Writer speaks',
      'Group chat: Writer finished turn 1',
      'Group chat: turn 2, Critic speaks',
      'Group chat: Critic finished turn 2',
      'Group chat stopped: reached its maximum of 2 turns',
    ]);
    expect((await wordsOf(room({ terminate: 'APPROVED' }))).at(-1)).toBe(
      'Group chat ended: its end condition matched after 1 turn',
    );
    expect((await wordsOf(room({ selector: () => undefined }))).at(-1)).toBe(
      'Group chat ended: the selector chose nobody after 0 turns',
    );

    const lead = (maxDelegations: number) =>
      new SupervisorAgent({
        name: 'Lead',
        model: new ScriptedModel([
          { functionCalls: [{ name: 'Searcher', args: { request: 'webb' }, id: 's1' }] },
          'Webb found',
        ]),
        subAgents: [say('Searcher')],
        maxDelegations,
      });
    expect(await wordsOf(lead(5))).toEqual(['Supervisor answered after 1 delegation']);
    expect(await wordsOf(lead(1))).toEqual(['Supervisor answered after using all 1 delegation']);
  });

  it('has words for every stop reason, and none for records it does not know', () => {
    for (const reason of Object.keys(LOOP_STOPS))
      expect(describeProgress({ stopReason: reason, iterations: 2 }, 'loop')).toMatchObject({
        kind: 'loop',
        final: true,
      });
    for (const reason of Object.keys(PLAN_STOPS))
      expect(describeProgress({ stopReason: reason, iterations: 2 }, 'plan_execute')).toMatchObject({
        kind: 'plan_execute',
        final: true,
      });
    for (const reason of Object.keys(CHAT_STOPS))
      expect(describeProgress({ stopReason: reason, turns: 2, speakers: ['A', 'B'] })).toMatchObject({
        kind: 'group_chat',
        final: true,
      });
    for (const reason of Object.keys(SUPERVISOR_STOPS))
      expect(describeProgress({ stopReason: reason, delegations: 2 })).toMatchObject({
        kind: 'supervisor',
        final: true,
      });
    // An unknown stop reason is not a loop's; a custom agent's record and the runner's are nobody's.
    expect(describeProgress({ stopReason: 'tired', iterations: 2 }, 'loop')).toBeUndefined();
    expect(describeProgress({ step: 3 })).toBeUndefined();
    expect(describeProgress({ input: { city: 'Oslo' } })).toBeUndefined();
    expect(describeProgress(['not', 'a', 'record'])).toBeUndefined();
  });
});
