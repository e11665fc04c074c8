import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigurationError,
  FunctionAgent,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  RunDrainedError,
  Runner,
  SequentialAgent,
  getFunctionResponses,
  type BaseTool,
  type Event,
} from '@troupe/core';
import { PlanExecuteAgent, PlanValidationError, planSchema, replanSchema } from '@troupe/core/patterns';
import { ScriptedModel } from '@troupe/core/testing';
import { SqliteSessionService } from '@troupe/sqlite';
import { runOnce, texts } from '../helpers.js';
import { tempDir } from '../temp-dir.js';

const plan = (...steps: string[]) => JSON.stringify({ steps });
const respond = (text: string) => JSON.stringify({ respond: text });
const records = (events: Event[], name = 'Trip') =>
  events.filter((e) => e.author === name && e.actions.agentState).map((e) => e.actions.agentState);
const stepMessages = (events: Event[], name = 'Trip') =>
  events
    .filter((e) => e.author === name && e.content)
    .map((e) => e.content!.parts.map((p) => ('text' in p ? p.text : '')).join(''));

/** A fresh tree each call (a second process builds its own). */
function trip(
  models: { planner: ScriptedModel; executor: ScriptedModel; replanner?: ScriptedModel },
  options: { maxIterations?: number; tools?: BaseTool[] } = {},
) {
  return new PlanExecuteAgent({
    name: 'Trip',
    planner: new LlmAgent({
      name: 'Planner',
      model: models.planner,
      instruction: 'Break the request into steps.',
      outputSchema: planSchema,
    }),
    executor: new LlmAgent({
      name: 'Executor',
      model: models.executor,
      instruction: 'Do the current step.',
      tools: options.tools ?? [],
    }),
    ...(models.replanner
      ? {
          replanner: new LlmAgent({
            name: 'Replanner',
            model: models.replanner,
            instruction: 'Answer, or list the steps still to do.',
            outputSchema: replanSchema,
          }),
        }
      : {}),
    ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
  });
}

describe('PlanExecuteAgent', () => {
  it('plans, executes the steps in order and stops when the plan is done (no replanner)', async () => {
    const planner = new ScriptedModel([plan('Find flights to Lisbon', 'Find a hotel')]);
    const executor = new ScriptedModel(['Flight TP123 at 9:00', 'Hotel Alfama, 120 EUR']);
    const result = await runOnce(trip({ planner, executor }), 'Plan 2 days in Lisbon');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('Hotel Alfama, 120 EUR');
    expect(stepMessages(result.events)).toEqual(['Step 1: Find flights to Lisbon', 'Step 2: Find a hotel']);
    // The executor sees its step as the latest message.
    expect(texts(executor.requests[0]!.contents).at(-1)).toBe('[Trip] said: Step 1: Find flights to Lisbon');
    expect(texts(executor.requests[1]!.contents).at(-1)).toBe('[Trip] said: Step 2: Find a hotel');
    expect(result.state.plan).toEqual({ steps: [] });
    expect(result.state.pastSteps).toEqual([
      { step: 'Find flights to Lisbon', result: 'Flight TP123 at 9:00' },
      { step: 'Find a hotel', result: 'Hotel Alfama, 120 EUR' },
    ]);
    const final = result.events.find((e) => e.author === 'Trip' && e.actions.endOfAgent)!;
    expect(final.actions.agentState).toEqual({ stopReason: 'planCompleted', iterations: 2 });
    expect(result.events.filter((e) => !e.partial && e.author !== 'user').map((e) => e.author)).toEqual([
      'Planner',
      'Trip',
      'Executor',
      'Trip',
      'Executor',
      'Trip',
    ]);
  });

  it('the replanner replaces the remaining steps, then gives the final answer', async () => {
    const planner = new ScriptedModel([plan('Find flights', 'Find a hotel', 'Book a museum')]);
    const executor = new ScriptedModel(['No direct flights; train to Porto then fly', 'Train booked', 'Hotel Ribeira']);
    const replanner = new ScriptedModel([
      plan('Book the train to Porto', 'Find a hotel in Porto'),
      plan('Find a hotel in Porto'),
      respond('Train, then Hotel Ribeira in Porto.'),
    ]);
    const result = await runOnce(trip({ planner, executor, replanner }), 'Plan a trip');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('Train, then Hotel Ribeira in Porto.');
    expect(stepMessages(result.events)).toEqual([
      'Step 1: Find flights',
      'Step 2: Book the train to Porto',
      'Step 3: Find a hotel in Porto',
      'Train, then Hotel Ribeira in Porto.',
    ]);
    expect(records(result.events)).toEqual([
      { next: 'execute', iteration: 0, plan: ['Find flights', 'Find a hotel', 'Book a museum'], pastSteps: [] },
      {
        next: 'replan',
        iteration: 1,
        plan: ['Find a hotel', 'Book a museum'],
        pastSteps: [{ step: 'Find flights', result: 'No direct flights; train to Porto then fly' }],
      },
      {
        next: 'execute',
        iteration: 1,
        plan: ['Book the train to Porto', 'Find a hotel in Porto'],
        pastSteps: [{ step: 'Find flights', result: 'No direct flights; train to Porto then fly' }],
      },
      expect.objectContaining({ next: 'replan', iteration: 2 }),
      expect.objectContaining({ next: 'execute', iteration: 2, plan: ['Find a hotel in Porto'] }),
      expect.objectContaining({ next: 'replan', iteration: 3, plan: [] }),
      { stopReason: 'responded', iterations: 3 },
    ]);
    expect((result.state.pastSteps as unknown[]).length).toBe(3);
    expect(planner.requests).toHaveLength(1);
  });

  it('stops after maxIterations steps and records why', async () => {
    const planner = new ScriptedModel([plan('Search')]);
    const executor = new ScriptedModel(['nothing yet', 'still nothing']);
    const replanner = new ScriptedModel([plan('Search again'), plan('Search once more')]);
    const result = await runOnce(trip({ planner, executor, replanner }, { maxIterations: 2 }), 'Find a cheap flight');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('still nothing');
    expect(records(result.events).at(-1)).toEqual({ stopReason: 'maxIterations', iterations: 2 });
    expect(result.state.plan).toEqual({ steps: ['Search once more'] });
    expect(executor.requests).toHaveLength(2);
  });

  it('repairs an invalid plan once: the planner is told what was wrong', async () => {
    const planner = new ScriptedModel(['{"steps": []}', plan('Only step')]);
    const executor = new ScriptedModel(['done']);
    const result = await runOnce(trip({ planner, executor }), 'Do it');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('done');
    expect(texts(planner.requests[1]!.contents).at(-1)).toMatch(/did not match the required JSON schema/);
  });

  it('an invalid plan after the repair fails with an error naming the agent and the fix', async () => {
    const planner = new ScriptedModel(['Sure! First flights, then hotels.', '{"plan": "flights"}']);
    const executor = new ScriptedModel([]);
    const result = await runOnce(trip({ planner, executor }), 'Do it');
    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(PlanValidationError);
    expect((result.error as PlanValidationError).code).toBe('PLAN_INVALID');
    expect(result.error!.message).toMatch(/PlanExecuteAgent 'Trip' got no usable plan from its planner 'Planner'/);
    expect(result.error!.message).toMatch(/outputSchema: planSchema/);
    expect(executor.requests).toHaveLength(0);
  });

  it('cancelled mid-pattern: no further step starts; one CANCELLED event is stored', async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const executor = new FunctionAgent({
      name: 'Executor',
      run: (_input, ctx) => {
        const step = (ctx.session.state.plan as { steps: string[] }).steps[0]!;
        started.push(step);
        controller.abort();
        return `did ${step}`;
      },
    });
    const agent = new PlanExecuteAgent({
      name: 'Trip',
      planner: new LlmAgent({
        name: 'Planner',
        model: new ScriptedModel([plan('one', 'two')]),
        outputSchema: planSchema,
      }),
      executor,
    });
    const result = await runOnce(agent, 'Go', { abortSignal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(started).toEqual(['one']);
    const session = await result.runner.sessionService.getSession({
      appName: result.runner.appName,
      userId: 'u',
      sessionId: result.sessionId,
    });
    expect(session!.events.filter((e) => e.errorCode === 'CANCELLED')).toHaveLength(1);
  });

  it('an approval inside the executor resumes the same step with a new runner over the same SQLite file', async () => {
    const dir = tempDir('troupe-plan-');
    const db = join(dir, 'trip.db');
    const booked: string[] = [];
    const bookHotel = () =>
      new FunctionTool({
        name: 'book_hotel',
        description: 'Books a hotel room.',
        parameters: z.object({ hotel: z.string() }),
        requireConfirmation: true,
        execute: ({ hotel }) => {
          booked.push(hotel);
          return { booked: hotel };
        },
      });

    const first = new SqliteSessionService({ path: db });
    const planner = new ScriptedModel([plan('Find a hotel', 'Book the hotel', 'Write the summary')]);
    const executor = new ScriptedModel([
      'Hotel Alfama is free',
      { functionCalls: [{ name: 'book_hotel', args: { hotel: 'Alfama' }, id: 'b1' }] },
    ]);
    const runner = new Runner({
      appName: 'trips',
      agent: trip({ planner, executor }, { tools: [bookHotel()] }),
      sessionService: first,
    });
    const session = await first.createSession({ appName: 'trips', userId: 'u' });
    const paused = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'Book me a hotel in Lisbon' });
    expect(paused.status).toBe('interrupted');
    expect(booked).toEqual([]);
    await first.close();

    // A new runner, a new agent tree and new models: only the SQLite file is shared.
    const second = new SqliteSessionService({ path: db });
    const planner2 = new ScriptedModel([]);
    const executor2 = new ScriptedModel(['Booked Alfama', 'Summary: Alfama, 2 nights']);
    const runner2 = new Runner({
      appName: 'trips',
      agent: trip({ planner: planner2, executor: executor2 }, { tools: [bookHotel()] }),
      sessionService: second,
    });
    const resumed = await runner2.resume({
      userId: 'u',
      sessionId: session.id,
      responses: { [paused.interrupts[0]!.id]: true },
    });
    expect(resumed.status).toBe('completed');
    expect(resumed.output).toBe('Summary: Alfama, 2 nights');
    expect(booked).toEqual(['Alfama']);
    expect(planner2.requests).toHaveLength(0); // no new plan
    expect(executor2.requests).toHaveLength(2); // the rest of step 2, then step 3; step 1 not repeated
    const events = (await second.getSession({ appName: 'trips', userId: 'u', sessionId: session.id }))!.events;
    await second.close();
    expect(
      events
        .flatMap(getFunctionResponses)
        .filter((r) => r.name === 'book_hotel')
        .map((r) => r.response),
    ).toEqual([{ booked: 'Alfama' }]);
    expect(stepMessages(events)).toEqual([
      'Step 1: Find a hotel',
      'Step 2: Book the hotel',
      'Step 3: Write the summary',
    ]);
    expect(records(events).at(-1)).toEqual({ stopReason: 'planCompleted', iterations: 3 });
    expect(
      events.find((e) => e.actions.stateDelta.pastSteps && e.actions.endOfAgent)!.actions.stateDelta.pastSteps,
    ).toEqual([
      { step: 'Find a hotel', result: 'Hotel Alfama is free' },
      { step: 'Book the hotel', result: 'Booked Alfama' },
      { step: 'Write the summary', result: 'Summary: Alfama, 2 nights' },
    ]);
  });

  it('nests inside a SequentialAgent, which carries on after it', async () => {
    const planner = new ScriptedModel([plan('Check the weather')]);
    const executor = new ScriptedModel(['Sunny']);
    const report = new FunctionAgent({
      name: 'Report',
      run: (_input, ctx) =>
        `${(ctx.state.get('pastSteps') as { result: string }[]).length} step(s): ${String((ctx.state.get('pastSteps') as { result: string }[])[0]!.result)}`,
    });
    const result = await runOnce(
      new SequentialAgent({ name: 'Flow', subAgents: [trip({ planner, executor }), report] }),
      'Weather?',
    );
    expect(result.status).toBe('completed');
    expect(result.output).toBe('1 step(s): Sunny');
    expect(result.events.find((e) => e.author === 'Executor')!.path).toBe('Flow/Trip/Executor');
  });

  it('rejects bad configuration with the fix', () => {
    const llm = (name: string, withSchema = false) =>
      new LlmAgent({ name, model: new ScriptedModel([]), ...(withSchema ? { outputSchema: planSchema } : {}) });
    const make = (options: Record<string, unknown>) => () =>
      new PlanExecuteAgent({ name: 'Trip', ...options } as never);
    expect(make({ executor: llm('E') })).toThrow(/PlanExecuteAgent 'Trip' has no planner .*outputSchema: planSchema/);
    expect(make({ planner: llm('P', true) })).toThrow(/PlanExecuteAgent 'Trip' has no executor/);
    expect(make({ planner: llm('P'), executor: llm('E') })).toThrow(
      /planner 'P' has no outputSchema.*Give it outputSchema: planSchema/,
    );
    expect(make({ planner: llm('P', true), executor: llm('E'), replanner: llm('R') })).toThrow(
      /replanner 'R' has no outputSchema.*replanSchema/,
    );
    expect(make({ planner: llm('P', true), executor: llm('E'), maxIterations: 0 })).toThrow(ConfigurationError);
    expect(make({ planner: llm('P', true), executor: llm('E'), maxIterations: 1.5 })).toThrow(
      /maxIterations 1.5; use a whole number of at least 1/,
    );
  });
});

describe('PlanExecuteAgent: more stops and resumes', () => {
  it('a replanner answer with neither respond nor steps is repaired once', async () => {
    const planner = new ScriptedModel([plan('Look')]);
    const executor = new ScriptedModel(['seen']);
    const replanner = new ScriptedModel(['{}', respond('All seen.')]);
    const result = await runOnce(trip({ planner, executor, replanner }), 'Look around');
    expect(result.output).toBe('All seen.');
    expect(texts(replanner.requests[1]!.contents).at(-1)).toMatch(/give either 'respond'/);
  });

  it('drained in the middle of a step: resume runs that step again, never the finished ones or the planner', async () => {
    const controller = new AbortController();
    const ran: string[] = [];
    let drain = true;
    const executor = new FunctionAgent({
      name: 'Executor',
      run: (_input, ctx) => {
        const step = (ctx.session.state.plan as { steps: string[] }).steps[0]!;
        ran.push(step);
        if (step === 'two' && drain) controller.abort(new RunDrainedError());
        return `did ${step}`;
      },
    });
    const planner = new ScriptedModel([plan('one', 'two', 'three')]);
    const agent = new PlanExecuteAgent({
      name: 'Trip',
      planner: new LlmAgent({ name: 'Planner', model: planner, outputSchema: planSchema }),
      executor,
    });
    const runner = new InMemoryRunner({ agent });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const first = await runner.run({
      userId: 'u',
      sessionId: session.id,
      newMessage: 'Go',
      invocationId: 'job-1',
      abortSignal: controller.signal,
    });
    expect(first.status).toBe('cancelled');
    drain = false;
    const resumed = await runner.resume({ userId: 'u', sessionId: session.id, invocationId: 'job-1' });
    expect(resumed.status).toBe('completed');
    expect(resumed.output).toBe('did three');
    expect(planner.requests).toHaveLength(1);
    expect(ran.filter((s) => s === 'one')).toEqual(['one']);
    expect(ran.at(-1)).toBe('three');
    expect(resumed.state.pastSteps).toEqual([
      { step: 'one', result: 'did one' },
      { step: 'two', result: 'did two' },
      { step: 'three', result: 'did three' },
    ]);
  });
});
