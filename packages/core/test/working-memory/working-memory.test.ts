import { describe, expect, it } from 'vitest';
import {
  InMemorySessionService,
  LlmAgent,
  Runner,
  getFunctionResponses,
  workingMemoryStateKey,
  type LlmRequest,
  type WorkingMemoryOptions,
} from '@troupe/core';
import { ScriptedModel, type ScriptedReply } from '@troupe/core/testing';
import { z } from 'zod';

const profile = z.object({
  name: z.string(),
  city: z.string(),
  likes: z.array(z.string()),
  diet: z.object({ vegetarian: z.boolean(), allergies: z.array(z.string()) }).partial(),
});

/** One agent with working memory on an in-memory store; `turn` runs one message in a session (created when new). */
function setUp(workingMemory: WorkingMemoryOptions, replies: ScriptedReply[]) {
  const model = new ScriptedModel(replies);
  const agent = new LlmAgent({ name: 'assistant', model, instruction: 'Help the user.', workingMemory });
  const sessionService = new InMemorySessionService();
  const runner = new Runner({ appName: 'app', agent, sessionService, autoCreateSession: true });
  const turn = async (userId: string, sessionId: string, newMessage: string) => {
    const result = await runner.run({ userId, sessionId, newMessage });
    expect(result.status).toBe('completed');
    return result;
  };
  return { model, runner, sessionService, turn };
}

const instructionOf = (request: LlmRequest | undefined) => String(request?.config.systemInstruction ?? '');
const update = (memory: unknown): ScriptedReply => ({
  functionCalls: [{ name: 'update_working_memory', args: { memory } }],
});

describe('working memory with a schema', () => {
  it('is in the first request, updated by the tool, seen by the next request and by a new session of the same user', async () => {
    const { model, turn } = setUp({ scope: 'user', schema: profile }, [
      update({ name: 'Ana', city: 'Lisbon' }),
      'Nice to meet you, Ana.',
      'You live in Lisbon.',
    ]);

    const first = await turn('ana', 's1', 'I am Ana and I live in Lisbon.');
    expect(first.output).toBe('Nice to meet you, Ana.');
    const [before, after] = model.requests;
    expect(instructionOf(before)).toContain('Help the user.');
    expect(instructionOf(before)).toContain('<WORKING_MEMORY>\n{}\n</WORKING_MEMORY>');
    expect(before?.config.tools?.map((t) => t.name)).toEqual(['update_working_memory']);
    expect(instructionOf(after)).toContain('"name": "Ana"');
    expect(instructionOf(after)).toContain('"city": "Lisbon"');
    const response = first.events.flatMap(getFunctionResponses)[0];
    expect(response?.response).toEqual({ memory: { name: 'Ana', city: 'Lisbon' } });
    expect(first.state[workingMemoryStateKey('assistant', 'user')]).toEqual({ name: 'Ana', city: 'Lisbon' });

    await turn('ana', 's2', 'Where do I live?');
    expect(instructionOf(model.requests[2])).toContain('"city": "Lisbon"');
    model.assertDone();
  });

  it('merges objects field by field, replaces lists and removes a field set to null', async () => {
    const { turn } = setUp({ scope: 'user', schema: profile }, [
      update({ name: 'Ana', likes: ['jazz', 'tea'], diet: { vegetarian: true, allergies: ['nuts'] } }),
      update({ name: null, likes: ['fado'], diet: { allergies: [] } }),
      'Noted.',
    ]);
    const result = await turn('ana', 's1', 'Remember me.');
    expect(result.state['user:working_memory:assistant']).toEqual({
      likes: ['fado'],
      diet: { vegetarian: true, allergies: [] },
    });
  });

  it('several updates in one model turn build on each other in call order; a refused one in between changes nothing', async () => {
    const { turn } = setUp({ scope: 'user', schema: profile }, [
      {
        functionCalls: [
          { name: 'update_working_memory', args: { memory: { name: 'Ana' } } },
          { name: 'update_working_memory', args: { memory: { city: 7 } } },
          { name: 'update_working_memory', args: { memory: { city: 'Lisbon' } } },
          { name: 'update_working_memory', args: { memory: { likes: ['fado'] } } },
        ],
      },
      'Noted.',
    ]);
    const result = await turn('ana', 's1', 'I am Ana from Lisbon and I like fado.');
    const responses = result.events.flatMap(getFunctionResponses).map((r) => r.response);
    expect(responses[1]?.error).toMatch(/city/);
    expect(responses[3]).toEqual({ memory: { name: 'Ana', city: 'Lisbon', likes: ['fado'] } });
    expect(result.state['user:working_memory:assistant']).toEqual({ name: 'Ana', city: 'Lisbon', likes: ['fado'] });
  });

  it('an update that does not fit the schema is answered with an error naming the field and changes nothing', async () => {
    const { model, turn } = setUp({ scope: 'user', schema: profile }, [
      update({ name: 'Ana' }),
      update({ city: 42 }),
      update('Ana from Lisbon'),
      'Sorry.',
    ]);
    const result = await turn('ana', 's1', 'I am Ana.');
    const [, wrongType, notAnObject] = result.events.flatMap(getFunctionResponses).map((r) => r.response);
    expect(wrongType?.error).toMatch(/city: .*expected string/i);
    expect(wrongType?.error).toMatch(/unchanged/);
    expect(notAnObject?.error).toMatch(/'memory' as an object of the fields to change; got a string/);
    // The events of the failed calls carry no state change, and the record is the one before them.
    const deltas = result.events.filter((e) => 'user:working_memory:assistant' in e.actions.stateDelta);
    expect(deltas).toHaveLength(1);
    expect(result.state['user:working_memory:assistant']).toEqual({ name: 'Ana' });
    expect(instructionOf(model.requests[3])).toContain('"name": "Ana"');
  });

  it('a JSON Schema works the same way: its required fields are optional while the record fills up', async () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, level: { enum: ['beginner', 'expert'] } },
      required: ['name', 'level'],
      additionalProperties: false,
    };
    const { model, turn } = setUp({ scope: 'session', schema }, [
      update({ level: 'expert' }),
      update({ level: 'guru', shoe: 42 }),
      'OK.',
    ]);
    const result = await turn('bo', 's1', 'I am an expert.');
    const responses = result.events.flatMap(getFunctionResponses).map((r) => r.response);
    expect(responses[0]).toEqual({ memory: { level: 'expert' } });
    expect(responses[1]?.error).toMatch(/level: .*\("beginner", "expert"\)/);
    expect(responses[1]?.error).toMatch(/'shoe'/);
    expect(result.state['working_memory:assistant']).toEqual({ level: 'expert' });
    // The declaration offers the schema's fields, none required.
    const declared = model.requests[0]?.config.tools?.[0]?.parameters as {
      properties: { memory: { required?: unknown; properties: object } };
    };
    expect(declared.properties.memory.required).toBeUndefined();
    expect(Object.keys(declared.properties.memory.properties)).toEqual(['name', 'level']);
  });
});

describe('working memory scopes', () => {
  it("scope 'user' is shared by the user's sessions and never seen by another user", async () => {
    const { model, turn } = setUp({ scope: 'user', schema: profile }, [update({ name: 'Ana' }), 'Hi Ana.', 'Hi.']);
    await turn('ana', 's1', 'I am Ana.');
    await turn('bo', 's2', 'Who am I?');
    expect(instructionOf(model.requests[2])).toContain('<WORKING_MEMORY>\n{}\n</WORKING_MEMORY>');
    expect(instructionOf(model.requests[2])).not.toContain('Ana');
  });

  it("scope 'session' stays in its session: another session of the same user starts empty", async () => {
    const { model, turn, sessionService } = setUp({ scope: 'session' }, [
      update('# User\n- Name: Ana\n- Goals: learn Portuguese'),
      'Boa sorte!',
      'Hello.',
      'Still here.',
    ]);
    await turn('ana', 's1', 'I am Ana and I want to learn Portuguese.');
    expect(instructionOf(model.requests[1])).toContain('- Name: Ana\n- Goals: learn Portuguese');

    await turn('ana', 's2', 'Hello?');
    const other = instructionOf(model.requests[2]);
    expect(other).not.toContain('Ana');
    // An empty record shows the template to fill in.
    expect(other).toContain('<WORKING_MEMORY>\n# User\n- Name:\n- Preferences:');

    await turn('ana', 's1', 'Still there?');
    expect(instructionOf(model.requests[3])).toContain('- Name: Ana');
    const stored = await sessionService.getSession({ appName: 'app', userId: 'ana', sessionId: 's1' });
    expect(stored?.state['working_memory:assistant']).toBe('# User\n- Name: Ana\n- Goals: learn Portuguese');
  });

  it('a session record is rewound with its session, as state is', async () => {
    const { model, turn, runner } = setUp({ scope: 'session', schema: '# Trip\n- Destination:' }, [
      update('# Trip\n- Destination: Porto'),
      'Porto it is.',
      'Where to?',
    ]);
    const first = await turn('ana', 's1', 'Plan a trip to Porto.');
    expect(first.state['working_memory:assistant']).toBe('# Trip\n- Destination: Porto');
    await runner.rewind({ userId: 'ana', sessionId: 's1', beforeInvocationId: first.invocationId });
    await turn('ana', 's1', 'Let us start over.');
    expect(instructionOf(model.requests[2])).toContain('<WORKING_MEMORY>\n# Trip\n- Destination:\n</WORKING_MEMORY>');
  });

  it('agents with the same key share one record; the default key keeps each agent apart', async () => {
    const model = new ScriptedModel([update({ name: 'Ana' }), 'Hi Ana.']);
    const reader = new ScriptedModel(['You are Ana.']);
    const sessionService = new InMemorySessionService();
    const runnerOf = (name: string, m: ScriptedModel, key?: string) =>
      new Runner({
        appName: 'app',
        sessionService,
        autoCreateSession: true,
        agent: new LlmAgent({
          name,
          model: m,
          workingMemory: { scope: 'user', schema: profile, ...(key ? { key } : {}) },
        }),
      });
    await runnerOf('greeter', model, 'profile').run({ userId: 'ana', sessionId: 's1', newMessage: 'I am Ana.' });
    await runnerOf('helper', reader, 'profile').run({ userId: 'ana', sessionId: 's2', newMessage: 'Who am I?' });
    expect(instructionOf(reader.requests[0])).toContain('"name": "Ana"');

    const stranger = new ScriptedModel(['Who are you?']);
    await runnerOf('greeter', stranger).run({ userId: 'ana', sessionId: 's3', newMessage: 'Who am I?' });
    expect(instructionOf(stranger.requests[0])).not.toContain('Ana');
  });
});
