import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentDefinitionError, InMemoryRunner, loadAgent } from '@troupe/core';
import { PlanExecuteAgent } from '@troupe/core/patterns';
import { ScriptedModel } from '@troupe/core/testing';
import { tempDir } from '../temp-dir.js';

function files(entries: Record<string, string>): string {
  const dir = tempDir('troupe-plan-yaml-');
  for (const [name, text] of Object.entries(entries)) writeFileSync(join(dir, name), text);
  return dir;
}

const TRIP = `
type: plan_execute
name: Trip
max_iterations: 3
planner:
  name: Planner
  instruction: Break the request into steps.
  output_schema:
    type: object
    properties:
      steps: { type: array, items: { type: string }, minItems: 1 }
    required: [steps]
executor: ./executor.yaml
replanner:
  name: Replanner
  instruction: Answer, or list the steps still to do.
  output_schema:
    type: object
    properties:
      respond: { type: string }
      steps: { type: array, items: { type: string } }
`;

describe('type: plan_execute in YAML', () => {
  it('loads planner, executor and replanner (inline or by path) and runs', async () => {
    const dir = files({ 'trip.yaml': TRIP, 'executor.yaml': 'name: Executor\ninstruction: Do the current step.\n' });
    const model = new ScriptedModel([
      '{"steps": ["Find a hotel"]}',
      'Hotel Alfama',
      '{"respond": "Stay at Hotel Alfama."}',
    ]);
    const agent = await loadAgent(join(dir, 'trip.yaml'), { model });
    expect(agent).toBeInstanceOf(PlanExecuteAgent);
    expect((agent as PlanExecuteAgent).maxIterations).toBe(3);
    expect(agent.subAgents.map((a) => a.name)).toEqual(['Planner', 'Executor', 'Replanner']);
    const runner = new InMemoryRunner({ agent });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'A night in Lisbon' });
    expect(result.output).toBe('Stay at Hotel Alfama.');
    expect(result.events.at(-1)!.actions.agentState).toEqual({ stopReason: 'responded', iterations: 1 });
  });

  it('a planner without output_schema is an error at its key, with the schema to add', async () => {
    const dir = files({
      'trip.yaml':
        'type: plan_execute\nname: Trip\nplanner:\n  name: Planner\n  instruction: Plan.\nexecutor:\n  name: Executor\n',
    });
    const error = await loadAgent(join(dir, 'trip.yaml'), { model: new ScriptedModel([]) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentDefinitionError);
    expect((error as AgentDefinitionError).key).toBe('planner');
    expect((error as Error).message).toMatch(
      /planner 'Planner' has no output_schema.*output_schema: \{ type: object, properties: \{ steps:/,
    );
  });

  it('a missing executor and a bad max_iterations name the key', async () => {
    const noExecutor = files({ 'trip.yaml': 'type: plan_execute\nname: Trip\nplanner: ./p.yaml\n' });
    await expect(loadAgent(join(noExecutor, 'trip.yaml'))).rejects.toThrow(/'executor' is required/);
    const badMax = files({
      'trip.yaml': 'type: plan_execute\nname: Trip\nmax_iterations: 0\nplanner: ./p.yaml\nexecutor: ./p.yaml\n',
    });
    await expect(loadAgent(join(badMax, 'trip.yaml'))).rejects.toThrow(/max_iterations/);
  });
});
