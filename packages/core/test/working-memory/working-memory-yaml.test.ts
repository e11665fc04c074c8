import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentDefinitionError, InMemoryRunner, type LlmAgent, loadAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { tempDir } from '../temp-dir.js';

/** Writes `yaml` as an agent file in a fresh folder and loads it with `model` as `scripted`. */
async function load(yaml: string, model = new ScriptedModel([])) {
  const file = join(tempDir('troupe-wm-yaml-'), 'agent.yaml');
  writeFileSync(file, yaml);
  return (await loadAgent(file, { models: { scripted: model } })) as LlmAgent;
}

describe('working_memory in YAML', () => {
  it('a JSON Schema record is kept and checked as in TypeScript', async () => {
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'update_working_memory', args: { memory: { name: 'Ana', level: 'guru' } } }] },
      { functionCalls: [{ name: 'update_working_memory', args: { memory: { name: 'Ana' } } }] },
      'Hi Ana.',
    ]);
    const agent = await load(
      [
        'name: assistant',
        'model: scripted',
        'working_memory:',
        '  scope: user',
        '  schema:',
        '    type: object',
        '    properties:',
        '      name: { type: string }',
        '      level: { enum: [beginner, expert] }',
        '',
      ].join('\n'),
      model,
    );
    expect(agent.workingMemory).toMatchObject({ scope: 'user', schema: { type: 'object' } });
    const runner = new InMemoryRunner({ agent });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'ana' });
    const result = await runner.run({ userId: 'ana', sessionId: session.id, newMessage: 'I am Ana.' });
    expect(result.state['user:working_memory:assistant']).toEqual({ name: 'Ana' });
    expect(String(model.requests[2]?.config.systemInstruction)).toContain('"name": "Ana"');
  });

  it('template (or a string schema) and key are read; the template is shown while the record is empty', async () => {
    const model = new ScriptedModel(['Hello.']);
    const agent = await load(
      'name: tutor\nmodel: scripted\nworking-memory: { scope: session, key: lessons, template: "# Lessons\\n- Done:" }\n',
      model,
    );
    expect(agent.workingMemory).toEqual({ scope: 'session', key: 'lessons', schema: '# Lessons\n- Done:' });
    const runner = new InMemoryRunner({ agent });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'Teach me.' });
    expect(String(model.requests[0]?.config.systemInstruction)).toContain(
      '<WORKING_MEMORY>\n# Lessons\n- Done:\n</WORKING_MEMORY>',
    );
    const asSchema = await load('name: tutor\nmodel: scripted\nworkingMemory: { scope: user, schema: "# Me" }\n');
    expect(asSchema.workingMemory).toEqual({ scope: 'user', schema: '# Me' });
  });

  it.each([
    ['no scope', '{ key: profile }', /working_memory.scope.*'scope' is required/],
    ['an unknown scope', '{ scope: thread }', /'scope' is the string "thread"; use one of 'user', 'session'/],
    ['an unknown key', '{ scope: user, shape: {} }', /unknown key 'shape' for workingMemory/],
    ['schema and template', '{ scope: user, schema: "# A", template: "# B" }', /both set; keep one of them/],
    ['an invalid JSON Schema', '{ scope: user, schema: { type: 12 } }', /'schema' is not a valid JSON Schema/],
  ])('%s is an AgentDefinitionError at its line', async (_what, value, message) => {
    const loading = load(`name: assistant\nmodel: scripted\nworking_memory: ${value}\n`);
    await expect(loading).rejects.toBeInstanceOf(AgentDefinitionError);
    await expect(loading).rejects.toThrow(message);
    await expect(loading).rejects.toThrow(/agent\.yaml:3: working_memory/);
  });
});
