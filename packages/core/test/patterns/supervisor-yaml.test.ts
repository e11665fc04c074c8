import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InMemoryRunner, loadAgent, AgentDefinitionError } from '@troupe/core';
import { SupervisorAgent } from '@troupe/core/patterns';
import { ScriptedModel } from '@troupe/core/testing';
import { tempDir } from '../temp-dir.js';

function write(files: Record<string, string>): string {
  const dir = tempDir('troupe-supervisor-yaml-');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('type: supervisor in YAML', () => {
  it('loads a supervisor with its workers and max_delegations, and runs it', async () => {
    const dir = write({
      'agent.yaml': [
        'type: supervisor',
        'name: Lead',
        'model: lead-model',
        'instruction: Delegate, then answer.',
        'max_delegations: 3',
        'sub_agents:',
        '  - name: Searcher',
        '    description: Finds facts.',
        '    model: worker-model',
        '    instruction: Search.',
      ].join('\n'),
    });
    const lead = new ScriptedModel([
      { functionCalls: [{ name: 'Searcher', args: { request: 'webb' }, id: 's1' }] },
      'Webb is a telescope.',
    ]);
    const worker = new ScriptedModel(['Webb: infrared telescope.']);
    const agent = await loadAgent(dir, { models: { 'lead-model': lead, 'worker-model': worker } });
    expect(agent).toBeInstanceOf(SupervisorAgent);
    expect((agent as SupervisorAgent).maxDelegations).toBe(3);
    expect((agent as SupervisorAgent).workers.map((w) => w.name)).toEqual(['Searcher']);
    const runner = new InMemoryRunner({ agent });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'Tell me about Webb' });
    expect(result.output).toBe('Webb is a telescope.');
    expect(result.events.map((e) => e.author)).toContain('Searcher');
  });

  it('rejects a supervisor without workers, naming the fix', async () => {
    const dir = write({ 'agent.yaml': 'type: supervisor\nname: Lead\nmodel: m\nsub_agents: []\n' });
    const error = await loadAgent(dir, { models: { m: new ScriptedModel([]) } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentDefinitionError);
    expect(String(error)).toMatch(/needs at least one worker agent/);
  });
});
