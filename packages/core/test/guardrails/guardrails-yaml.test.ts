import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentDefinitionError, InMemoryRunner, LlmAgent, loadAgent, type BaseAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { tempDir } from '../temp-dir.js';

function write(files: Record<string, string>): string {
  const dir = tempDir('troupe-guardrails-yaml-');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

async function runOn(agent: BaseAgent, text: string) {
  const runner = new InMemoryRunner({ agent });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  return runner.run({ userId: 'u', sessionId: session.id, newMessage: text });
}

describe('guardrails in agent definitions', () => {
  it('input_guardrails and output_guardrails name modules exporting a guardrail or a check function', async () => {
    const dir = write({
      'agent.yaml': [
        'name: Tutor',
        'instruction: Help.',
        'input_guardrails: [./no-homework.js]',
        'output_guardrails: [./no-secrets.mjs]',
      ].join('\n'),
      'no-homework.js':
        "export default { name: 'no_homework', blocking: true, check: (_ctx, input) => ({ tripwire: JSON.stringify(input).includes('homework') }) };\n",
      'no-secrets.mjs':
        "export default (_ctx, output) => ({ tripwire: String(output).includes('secret'), info: 'secret' });\n",
    });
    const model = new ScriptedModel(['Primes have two divisors.', 'The secret is 42.']);
    const agent = await loadAgent(dir, { model });
    expect(agent).toBeInstanceOf(LlmAgent);
    expect((agent as LlmAgent).inputGuardrails.map((g) => [g.name, g.blocking])).toEqual([['no_homework', true]]);
    expect((agent as LlmAgent).outputGuardrails.map((g) => g.name)).toEqual(['no_secrets']);

    expect((await runOn(agent, 'do my homework')).status).toBe('blocked');
    expect(model.callCount).toBe(0);
    expect((await runOn(agent, 'what is a prime?')).status).toBe('completed');
    const blocked = await runOn(agent, 'tell me a secret');
    expect(blocked.status).toBe('blocked');
    expect(blocked.error!.message).toMatch(/^Guardrail 'no_secrets' tripped on the output of agent 'Tutor'/);
  });

  it('names the file, line and key of a bad guardrail entry', async () => {
    const notAGuardrail = write({
      'agent.yaml': ['name: A', 'input_guardrails:', '  - ./thing.js'].join('\n'),
      'thing.js': 'export default 42;\n',
    });
    await expect(loadAgent(notAGuardrail, { model: new ScriptedModel([]) })).rejects.toThrow(AgentDefinitionError);
    await expect(loadAgent(notAGuardrail, { model: new ScriptedModel([]) })).rejects.toThrow(
      /agent\.yaml:3.*input_guardrails.*default export of .*thing\.js is not a guardrail/,
    );
    const inline = write({ 'agent.yaml': ['name: A', 'output_guardrails: [{ name: x }]'].join('\n') });
    await expect(loadAgent(inline, { model: new ScriptedModel([]) })).rejects.toThrow(
      /output_guardrails.*a guardrail entry is the path of a \.js\/\.ts module/,
    );
    const twice = write({
      'agent.yaml': ['name: A', 'input_guardrails: [./a.js, ./b.js]'].join('\n'),
      'a.js': "export default { name: 'same', check: () => ({ tripwire: false }) };\n",
      'b.js': "export default { name: 'same', check: () => ({ tripwire: false }) };\n",
    });
    await expect(loadAgent(twice, { model: new ScriptedModel([]) })).rejects.toThrow(
      /two input_guardrails are named 'same'/,
    );
  });
});
