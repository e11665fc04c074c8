import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AgentTool,
  ConfigurationError,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  ParallelAgent,
  Runner,
  getFunctionResponses,
  isClientToolInterrupt,
  type BaseAgent,
  type FunctionDeclaration,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';

// Client tools ("frontend tools"): the caller declares them per run, the model may call them, and
// the call pauses the run until the caller answers with the tool's result.

const showNote: FunctionDeclaration = {
  name: 'show_note',
  description: 'Shows a note on the page.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
};

async function setup(agent: BaseAgent) {
  const sessionService = new InMemorySessionService();
  const runner = new Runner({ appName: 'app', agent, sessionService });
  const session = await sessionService.createSession({ appName: 'app', userId: 'u' });
  return { runner, sessionService, sessionId: session.id, userId: 'u' };
}

describe('client tools (runConfig.clientTools)', () => {
  it('are offered to the model; a call pauses the run, and the result given to resume is the call’s response in the same invocation', async () => {
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'show_note', args: { text: 'hi' }, id: 'c1' }] },
      'The note is up.',
    ]);
    const agent = new LlmAgent({ name: 'Helper', model });
    const { runner, userId, sessionId } = await setup(agent);
    const runConfig = { clientTools: [showNote] };

    const paused = await runner.run({ userId, sessionId, newMessage: 'Show a note', runConfig });
    expect(model.requests[0]!.config.tools).toEqual([showNote]);
    expect(paused.status).toBe('interrupted');
    const [interrupt] = paused.interrupts;
    expect(interrupt).toMatchObject({
      id: 'Helper:c1',
      kind: 'input',
      toolName: 'show_note',
      toolCallId: 'c1',
      args: { text: 'hi' },
    });
    expect(isClientToolInterrupt(interrupt!)).toBe(true);

    const done = await runner.resume({ userId, sessionId, responses: { [interrupt!.id]: { shown: true } }, runConfig });
    expect(done.status).toBe('completed');
    expect(done.invocationId).toBe(paused.invocationId);
    expect(done.output).toBe('The note is up.');
    expect(done.events.flatMap(getFunctionResponses)).toEqual([
      { id: 'c1', name: 'show_note', response: { shown: true } },
    ]);
    // The model saw the result as the call's response.
    expect(model.requests[1]!.contents.at(-1)!.parts).toEqual([
      { functionResponse: { id: 'c1', name: 'show_note', response: { shown: true } } },
    ]);
  });

  it('a result that is not an object becomes { result }', async () => {
    const model = new ScriptedModel([{ functionCalls: [{ name: 'show_note', args: { text: 'x' }, id: 'c1' }] }, 'ok']);
    const { runner, userId, sessionId } = await setup(new LlmAgent({ name: 'Helper', model }));
    const runConfig = { clientTools: [showNote] };
    const paused = await runner.run({ userId, sessionId, newMessage: 'go', runConfig });
    const done = await runner.resume({
      userId,
      sessionId,
      responses: { [paused.interrupts[0]!.id]: 'shown' },
      runConfig,
    });
    expect(done.events.flatMap(getFunctionResponses)[0]!.response).toEqual({ result: 'shown' });
  });

  it("an agent's own tool of the same name wins, and a confirmation is not taken for a client tool", async () => {
    const own = new FunctionTool({
      name: 'show_note',
      description: 'Server-side note.',
      parameters: z.object({ text: z.string() }),
      requireConfirmation: true,
      execute: () => ({ ok: true }),
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'show_note', args: { text: 'x' }, id: 'c1' }] }]);
    const { runner, userId, sessionId } = await setup(new LlmAgent({ name: 'Helper', model, tools: [own] }));
    const paused = await runner.run({ userId, sessionId, newMessage: 'go', runConfig: { clientTools: [showNote] } });
    expect(model.requests[0]!.config.tools!.map((t) => t.description)).toEqual(['Server-side note.']);
    expect(paused.interrupts[0]!.kind).toBe('confirmation');
    expect(isClientToolInterrupt(paused.interrupts[0]!)).toBe(false);
  });

  it('reach agents behind an AgentTool and parallel branches; each call is answered where it was made', async () => {
    const inner = new LlmAgent({
      name: 'Inner',
      model: new ScriptedModel([
        { functionCalls: [{ name: 'show_note', args: { text: 'inner' }, id: 'i1' }] },
        'inner done',
      ]),
    });
    const outer = new LlmAgent({
      name: 'Outer',
      model: new ScriptedModel([
        { functionCalls: [{ name: 'Inner', args: { request: 'note' }, id: 'o1' }] },
        'outer done',
      ]),
      tools: [new AgentTool({ agent: inner })],
    });
    const side = new LlmAgent({
      name: 'Side',
      model: new ScriptedModel([
        { functionCalls: [{ name: 'show_note', args: { text: 'side' }, id: 's1' }] },
        'side done',
      ]),
    });
    const { runner, userId, sessionId } = await setup(new ParallelAgent({ name: 'Both', subAgents: [outer, side] }));
    const runConfig = { clientTools: [showNote] };

    const paused = await runner.run({ userId, sessionId, newMessage: 'go', runConfig });
    expect(paused.interrupts.map((i) => [i.id, isClientToolInterrupt(i)])).toEqual(
      expect.arrayContaining([
        ['Both/Outer/Inner:i1', true],
        ['Both/Side:s1', true],
      ]),
    );
    const done = await runner.resume({
      userId,
      sessionId,
      responses: Object.fromEntries(paused.interrupts.map((i) => [i.id, { shown: i.args.text }])),
      runConfig,
    });
    expect(done.status).toBe('completed');
    expect(done.output).toEqual({ Outer: 'outer done', Side: 'side done' });
  });

  it('bad declarations are refused with the fix', async () => {
    const { runner, userId, sessionId } = await setup(new LlmAgent({ name: 'Helper', model: new ScriptedModel([]) }));
    const run = (clientTools: unknown) =>
      runner.run({
        userId,
        sessionId,
        newMessage: 'go',
        runConfig: { clientTools: clientTools as FunctionDeclaration[] },
      });
    await expect(run([{ name: 'bad name', description: 'x' }])).rejects.toThrow(/Tool name "bad name" is not valid/);
    await expect(run([showNote, showNote])).rejects.toThrow(/declares 'show_note' twice/);
    await expect(run([{ name: 'x' }])).rejects.toBeInstanceOf(ConfigurationError);
    await expect(run('show_note')).rejects.toThrow(/must be an array/);
  });
});
