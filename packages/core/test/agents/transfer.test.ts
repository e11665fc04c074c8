import { describe, expect, it } from 'vitest';
import { InMemoryRunner, LlmAgent, SequentialAgent, TransferLimitError, getFunctionResponses } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce } from '../helpers.js';

const transfer = (agent_name: string) => ({ functionCalls: [{ name: 'transfer_to_agent', args: { agent_name } }] });

function tree(
  models: { coordinator: ScriptedModel; booker: ScriptedModel; info: ScriptedModel },
  options: { disallowParent?: boolean; disallowPeers?: boolean } = {},
) {
  const booker = new LlmAgent({
    name: 'Booker',
    description: 'Handles flight and hotel bookings.',
    model: models.booker,
    disallowTransferToParent: options.disallowParent ?? false,
    disallowTransferToPeers: options.disallowPeers ?? false,
  });
  const info = new LlmAgent({ name: 'Info', description: 'Provides general information.', model: models.info });
  const coordinator = new LlmAgent({
    name: 'Coordinator',
    model: models.coordinator,
    instruction: 'Route requests.',
    subAgents: [booker, info],
  });
  return { coordinator, booker, info };
}

describe('transfer_to_agent', () => {
  it('offers the tool with the allowed targets and runs the target in the same invocation', async () => {
    const models = {
      coordinator: new ScriptedModel([transfer('Booker')]),
      booker: new ScriptedModel(['Booked!']),
      info: new ScriptedModel([]),
    };
    const { coordinator } = tree(models);
    const result = await runOnce(coordinator, 'Book a flight to Paris');
    expect(result.status).toBe('completed');
    const decl = models.coordinator.requests[0]!.config.tools!.find((t) => t.name === 'transfer_to_agent')!;
    expect((decl.parameters as { properties: { agent_name: { enum: string[] } } }).properties.agent_name.enum).toEqual([
      'Booker',
      'Info',
    ]);
    expect(models.coordinator.requests[0]!.config.systemInstruction).toMatch(
      /Booker: Handles flight and hotel bookings/,
    );
    const bookerDecl = models.booker.requests[0]!.config.tools!.find((t) => t.name === 'transfer_to_agent')!;
    expect(
      (bookerDecl.parameters as { properties: { agent_name: { enum: string[] } } }).properties.agent_name.enum,
    ).toEqual(['Coordinator', 'Info']);
    expect(result.events.find((e) => e.actions.transferToAgent)).toMatchObject({
      author: 'Coordinator',
      actions: { transferToAgent: 'Booker' },
    });
    expect(result.events.at(-1)).toMatchObject({ author: 'Booker', path: 'Coordinator/Booker', output: 'Booked!' });
    expect(result.output).toBe('Booked!');
    const invocationIds = new Set(result.events.map((e) => e.invocationId));
    expect(invocationIds.size).toBe(1);
  });

  it('disallowTransferToParent and disallowTransferToPeers shrink the targets; a leaf with none gets no tool', async () => {
    const models = {
      coordinator: new ScriptedModel([transfer('Booker')]),
      booker: new ScriptedModel(['ok']),
      info: new ScriptedModel([]),
    };
    const { coordinator } = tree(models, { disallowParent: true, disallowPeers: true });
    await runOnce(coordinator, 'book');
    expect(models.booker.requests[0]!.config.tools).toBeUndefined();
  });

  it('an unknown or disallowed target gets an error response naming the allowed ones, and the run goes on', async () => {
    const models = {
      coordinator: new ScriptedModel([transfer('Nobody'), transfer('Booker')]),
      booker: new ScriptedModel([transfer('Info'), 'Booked anyway']),
      info: new ScriptedModel([]),
    };
    const { coordinator } = tree(models, { disallowPeers: true });
    const result = await runOnce(coordinator, 'book');
    expect(result.status).toBe('completed');
    const [first] = getFunctionResponses(result.events[1]!);
    expect(first!.response.error).toMatch(/cannot transfer to "Nobody".*Allowed targets: Booker, Info/);
    const bookerError = result.events
      .flatMap(getFunctionResponses)
      .find((r) => r.response.error && String(r.response.error).includes('"Info"'));
    expect(bookerError!.response.error).toMatch(/Allowed targets: Coordinator/);
    expect(result.output).toBe('Booked anyway');
  });

  it('the next user turn starts at the agent that spoke last when it is transferable across the tree', async () => {
    const models = {
      coordinator: new ScriptedModel([transfer('Booker')]),
      booker: new ScriptedModel(['Which date?', 'Booked for Monday.']),
      info: new ScriptedModel([]),
    };
    const { coordinator } = tree(models);
    const runner = new InMemoryRunner({ agent: coordinator });
    const s = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    await runner.run({ userId: 'u', sessionId: s.id, newMessage: 'Book a flight' });
    const second = await runner.run({ userId: 'u', sessionId: s.id, newMessage: 'Monday' });
    expect(second.events.map((e) => e.author)).toEqual(['Booker']);
    expect(second.events[0]!.path).toBe('Coordinator/Booker');
    expect(models.coordinator.requests).toHaveLength(1);
  });

  it('restartFromRoot starts every turn at the root; a non-transferable agent hands the turn back to the root', async () => {
    const models = {
      coordinator: new ScriptedModel([transfer('Booker'), 'root again']),
      booker: new ScriptedModel(['Which date?']),
      info: new ScriptedModel([]),
    };
    const { coordinator } = tree(models);
    const runner = new InMemoryRunner({ agent: coordinator });
    const s = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    await runner.run({ userId: 'u', sessionId: s.id, newMessage: 'Book' });
    const second = await runner.run({
      userId: 'u',
      sessionId: s.id,
      newMessage: 'Monday',
      runConfig: { restartFromRoot: true },
    });
    expect(second.events[0]!.author).toBe('Coordinator');

    const m = {
      coordinator: new ScriptedModel([transfer('Booker'), 'root answers']),
      booker: new ScriptedModel(['Which date?']),
      info: new ScriptedModel([]),
    };
    const locked = tree(m, { disallowParent: true });
    const r2 = new InMemoryRunner({ agent: locked.coordinator });
    const s2 = await r2.sessionService.createSession({ appName: r2.appName, userId: 'u' });
    await r2.run({ userId: 'u', sessionId: s2.id, newMessage: 'Book' });
    const next = await r2.run({ userId: 'u', sessionId: s2.id, newMessage: 'Monday' });
    expect(next.events[0]!.author).toBe('Coordinator');
  });

  it('stops after maxTransfers with TransferLimitError and status limit', async () => {
    const ping = new ScriptedModel(Array.from({ length: 10 }, () => transfer('Pong')));
    const pong = new ScriptedModel(Array.from({ length: 10 }, () => transfer('Ping')));
    const pongAgent = new LlmAgent({ name: 'Pong', model: pong });
    const pingAgent = new LlmAgent({ name: 'Ping', model: ping, subAgents: [pongAgent] });
    const result = await runOnce(pingAgent, 'go', { runConfig: { maxTransfers: 3 } });
    expect(result.status).toBe('limit');
    expect(result.stopReason).toBe('maxTransfers');
    expect(result.error).toBeInstanceOf(TransferLimitError);
    expect(result.events.filter((e) => e.actions.transferToAgent)).toHaveLength(4);
    expect(result.events.at(-1)!.errorCode).toBe('RUN_LIMIT');
  });

  it('an LlmAgent under a workflow agent cannot transfer to its workflow parent or peers', async () => {
    const model = new ScriptedModel(['a', 'b']);
    const a = new LlmAgent({ name: 'A', model });
    const b = new LlmAgent({ name: 'B', model });
    await runOnce(new SequentialAgent({ name: 'Seq', subAgents: [a, b] }), 'x');
    expect(model.requests.every((r) => r.config.tools === undefined)).toBe(true);
  });

  it('outputKey never stores the answer of the agent it transferred to', async () => {
    const coordinatorModel = new ScriptedModel([transfer('Helper')]);
    const helper = new LlmAgent({ name: 'Helper', model: new ScriptedModel(['helper text']) });
    const coordinator = new LlmAgent({
      name: 'Coord',
      model: coordinatorModel,
      outputKey: 'coord_out',
      subAgents: [helper],
    });
    const result = await runOnce(coordinator, 'x');
    expect(result.state.coord_out).toBeUndefined();
  });
});
