import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AgentDefinitionError,
  CodeExecutionTool,
  getFunctionResponses,
  InMemoryRunner,
  loadAgent,
  type LlmAgent,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { tempDir } from '../temp-dir.js';

function definition(yaml: string): string {
  const dir = tempDir('troupe-yaml-code-');
  const file = join(dir, 'agent.yaml');
  writeFileSync(file, yaml);
  return file;
}

describe('code execution in agent definitions', () => {
  it('allow_code_execution and a code_execution tool entry (root relative to the file) run code without a pause', async () => {
    const file = definition(
      [
        'name: Analyst',
        'allow_code_execution: true',
        'tools:',
        '  - code_execution: { root: ./runs, languages: [bash], timeout_ms: 5000 }',
      ].join('\n'),
    );
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'execute_code', args: { language: 'bash', code: 'echo $((6 * 7))' } }] },
      'Done.',
    ]);
    const agent = (await loadAgent(file, { model })) as LlmAgent;
    expect(agent.allowCodeExecution).toBe(true);
    const tool = agent.tools[0] as CodeExecutionTool;
    expect(tool).toBeInstanceOf(CodeExecutionTool);
    expect(tool.languages).toEqual(['bash']);

    const runner = new InMemoryRunner({ agent });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'go' });
    expect(result.status).toBe('completed');
    expect(result.events.flatMap(getFunctionResponses)[0]!.response).toMatchObject({ exitCode: 0, stdout: '42\n' });
  });

  it('an agent without allow_code_execution asks first; a bad entry is reported at its line', async () => {
    const asks = (await loadAgent(definition('name: A\ntools: [{ code_execution: true }]\n'), {
      model: new ScriptedModel([]),
    })) as LlmAgent;
    expect(asks.allowCodeExecution).toBe(false);
    const bad = loadAgent(definition('name: A\ntools:\n  - code_execution: { languages: [ruby] }\n'), {
      model: new ScriptedModel([]),
    });
    await expect(bad).rejects.toBeInstanceOf(AgentDefinitionError);
    await expect(bad).rejects.toThrow(/agent\.yaml:3.*"ruby"/s);
    await expect(
      loadAgent(definition('name: A\ntools: [{ code_execution: { sandbox: yes } }]\n'), {
        model: new ScriptedModel([]),
      }),
    ).rejects.toThrow(/does not take 'sandbox'/);
  });
});
