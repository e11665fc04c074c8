import { EventType, type RunStartedEvent, type ToolCallResultEvent } from '@ag-ui/client';
import { describe, expect, it, vi } from 'vitest';
import { FunctionTool, LlmAgent, ParallelAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { AG_UI_USER } from '../../src/index.js';
import { transferTool } from '../helpers.js';
import { client, input, ofType, post, runOnce, say, serveApps } from './helpers.js';

function bank(replies: ConstructorParameters<typeof ScriptedModel>[0]) {
  const sent: number[] = [];
  const transfer = transferTool(sent);
  const askPin = new FunctionTool({
    name: 'ask_pin',
    description: 'Asks the user for their PIN.',
    execute: async (_args, ctx) => ({
      pin: await ctx.requestInput<string>({
        message: 'Your 4-digit PIN?',
        responseSchema: { type: 'string', pattern: '^[0-9]{4}$' },
      }),
    }),
  });
  const model = new ScriptedModel(replies);
  return { agent: new LlmAgent({ name: 'Banker', model, tools: [transfer, askPin] }), sent, model };
}

const invocationOf = (run: { events: unknown[] }) =>
  (run.events[0] as RunStartedEvent).metadata!.troupe.invocationId as string;

describe('AG-UI: interrupts and resume', () => {
  it('a confirmation ends the run with the interrupt outcome; resume approves it and the same invocation goes on', async () => {
    const { agent: banker, sent } = bank([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 500 }, id: 'c1' }] },
      'Sent 500.',
    ]);
    const served = await serveApps({ bank: banker });
    const agent = client(served, 'bank');
    say(agent, 'Send 500 to Bob');

    const paused = await runOnce(agent);
    expect(paused.finished!.outcome).toEqual({
      type: 'interrupt',
      interrupts: [
        {
          id: 'Banker:c1',
          reason: 'confirmation',
          message: 'Allow tool \'transfer_money\' to run with {"amount":500}?',
          toolCallId: 'Banker:c1',
          responseSchema: expect.objectContaining({ oneOf: expect.any(Array) }),
          metadata: {
            troupe: { kind: 'confirmation', toolName: 'transfer_money', args: { amount: 500 }, agentPath: 'Banker' },
          },
        },
      ],
    });
    expect(agent.pendingInterrupts.map((i) => i.id)).toEqual(['Banker:c1']);
    expect(sent).toEqual([]);

    const resumed = await runOnce(agent, { resume: [{ interruptId: 'Banker:c1', status: 'resolved', payload: true }] });
    expect(sent).toEqual([500]);
    expect(invocationOf(resumed)).toBe(invocationOf(paused));
    expect(resumed.events[0]).toMatchObject({ runId: expect.not.stringMatching(paused.finished!.runId) });
    expect(ofType<ToolCallResultEvent>(resumed, EventType.TOOL_CALL_RESULT)).toEqual([
      expect.objectContaining({ toolCallId: 'Banker:c1', content: '{"status":"sent","amount":500}' }),
    ]);
    expect(resumed.finished).toMatchObject({ outcome: { type: 'success' }, result: 'Sent 500.' });
    expect(agent.pendingInterrupts).toEqual([]);
    // The answer is stored with the invocation it continued.
    const session = await served.sessionService.getSession({
      appName: 'bank',
      userId: AG_UI_USER,
      sessionId: agent.threadId,
    });
    expect(new Set(session!.events.map((e) => e.invocationId))).toEqual(new Set([invocationOf(paused)]));
  });

  it('a cancelled confirmation rejects the call: the tool never runs and the model is told', async () => {
    const {
      agent: banker,
      sent,
      model,
    } = bank([{ functionCalls: [{ name: 'transfer_money', args: { amount: 900 }, id: 'c1' }] }, 'Not sent.']);
    const served = await serveApps({ bank: banker });
    const agent = client(served, 'bank');
    say(agent, 'Send 900');
    await runOnce(agent);
    const resumed = await runOnce(agent, { resume: [{ interruptId: 'Banker:c1', status: 'cancelled' }] });
    expect(sent).toEqual([]);
    expect(ofType<ToolCallResultEvent>(resumed, EventType.TOOL_CALL_RESULT)[0]!.content).toMatch(/rejected/);
    expect(JSON.stringify(model.requests[1]!.contents.at(-1))).toMatch(/rejected/);
    expect(resumed.finished).toMatchObject({ outcome: { type: 'success' } });
  });

  it('an input request carries its responseSchema; a wrong answer is refused before anything runs, a right one continues', async () => {
    const { agent: banker } = bank([{ functionCalls: [{ name: 'ask_pin', id: 'p1' }] }, 'PIN accepted.']);
    const served = await serveApps({ bank: banker });
    const agent = client(served, 'bank');
    say(agent, 'Log me in');
    const paused = await runOnce(agent);
    expect(paused.finished!.outcome).toMatchObject({
      type: 'interrupt',
      interrupts: [
        {
          id: 'Banker:p1',
          reason: 'input',
          message: 'Your 4-digit PIN?',
          responseSchema: { type: 'string', pattern: '^[0-9]{4}$' },
        },
      ],
    });

    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await expect(
      agent.runAgent({ resume: [{ interruptId: 'Banker:p1', status: 'resolved', payload: '12' }] }),
    ).rejects.toMatchObject({ status: 400, payload: { error: { code: 'INTERRUPT_RESPONSE' } } });
    quiet.mockRestore();

    const resumed = await runOnce(agent, {
      resume: [{ interruptId: 'Banker:p1', status: 'resolved', payload: '1234' }],
    });
    expect(ofType<ToolCallResultEvent>(resumed, EventType.TOOL_CALL_RESULT)[0]!.content).toBe('{"pin":"1234"}');
    expect(resumed.finished).toMatchObject({ outcome: { type: 'success' }, result: 'PIN accepted.' });
  });

  it('a new message is refused while questions are open, starts a new turn once they are all cancelled, and cannot come with answers', async () => {
    const { agent: banker, sent } = bank([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 5 }, id: 'c1' }] },
      'Something else then.',
    ]);
    const served = await serveApps({ bank: banker });
    const agent = client(served, 'bank');
    say(agent, 'Send 5');
    await runOnce(agent);
    const threadId = agent.threadId;

    const pending = await post(served, 'bank', input(threadId, 'Actually, never mind'));
    expect(pending.status).toBe(409);
    expect(await pending.json()).toMatchObject({
      error: { code: 'PENDING_INTERRUPT', message: expect.stringContaining("'Banker:c1'") },
    });

    const both = await post(
      served,
      'bank',
      input(threadId, 'Never mind', { resume: [{ interruptId: 'Banker:c1', status: 'resolved', payload: true }] }),
    );
    expect(both.status).toBe(400);
    expect(await both.json()).toMatchObject({ error: { code: 'INVALID_REQUEST', field: 'messages' } });
    expect(sent).toEqual([]);

    say(agent, 'Actually, never mind');
    const fresh = await runOnce(agent, { resume: [{ interruptId: 'Banker:c1', status: 'cancelled' }] });
    expect(invocationOf(fresh)).toBe(fresh.finished!.runId);
    expect(fresh.finished).toMatchObject({ outcome: { type: 'success' }, result: 'Something else then.' });
    expect(sent).toEqual([]);
  });

  it('inside a ParallelAgent: the finished branch is not run again when the paused one resumes', async () => {
    const { agent: banker, sent } = bank([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 7 }, id: 'c1' }] },
      'Sent 7.',
    ]);
    const notifier = new LlmAgent({ name: 'Notifier', model: new ScriptedModel(['Bob was told.']) });
    const served = await serveApps({ ops: new ParallelAgent({ name: 'Ops', subAgents: [banker, notifier] }) });
    const agent = client(served, 'ops');
    say(agent, 'Pay Bob 7 and tell him');
    const paused = await runOnce(agent);
    expect(paused.finished!.outcome).toMatchObject({
      type: 'interrupt',
      interrupts: [{ id: 'Ops/Banker:c1', toolCallId: 'Ops/Banker:c1' }],
    });
    expect(paused.newMessages.map((m) => (m as { name?: string }).name)).toContain('Notifier');

    const resumed = await runOnce(agent, {
      resume: [{ interruptId: 'Ops/Banker:c1', status: 'resolved', payload: { confirmed: true } }],
    });
    expect(sent).toEqual([7]);
    expect(resumed.newMessages.map((m) => [m.role, (m as { name?: string }).name])).toEqual([
      ['tool', undefined],
      ['assistant', 'Banker'],
    ]);
    expect(resumed.finished).toMatchObject({
      outcome: { type: 'success' },
      result: { Banker: 'Sent 7.', Notifier: 'Bob was told.' },
    });
  });
});
