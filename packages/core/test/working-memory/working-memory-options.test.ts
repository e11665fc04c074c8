import { describe, expect, it } from 'vitest';
import { ConfigurationError, FunctionTool, LlmAgent, type WorkingMemoryOptions } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { z } from 'zod';

const model = new ScriptedModel([]);
const make = (workingMemory: unknown, extra: Partial<ConstructorParameters<typeof LlmAgent>[0]> = {}) =>
  new LlmAgent({ name: 'assistant', model, workingMemory: workingMemory as WorkingMemoryOptions, ...extra });

describe('LlmAgent workingMemory option', () => {
  it.each([
    [
      'not an object',
      'user',
      /option 'workingMemory' must be an object such as \{ scope: 'user' \}; got string "user"/,
    ],
    ['a missing scope', {}, /has scope undefined\. Use 'user' .* or 'session'/],
    ['an unknown scope', { scope: 'thread' }, /has scope string "thread"\. Use 'user'/],
    ['an unknown field', { scope: 'user', template: '# Me' }, /unknown field 'template'\. Use scope, schema/],
    ['a zod schema that is not an object', { scope: 'user', schema: z.string() }, /not an object\. Use z\.object/],
    ['a JSON Schema that is not an object', { scope: 'user', schema: { type: 'array' } }, /type is string "array"/],
    ['an empty template', { scope: 'user', schema: '  ' }, /empty template/],
    ['a schema of another kind', { scope: 'user', schema: 42 }, /has schema number 42\. Use a zod object/],
    ['a bad key', { scope: 'user', key: 'my profile' }, /has key string "my profile"\. Use letters/],
  ])('rejects %s with a ConfigurationError naming the agent, the option and the fix', (_what, value, message) => {
    expect(() => make(value)).toThrow(ConfigurationError);
    expect(() => make(value)).toThrow(/Agent 'assistant'/);
    expect(() => make(value)).toThrow(message);
  });

  it('adds the update_working_memory tool to the agent, and a tool of the same name is a clash', () => {
    const agent = make({ scope: 'user' });
    expect(agent.tools.map((t) => t.name)).toEqual(['update_working_memory']);
    expect(agent.workingMemory).toEqual({ scope: 'user' });
    expect(make(undefined).tools).toEqual([]);
    const own = new FunctionTool({ name: 'update_working_memory', description: 'mine', execute: () => 'ok' });
    expect(() => make({ scope: 'user' }, { tools: [own] })).toThrow(/two tools named 'update_working_memory'/);
  });
});
