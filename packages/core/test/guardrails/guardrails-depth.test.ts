import { describe, expect, it } from 'vitest';
import {
  AgentTool,
  FunctionTool,
  GuardrailTrippedError,
  InMemoryRunner,
  LlmAgent,
  LoopAgent,
  ParallelAgent,
  RoutedAgent,
  SequentialAgent,
  TeamAgent,
  type BaseAgent,
  type Event,
  type InputGuardrail,
} from '@troupe/core';
import { GroupChatAgent, PlanExecuteAgent, SupervisorAgent, planSchema, replanSchema } from '@troupe/core/patterns';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce } from '../helpers.js';

// A tripwire deep in the tree ends the whole run 'blocked', with one GUARDRAIL_TRIPPED event stored
// by the innermost agent, and nothing runs after it — through every way agents nest.

function sideEffectTool(counter: { runs: number }, name = 'send_email'): FunctionTool {
  return new FunctionTool({ name, description: 'Has a side effect.', execute: () => ({ done: ++counter.runs }) });
}

const blockAll: InputGuardrail = { name: 'block_all', check: () => ({ tripwire: true, info: 'blocked for the test' }) };

/** An agent whose input guardrail trips while its model would have called a side-effecting tool. */
function guardedAgent(name: string, counter: { runs: number }): { agent: LlmAgent; model: ScriptedModel } {
  const model = new ScriptedModel([{ functionCalls: [{ name: 'send_email', args: {} }] }, 'sent']);
  return { agent: new LlmAgent({ name, model, tools: [sideEffectTool(counter)], inputGuardrails: [blockAll] }), model };
}

async function storedEvents(result: Awaited<ReturnType<typeof runOnce>>): Promise<Event[]> {
  const session = await result.runner.sessionService.getSession({
    appName: result.runner.appName,
    userId: 'u',
    sessionId: result.sessionId,
  });
  return session!.events;
}

async function expectBlockedBy(
  result: Awaited<ReturnType<typeof runOnce>>,
  agentName: string,
  path: string,
): Promise<Event> {
  expect(result.status).toBe('blocked');
  expect(result.error).toBeInstanceOf(GuardrailTrippedError);
  expect((result.error as GuardrailTrippedError).agent).toBe(agentName);
  const tripped = (await storedEvents(result)).filter((e) => e.errorCode === 'GUARDRAIL_TRIPPED');
  expect(tripped).toHaveLength(1);
  expect(tripped[0]!.author).toBe(agentName);
  expect(tripped[0]!.path).toBe(path);
  expect(tripped[0]!.errorMessage).toContain("Guardrail 'block_all'");
  // Nothing failed as a tool error: no error response reached any caller.
  expect(
    (await storedEvents(result)).some((e) =>
      e.content?.parts.some((p) => 'functionResponse' in p && 'error' in p.functionResponse.response),
    ),
  ).toBe(false);
  return tripped[0]!;
}

describe('a tripwire at any depth blocks the whole run', () => {
  it('inside an AgentTool: the caller gets no error response and is not called again', async () => {
    const counter = { runs: 0 };
    const inner = guardedAgent('Researcher', counter);
    const callerModel = new ScriptedModel([{ functionCalls: [{ name: 'Researcher', args: { request: 'dig' } }] }]);
    const caller = new LlmAgent({ name: 'Lead', model: callerModel, tools: [new AgentTool({ agent: inner.agent })] });
    const result = await runOnce(caller, 'research this');
    await expectBlockedBy(result, 'Researcher', 'Lead/Researcher');
    expect(counter.runs).toBe(0);
    expect(callerModel.callCount).toBe(1);
    expect(inner.model.callCount).toBe(1);
  });

  it('inside a SupervisorAgent worker (AgentTool): an output tripwire stops the supervisor', async () => {
    const workerModel = new ScriptedModel(['the password is hunter2']);
    const worker = new LlmAgent({
      name: 'Worker',
      model: workerModel,
      outputKey: 'work',
      outputGuardrails: [
        { name: 'block_all', check: (_ctx, output) => ({ tripwire: String(output).includes('password') }) },
      ],
    });
    const supervisorModel = new ScriptedModel([{ functionCalls: [{ name: 'Worker', args: { request: 'do it' } }] }]);
    const supervisor = new SupervisorAgent({ name: 'Boss', model: supervisorModel, subAgents: [worker] });
    const result = await runOnce(supervisor, 'go');
    await expectBlockedBy(result, 'Worker', 'Boss/Worker');
    expect(result.state).not.toHaveProperty('work');
    expect(supervisorModel.callCount).toBe(1);
  });

  it('inside a TeamAgent skill: later skills do not run', async () => {
    const counter = { runs: 0 };
    const first = guardedAgent('Drafter', counter);
    const laterModel = new ScriptedModel([]);
    const later = new LlmAgent({ name: 'Editor', model: laterModel });
    const team = new TeamAgent({ name: 'Team', skills: [first.agent, later] });
    const result = await runOnce(team, 'write');
    await expectBlockedBy(result, 'Drafter', 'Team/Drafter');
    expect(counter.runs).toBe(0);
    expect(laterModel.callCount).toBe(0);
  });

  it('inside a SequentialAgent: the next step does not run', async () => {
    const counter = { runs: 0 };
    const first = guardedAgent('Step1', counter);
    const next = new LlmAgent({
      name: 'Step2',
      model: new ScriptedModel([{ functionCalls: [{ name: 'other', args: {} }] }]),
      tools: [sideEffectTool(counter, 'other')],
    });
    const result = await runOnce(new SequentialAgent({ name: 'Pipeline', subAgents: [first.agent, next] }), 'start');
    await expectBlockedBy(result, 'Step1', 'Pipeline/Step1');
    expect(counter.runs).toBe(0);
  });

  it('inside a ParallelAgent: the sibling branch stops and its side-effecting tool never runs', async () => {
    const counter = { runs: 0 };
    const blocked = guardedAgent('Checker', counter);
    // The sibling's model answers late (its wait ends when the branch is aborted) with a side-effecting call.
    const siblingModel = new ScriptedModel([
      { delayMs: 10_000, reply: { functionCalls: [{ name: 'charge_card', args: {} }] } },
      'charged',
    ]);
    const sibling = new LlmAgent({
      name: 'Charger',
      model: siblingModel,
      tools: [sideEffectTool(counter, 'charge_card')],
    });
    const result = await runOnce(new ParallelAgent({ name: 'Both', subAgents: [blocked.agent, sibling] }), 'go');
    const tripped = await expectBlockedBy(result, 'Checker', 'Both/Checker');
    expect(tripped.errorMessage).toContain("agent 'Checker'");
    expect(counter.runs).toBe(0);
    expect(siblingModel.callCount).toBe(1);
    // The sibling stored nothing: it was stopped before its model answered.
    expect((await storedEvents(result)).some((e) => e.author === 'Charger')).toBe(false);
  });

  it('inside a LoopAgent: no further iteration', async () => {
    const counter = { runs: 0 };
    const toolModel = new ScriptedModel([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 10 } }] },
      'ok',
      { functionCalls: [{ name: 'transfer_money', args: { amount: 5000 } }] },
    ]);
    const tool = new FunctionTool({
      name: 'transfer_money',
      description: 'Moves money.',
      guardrails: [{ name: 'block_all', check: (_ctx, args) => ({ tripwire: Number(args.amount) > 1000 }) }],
      execute: () => ({ moved: ++counter.runs }),
    });
    const payer = new LlmAgent({ name: 'Payer', model: toolModel, tools: [tool] });
    const result = await runOnce(new LoopAgent({ name: 'Repeat', subAgents: [payer], maxIterations: 5 }), 'pay');
    const tripped = await expectBlockedBy(result, 'Payer', 'Repeat/Payer');
    expect(tripped.errorMessage).toContain("tool 'transfer_money'");
    expect(counter.runs).toBe(1);
    expect(toolModel.callCount).toBe(3);
  });

  it('inside a RoutedAgent: the router does not fall back to another agent', async () => {
    const counter = { runs: 0 };
    const chosen = guardedAgent('Primary', counter);
    const fallbackModel = new ScriptedModel([]);
    const fallback = new LlmAgent({ name: 'Backup', model: fallbackModel });
    const routerCalls: unknown[] = [];
    const routed = new RoutedAgent({
      name: 'Router',
      agents: [chosen.agent, fallback],
      router: (_agents, _ctx, errorContext) => {
        routerCalls.push(errorContext);
        return errorContext ? 'Backup' : 'Primary';
      },
    });
    const result = await runOnce(routed, 'hi');
    await expectBlockedBy(result, 'Primary', 'Router/Primary');
    expect(routerCalls).toEqual([undefined]);
    expect(fallbackModel.callCount).toBe(0);
  });

  it('through a transfer: the target agent’s guardrail blocks the run', async () => {
    const counter = { runs: 0 };
    const target = guardedAgent('Billing', counter);
    const root = new LlmAgent({
      name: 'Desk',
      model: new ScriptedModel([{ functionCalls: [{ name: 'transfer_to_agent', args: { agent_name: 'Billing' } }] }]),
      subAgents: [target.agent],
    });
    const result = await runOnce(root, 'refund me');
    await expectBlockedBy(result, 'Billing', 'Desk/Billing');
    expect(counter.runs).toBe(0);
  });
});

describe('a tripwire inside the prebuilt patterns', () => {
  it('PlanExecuteAgent: a tool guardrail in the executor stops the plan; the replanner is not called', async () => {
    const counter = { runs: 0 };
    const tool = new FunctionTool({
      name: 'book',
      description: 'Books.',
      guardrails: [{ name: 'block_all', check: (_ctx, args) => ({ tripwire: String(args.what).includes('casino') }) }],
      execute: () => ({ booked: ++counter.runs }),
    });
    const replannerModel = new ScriptedModel([]);
    const agent = new PlanExecuteAgent({
      name: 'Trip',
      planner: new LlmAgent({
        name: 'Planner',
        model: new ScriptedModel([JSON.stringify({ steps: ['Book a casino night', 'Book a hotel'] })]),
        outputSchema: planSchema,
      }),
      executor: new LlmAgent({
        name: 'Executor',
        model: new ScriptedModel([{ functionCalls: [{ name: 'book', args: { what: 'casino night' } }] }]),
        tools: [tool],
      }),
      replanner: new LlmAgent({ name: 'Replanner', model: replannerModel, outputSchema: replanSchema }),
    });
    const result = await runOnce(agent, 'plan a weekend');
    await expectBlockedBy(result, 'Executor', 'Trip/Executor');
    expect(counter.runs).toBe(0);
    expect(replannerModel.callCount).toBe(0);
  });

  it('GroupChatAgent: an output tripwire of one participant ends the chat; the next one does not speak', async () => {
    const nextModel = new ScriptedModel([]);
    const chat = new GroupChatAgent({
      name: 'Chat',
      participants: [
        new LlmAgent({
          name: 'Alice',
          model: new ScriptedModel(['my password is hunter2']),
          outputGuardrails: [
            { name: 'block_all', check: (_ctx, output) => ({ tripwire: String(output).includes('password') }) },
          ],
        }),
        new LlmAgent({ name: 'Bob', model: nextModel }),
      ],
      selector: 'round_robin',
      maxTurns: 4,
    });
    const result = await runOnce(chat, 'chat');
    await expectBlockedBy(result, 'Alice', 'Chat/Alice');
    expect(nextModel.callCount).toBe(0);
    expect((await storedEvents(result)).some((e) => e.content && JSON.stringify(e.content).includes('hunter2'))).toBe(
      false,
    );
  });
});

describe('streaming with input guardrails that pass', () => {
  it('yields every held chunk, in order, once they pass', async () => {
    let answered!: () => void;
    const modelAnswered = new Promise<void>((resolve) => (answered = resolve));
    const model = new ScriptedModel([
      () => {
        answered();
        return { chunks: ['Hel', 'lo ', 'there'] };
      },
    ]);
    const agent = new LlmAgent({
      name: 'Greeter',
      model,
      inputGuardrails: [{ name: 'slow_ok', check: async () => (await modelAnswered, { tripwire: false }) }],
    });
    const runner = new InMemoryRunner({ agent });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const seen: Event[] = [];
    for await (const event of runner.runAsync({
      userId: 'u',
      sessionId: session.id,
      newMessage: 'hi',
      runConfig: { streaming: 'sse' },
    }))
      seen.push(event);
    expect(
      seen.filter((e) => e.partial).map((e) => e.content?.parts.map((p) => ('text' in p ? p.text : '')).join('')),
    ).toEqual(['Hel', 'lo ', 'there']);
    expect(seen.at(-1)!.partial).toBeUndefined();
    expect(seen.at(-1)!.output).toBe('Hello there');
  });
});

describe('runAsync with a tripwire', () => {
  it('yields the GUARDRAIL_TRIPPED event, then throws the GuardrailTrippedError', async () => {
    const agent: BaseAgent = new LlmAgent({
      name: 'Gate',
      model: new ScriptedModel([]),
      inputGuardrails: [{ ...blockAll, blocking: true }],
    });
    const runner = new InMemoryRunner({ agent });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const seen: Event[] = [];
    let thrown: unknown;
    try {
      for await (const event of runner.runAsync({ userId: 'u', sessionId: session.id, newMessage: 'hi' }))
        seen.push(event);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GuardrailTrippedError);
    expect(seen.at(-1)!.errorCode).toBe('GUARDRAIL_TRIPPED');
    // The session is free: the next turn runs.
    await expect(runner.run({ userId: 'u', sessionId: session.id, newMessage: 'again' })).resolves.toMatchObject({
      status: 'blocked',
    });
  });
});
