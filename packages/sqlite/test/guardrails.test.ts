import { describe, expect, it } from 'vitest';
import { FunctionTool, LlmAgent, Runner } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { SqliteSessionService } from '../src/index.js';
import { useTempDb } from './helpers.js';

const tempDb = useTempDb();

describe('a blocked run in a SQLite session', () => {
  it('stores exactly one GUARDRAIL_TRIPPED event and nothing of the blocked step; a reopened store shows it and the session goes on', async () => {
    const path = tempDb();
    const ran: number[] = [];
    const pay = new FunctionTool({
      name: 'pay',
      description: 'Pays.',
      guardrails: [
        {
          name: 'max_amount',
          check: (_ctx, args) => ({ tripwire: Number(args.amount) > 1000, info: { limit: 1000 } }),
        },
      ],
      execute: ({ amount }) => ran.push(Number(amount)),
    });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'pay', args: { amount: 5000 }, id: 'c1' }] },
      'Hello again.',
    ]);
    const agent = new LlmAgent({ name: 'Banker', model, tools: [pay] });

    const writer = new SqliteSessionService({ path });
    const runner = new Runner({ appName: 'bank', agent, sessionService: writer });
    const session = await writer.createSession({ appName: 'bank', userId: 'ann' });
    const result = await runner.run({ userId: 'ann', sessionId: session.id, newMessage: 'pay 5000' });
    expect(result.status).toBe('blocked');
    expect(ran).toEqual([]);
    await writer.close();

    const reader = new SqliteSessionService({ path });
    const stored = await reader.getSession({ appName: 'bank', userId: 'ann', sessionId: session.id });
    expect(stored!.events.map((e) => [e.author, e.errorCode])).toEqual([
      ['user', undefined],
      ['Banker', undefined],
      ['Banker', 'GUARDRAIL_TRIPPED'],
    ]);
    expect(stored!.events[2]!.errorMessage).toBe(result.events.at(-1)!.errorMessage);
    expect(stored!.events[2]!.errorMessage).toContain(
      "Guardrail 'max_amount' tripped on the arguments of tool 'pay' (agent 'Banker')",
    );

    // The session is free and valid: the next turn runs from the reopened store.
    const next = new Runner({ appName: 'bank', agent, sessionService: reader });
    expect((await next.run({ userId: 'ann', sessionId: session.id, newMessage: 'hi' })).status).toBe('completed');
    // The blocked call, never answered, is left out of the model's history (a provider refuses a call without its response).
    expect(JSON.stringify(model.requests[1]!.contents)).not.toContain('functionCall');
    await reader.close();
  });
});
