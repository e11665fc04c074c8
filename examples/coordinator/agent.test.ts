import { describe, expect, it } from 'vitest';
import {
  InMemoryRunner,
  getFunctionCalls,
  getFunctionResponses,
  textOf,
  type Event,
  type FunctionDeclaration,
} from '@troupe/core';
import { ScriptedModel, type ScriptedReply } from '@troupe/core/testing';
import { rootAgent } from './agent.js';

const transfer = (agentName: string): ScriptedReply => ({
  functionCalls: [{ name: 'transfer_to_agent', args: { agent_name: agentName } }],
});

/** A conversation with the Coordinator; every agent gets the scripted model as the runner's default. */
async function conversation(model: ScriptedModel) {
  const runner = new InMemoryRunner({ agent: rootAgent, defaultModel: model });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'traveller' });
  const say = (text: string) => runner.run({ userId: 'traveller', sessionId: session.id, newMessage: text });
  return { runner, session, say };
}

const transferEnum = (tools: FunctionDeclaration[] | undefined): unknown =>
  (
    tools?.find((t) => t.name === 'transfer_to_agent')?.parameters as
      { properties: { agent_name: { enum: string[] } } } | undefined
  )?.properties.agent_name.enum;

const authored = (events: Event[], author: string): Event[] => events.filter((e) => e.author === author);

describe('coordinator example', () => {
  it('the Coordinator transfers a booking request to Booker, which answers in the same invocation', async () => {
    const model = new ScriptedModel([transfer('Booker'), 'Which dates would you like to fly to Paris?']);
    const { say } = await conversation(model);

    const result = await say('Book a flight to Paris');

    expect(result.status).toBe('completed');
    // The Coordinator's model was told who it can hand over to, with their descriptions.
    const coordinatorRequest = model.requests[0]!;
    expect(transferEnum(coordinatorRequest.config.tools)).toEqual(['Booker', 'Info']);
    expect(coordinatorRequest.config.systemInstruction).toContain('Delegate booking tasks to Booker');
    expect(coordinatorRequest.config.systemInstruction).toContain('Booker: Handles flight and hotel bookings.');
    expect(coordinatorRequest.config.systemInstruction).toContain(
      'Info: Provides general information and answers questions.',
    );

    // The event stream shows the call, the transfer action and then Booker speaking under the Coordinator.
    const [call, response, answer] = result.events;
    expect(getFunctionCalls(call!)).toEqual([
      expect.objectContaining({ name: 'transfer_to_agent', args: { agent_name: 'Booker' } }),
    ]);
    expect(response).toMatchObject({
      author: 'Coordinator',
      path: 'Coordinator',
      actions: { transferToAgent: 'Booker' },
    });
    expect(getFunctionResponses(response!)[0]!.response).toEqual({ transferred_to: 'Booker' });
    expect(answer).toMatchObject({ author: 'Booker', path: 'Coordinator/Booker', branch: '' });
    expect(textOf(answer!)).toBe('Which dates would you like to fly to Paris?');
    expect(result.output).toBe('Which dates would you like to fly to Paris?');
    expect(new Set(result.events.map((e) => e.invocationId)).size).toBe(1);

    // Booker ran with its own instruction and saw the user's request.
    const bookerRequest = model.requests[1]!;
    expect(bookerRequest.config.systemInstruction).toContain('You book flights and hotels.');
    expect(JSON.stringify(bookerRequest.contents)).toContain('Book a flight to Paris');
    model.assertDone();
  });

  it('the next user turn goes straight to Booker, the agent that spoke last', async () => {
    const model = new ScriptedModel([
      transfer('Booker'),
      'Which dates would you like to fly to Paris?',
      'Booked: Paris, 3 to 7 June. Confirmation TR-1042.',
    ]);
    const { say } = await conversation(model);
    await say('Book a flight to Paris');

    const second = await say('From 3 to 7 June, please.');

    expect(second.status).toBe('completed');
    expect(second.events.map((e) => [e.author, e.path])).toEqual([['Booker', 'Coordinator/Booker']]);
    expect(second.output).toBe('Booked: Paris, 3 to 7 June. Confirmation TR-1042.');
    // Only one Coordinator call in the whole conversation: the second turn skipped it.
    const coordinatorCalls = model.requests.filter((r) =>
      r.config.systemInstruction?.includes('Delegate booking tasks'),
    );
    expect(coordinatorCalls).toHaveLength(1);
    // Booker continues its own conversation: its earlier question is its own model turn.
    const bookerSecond = model.requests[2]!;
    expect(bookerSecond.contents).toContainEqual({
      role: 'model',
      parts: [{ text: 'Which dates would you like to fly to Paris?' }],
    });
    expect(bookerSecond.contents.at(-1)).toEqual({ role: 'user', parts: [{ text: 'From 3 to 7 June, please.' }] });
    model.assertDone();
  });

  it('a transfer to an unknown agent gets an error tool response and the run goes on', async () => {
    const model = new ScriptedModel([
      transfer('Billing'),
      transfer('Info'),
      'The Louvre opens at 9:00 and is closed on Tuesdays.',
    ]);
    const { say } = await conversation(model);

    const result = await say('When does the Louvre open?');

    expect(result.status).toBe('completed');
    const [firstResponse] = result.events.flatMap(getFunctionResponses);
    expect(firstResponse!.response.error).toMatch(/"Billing"/);
    expect(firstResponse!.response.error).toMatch(/Booker, Info/);
    expect(result.events.find((e) => getFunctionResponses(e).length > 0)!.actions.transferToAgent).toBeUndefined();
    // The Coordinator's model saw the error and picked a valid agent.
    const retry = model.requests[1]!;
    expect(retry.contents.at(-1)!.parts).toEqual([
      {
        functionResponse: expect.objectContaining({
          name: 'transfer_to_agent',
          response: { error: firstResponse!.response.error },
        }),
      },
    ]);
    expect(authored(result.events, 'Info').map(textOf)).toEqual([
      'The Louvre opens at 9:00 and is closed on Tuesdays.',
    ]);
    expect(authored(result.events, 'Info')[0]!.path).toBe('Coordinator/Info');
    expect(result.output).toBe('The Louvre opens at 9:00 and is closed on Tuesdays.');
    model.assertDone();
  });
});
