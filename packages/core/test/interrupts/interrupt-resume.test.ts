import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AgentTool,
  FunctionAgent,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  LoopAgent,
  ParallelAgent,
  PendingInterruptError,
  Runner,
  SequentialAgent,
  getFunctionResponses,
  type BaseAgent,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';

async function setup(agent: BaseAgent, service = new InMemorySessionService()) {
  const runner = new Runner({ appName: 'hitl', agent, sessionService: service });
  const session = await service.createSession({ appName: 'hitl', userId: 'u' });
  return { runner, service, sessionId: session.id, userId: 'u' };
}

function transferTool(log: string[]) {
  return new FunctionTool({
    name: 'transfer_money',
    description: 'Transfers money.',
    parameters: z.object({ amount: z.number() }),
    requireConfirmation: ({ amount }) => amount > 100,
    execute: ({ amount }) => {
      log.push(`sent ${amount}`);
      return { status: 'sent', amount };
    },
  });
}

describe('interrupt and resume', () => {
  it('requireConfirmation pauses before the tool runs; approval runs it exactly once and the same invocation continues', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 500 }, id: 'c1' }] },
      'Done: sent 500.',
    ]);
    const agent = new LlmAgent({ name: 'Banker', model, tools: [transferTool(log)] });
    const { runner, sessionId, userId, service } = await setup(agent);

    const paused = await runner.run({ userId, sessionId, newMessage: 'send 500' });
    expect(paused.status).toBe('interrupted');
    expect(paused.usage.byAgent.Banker!.inputTokens).toBeGreaterThan(0);
    expect(paused.usage.outputTokens).toBe(paused.events.reduce((sum, e) => sum + (e.usage?.outputTokens ?? 0), 0));
    expect(log).toEqual([]);
    expect(paused.interrupts).toEqual([
      expect.objectContaining({
        id: 'Banker:c1',
        kind: 'confirmation',
        agentPath: 'Banker',
        toolCallId: 'c1',
        toolName: 'transfer_money',
        args: { amount: 500 },
      }),
    ]);
    expect(paused.events.at(-1)!.interrupt!.id).toBe('Banker:c1');

    await expect(runner.run({ userId, sessionId, newMessage: 'hello?' })).rejects.toBeInstanceOf(PendingInterruptError);

    const resumed = await runner.resume({ userId, sessionId, responses: { 'Banker:c1': true } });
    expect(resumed.status).toBe('completed');
    expect(log).toEqual(['sent 500']);
    expect(resumed.output).toBe('Done: sent 500.');
    expect(new Set(resumed.events.map((e) => e.invocationId))).toEqual(new Set([paused.events[0]!.invocationId]));
    const responses = resumed.events.flatMap(getFunctionResponses);
    expect(responses).toEqual([{ id: 'c1', name: 'transfer_money', response: { status: 'sent', amount: 500 } }]);
    // The model saw its call answered exactly once.
    expect(JSON.stringify(model.requests[1]!.contents).match(/functionResponse/g)).toHaveLength(1);

    // A second answer to the answered approval: refused, naming it; nothing is stored.
    await expect(runner.resume({ userId, sessionId, responses: { 'Banker:c1': true } })).rejects.toMatchObject({
      code: 'INTERRUPT_ANSWERED',
      interruptId: 'Banker:c1',
      invocationId: paused.invocationId,
    });
    const session = await service.getSession({ appName: 'hitl', userId, sessionId });
    expect(session!.events.filter((e) => e.interrupt)).toHaveLength(1);
  });

  it('a rejection never runs the tool and the model is told', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 500 }, id: 'c1' }] },
      'OK, cancelled.',
    ]);
    const { runner, sessionId, userId } = await setup(
      new LlmAgent({ name: 'Banker', model, tools: [transferTool(log)] }),
    );
    await runner.run({ userId, sessionId, newMessage: 'send 500' });
    const result = await runner.resume({
      userId,
      sessionId,
      responses: { 'Banker:c1': { confirmed: false, payload: { reason: 'too much' } } },
    });
    expect(result.status).toBe('completed');
    expect(log).toEqual([]);
    const [response] = result.events.flatMap(getFunctionResponses);
    expect(response!.response.error).toMatch(/rejected/);
    expect(response!.response.payload).toEqual({ reason: 'too much' });
  });

  it('requestInput returns the validated answer; a bad answer or a wrong id fails and changes nothing', async () => {
    const askDate = new FunctionTool({
      name: 'ask_date',
      description: 'Asks the user for a date.',
      execute: async (_args, ctx) => {
        const answer = await ctx.requestInput<{ date: string }>({
          message: 'Which date?',
          responseSchema: { type: 'object', properties: { date: { type: 'string' } }, required: ['date'] },
        });
        return { date: answer.date };
      },
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'ask_date', id: 'q1' }] }, 'Booked for Monday.']);
    const { runner, sessionId, userId, service } = await setup(
      new LlmAgent({ name: 'Booker', model, tools: [askDate] }),
    );
    const paused = await runner.run({ userId, sessionId, newMessage: 'book' });
    expect(paused.interrupts[0]).toMatchObject({ id: 'Booker:q1', kind: 'input', message: 'Which date?' });
    const before = (await service.getSession({ appName: 'hitl', userId, sessionId }))!.events.length;

    await expect(runner.resume({ userId, sessionId, responses: { 'Booker:q1': { day: 'Monday' } } })).rejects.toThrow(
      /does not match its responseSchema.*date/,
    );
    await expect(runner.resume({ userId, sessionId, responses: { 'Booker:nope': 1 } })).rejects.toThrow(
      /no open interrupt 'Booker:nope'.*Open interrupts: Booker:q1/,
    );
    expect((await service.getSession({ appName: 'hitl', userId, sessionId }))!.events.length).toBe(before);

    const done = await runner.resume({ userId, sessionId, responses: { 'Booker:q1': { date: 'Monday' } } });
    expect(done.status).toBe('completed');
    expect(done.events.flatMap(getFunctionResponses)[0]!.response).toEqual({ date: 'Monday' });
  });

  it('earlier tool calls of the same turn are not re-run; other open interrupts stay open until answered', async () => {
    const ran: string[] = [];
    const quick = new FunctionTool({
      name: 'quick',
      description: 'quick',
      execute: () => {
        ran.push('quick');
        return 'q';
      },
    });
    const guarded = (name: string) =>
      new FunctionTool({
        name,
        description: name,
        requireConfirmation: true,
        execute: () => {
          ran.push(name);
          return name;
        },
      });
    const model = new ScriptedModel([
      {
        functionCalls: [
          { name: 'quick', id: 'a' },
          { name: 'g1', id: 'b' },
          { name: 'g2', id: 'c' },
        ],
      },
      'all done',
    ]);
    const { runner, sessionId, userId } = await setup(
      new LlmAgent({ name: 'A', model, tools: [quick, guarded('g1'), guarded('g2')] }),
    );
    const paused = await runner.run({ userId, sessionId, newMessage: 'go' });
    expect(paused.interrupts.map((i) => i.id)).toEqual(['A:b', 'A:c']);
    expect(ran).toEqual(['quick']);

    const half = await runner.resume({ userId, sessionId, responses: { 'A:b': true } });
    expect(half.status).toBe('interrupted');
    expect(half.interrupts.map((i) => i.id)).toEqual(['A:c']);
    expect(ran).toEqual(['quick', 'g1']);
    expect(model.requests).toHaveLength(1);

    const done = await runner.resume({ userId, sessionId, responses: { 'A:c': true } });
    expect(done.status).toBe('completed');
    expect(ran).toEqual(['quick', 'g1', 'g2']);
    const second = model.requests[1]!.contents;
    const answered = second.flatMap((c) => c.parts).filter((p) => 'functionResponse' in p);
    expect(answered).toHaveLength(3);
  });

  it('sequential steps already finished are not re-run; the pipeline continues after the paused step', async () => {
    const ran: string[] = [];
    const step = (name: string) =>
      new FunctionAgent({
        name,
        run: () => {
          ran.push(name);
          return name;
        },
      });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 1000 }, id: 'x' }] },
      'approved and sent',
    ]);
    const approver = new LlmAgent({ name: 'Approver', model, tools: [transferTool(ran)] });
    const { runner, sessionId, userId } = await setup(
      new SequentialAgent({ name: 'Flow', subAgents: [step('Prepare'), approver, step('Report')] }),
    );
    const paused = await runner.run({ userId, sessionId, newMessage: 'go' });
    expect(paused.status).toBe('interrupted');
    expect(paused.interrupts[0]!.id).toBe('Flow/Approver:x');
    expect(ran).toEqual(['Prepare']);
    const done = await runner.resume({ userId, sessionId, responses: { 'Flow/Approver:x': true } });
    expect(done.status).toBe('completed');
    expect(ran).toEqual(['Prepare', 'sent 1000', 'Report']);
    expect(done.output).toBe('Report');
  });

  it('a parallel branch pauses while its sibling finishes; on resume the sibling is not re-run', async () => {
    const ran: string[] = [];
    const sibling = new FunctionAgent({
      name: 'Sibling',
      outputKey: 'sib',
      run: async () => {
        await new Promise((r) => setTimeout(r, 20));
        ran.push('Sibling');
        return 'sibling done';
      },
    });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 200 }, id: 'p' }] },
      'branch done',
    ]);
    const guarded = new LlmAgent({ name: 'Guarded', model, tools: [transferTool(ran)] });
    const fan = new ParallelAgent({ name: 'Fan', subAgents: [guarded, sibling] });
    const after = new FunctionAgent({ name: 'After', run: (_i, ctx) => `after sees ${String(ctx.state.get('sib'))}` });
    const { runner, sessionId, userId } = await setup(new SequentialAgent({ name: 'Flow', subAgents: [fan, after] }));
    const paused = await runner.run({ userId, sessionId, newMessage: 'go' });
    expect(paused.status).toBe('interrupted');
    expect(ran).toEqual(['Sibling']);
    expect(paused.events.some((e) => e.author === 'After')).toBe(false);
    const done = await runner.resume({ userId, sessionId, responses: { 'Flow/Fan/Guarded:p': true } });
    expect(done.status).toBe('completed');
    expect(ran).toEqual(['Sibling', 'sent 200']);
    const fanEnd = done.events.find((e) => e.author === 'Fan' && e.actions.endOfAgent)!;
    expect(fanEnd.output).toEqual({ Guarded: 'branch done', Sibling: 'sibling done' });
    expect(done.output).toBe('after sees sibling done');
  });

  it('an interrupt inside an AgentTool resumes inside the tool call; the caller then continues', async () => {
    const ran: string[] = [];
    const innerModel = new ScriptedModel([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 300 }, id: 'in1' }] },
      'inner: sent',
    ]);
    const inner = new LlmAgent({
      name: 'Payments',
      description: 'Makes payments.',
      model: innerModel,
      tools: [transferTool(ran)],
    });
    const outerModel = new ScriptedModel([
      { functionCalls: [{ name: 'Payments', args: { request: 'pay 300' }, id: 'out1' }] },
      'outer: all good',
    ]);
    const outer = new LlmAgent({ name: 'Assistant', model: outerModel, tools: [new AgentTool({ agent: inner })] });
    const { runner, sessionId, userId } = await setup(outer);
    const paused = await runner.run({ userId, sessionId, newMessage: 'pay my bill' });
    expect(paused.status).toBe('interrupted');
    expect(paused.interrupts[0]).toMatchObject({ id: 'Assistant/Payments:in1', agentPath: 'Assistant/Payments' });
    const done = await runner.resume({ userId, sessionId, responses: { 'Assistant/Payments:in1': true } });
    expect(done.status).toBe('completed');
    expect(ran).toEqual(['sent 300']);
    expect(done.output).toBe('outer: all good');
    expect(
      getFunctionResponses(done.events.find((e) => e.author === 'Assistant' && getFunctionResponses(e).length)!)[0]!
        .response,
    ).toEqual({ result: 'inner: sent' });
    // The inner agent's resumed request still has its own conversation and nothing of the caller's.
    const innerSecond = JSON.stringify(innerModel.requests[1]!.contents);
    expect(innerSecond).toContain('pay 300');
    expect(innerSecond).not.toContain('pay my bill');
    expect(outerModel.requests).toHaveLength(2);
  });

  it('an interrupt after a transfer resumes in the transferred-to agent', async () => {
    const ran: string[] = [];
    const bookerModel = new ScriptedModel([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 999 }, id: 'b1' }] },
      'paid the hotel',
    ]);
    const booker = new LlmAgent({
      name: 'Booker',
      description: 'Books and pays.',
      model: bookerModel,
      tools: [transferTool(ran)],
    });
    const coordModel = new ScriptedModel([
      { functionCalls: [{ name: 'transfer_to_agent', args: { agent_name: 'Booker' } }] },
    ]);
    const { runner, sessionId, userId } = await setup(
      new LlmAgent({ name: 'Coordinator', model: coordModel, subAgents: [booker] }),
    );
    const paused = await runner.run({ userId, sessionId, newMessage: 'book and pay' });
    expect(paused.interrupts[0]!.id).toBe('Coordinator/Booker:b1');
    const done = await runner.resume({ userId, sessionId, responses: { 'Coordinator/Booker:b1': true } });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('paid the hotel');
    expect(coordModel.requests).toHaveLength(1);
    expect(ran).toEqual(['sent 999']);
  });

  it('an interrupt inside a LoopAgent resumes in the same iteration and the loop carries on', async () => {
    const ran: string[] = [];
    let iterations = 0;
    const counter = new FunctionAgent({
      name: 'Counter',
      run: (_i, ctx) => {
        iterations++;
        if (iterations === 3) ctx.actions.escalate = true;
        return iterations;
      },
    });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 101 }, id: 'l1' }] },
      'ok 1',
      'ok 2',
      'ok 3',
    ]);
    const payer = new LlmAgent({ name: 'Payer', model, tools: [transferTool(ran)] });
    const { runner, sessionId, userId } = await setup(
      new LoopAgent({ name: 'Loop', maxIterations: 5, subAgents: [payer, counter] }),
    );
    const paused = await runner.run({ userId, sessionId, newMessage: 'go' });
    expect(paused.status).toBe('interrupted');
    expect(iterations).toBe(0);
    const done = await runner.resume({ userId, sessionId, responses: { 'Loop/Payer:l1': true } });
    expect(done.status).toBe('completed');
    expect(iterations).toBe(3);
    expect(ran).toEqual(['sent 101']);
    expect(done.events.at(-1)!.actions.agentState).toMatchObject({ stopReason: 'escalated', iterations: 3 });
    model.assertDone();
  });

  it('abandonInterrupts starts a new turn; the old interrupts are no longer open', async () => {
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 500 }, id: 'c1' }] },
      'new topic answer',
    ]);
    const { runner, sessionId, userId } = await setup(
      new LlmAgent({ name: 'Banker', model, tools: [transferTool([])] }),
    );
    await runner.run({ userId, sessionId, newMessage: 'send 500' });
    const next = await runner.run({
      userId,
      sessionId,
      newMessage: 'never mind',
      runConfig: { abandonInterrupts: true },
    });
    expect(next.status).toBe('completed');
    await expect(runner.resume({ userId, sessionId, responses: { 'Banker:c1': true } })).rejects.toThrow(
      /no open interrupts/,
    );
  });

  it('resume works from a second runner over the same store (as a new process would)', async () => {
    const service = new InMemorySessionService();
    const log: string[] = [];
    const build = (model: ScriptedModel) => new LlmAgent({ name: 'Banker', model, tools: [transferTool(log)] });
    const first = await setup(
      build(new ScriptedModel([{ functionCalls: [{ name: 'transfer_money', args: { amount: 700 }, id: 'z' }] }])),
      service,
    );
    await first.runner.run({ userId: 'u', sessionId: first.sessionId, newMessage: 'send 700' });
    const secondModel = new ScriptedModel(['sent it']);
    const second = new Runner({ appName: 'hitl', agent: build(secondModel), sessionService: service });
    const done = await second.resume({ userId: 'u', sessionId: first.sessionId, responses: { 'Banker:z': true } });
    expect(done.status).toBe('completed');
    expect(log).toEqual(['sent 700']);
    expect(done.output).toBe('sent it');
  });

  it('a run whose process died can be resumed by invocation id without repeating finished steps', async () => {
    const ran: string[] = [];
    const step = (name: string, fail = false) =>
      new FunctionAgent({
        name,
        run: () => {
          ran.push(name);
          if (fail && ran.filter((r) => r === name).length === 1) throw new Error('crash');
          return name;
        },
      });
    const { runner, sessionId, userId } = await setup(
      new SequentialAgent({ name: 'Flow', subAgents: [step('One'), step('Two', true), step('Three')] }),
    );
    const crashed = await runner.run({ userId, sessionId, newMessage: 'go' });
    expect(crashed.status).toBe('failed');
    const invocationId = crashed.events[0]!.invocationId;
    const resumed = await runner.resume({ userId, sessionId, invocationId });
    expect(resumed.status).toBe('completed');
    expect(ran).toEqual(['One', 'Two', 'Two', 'Three']);
    expect(resumed.output).toBe('Three');
  });
});
