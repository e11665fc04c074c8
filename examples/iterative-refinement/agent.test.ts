import { describe, expect, it } from 'vitest';
import { InMemoryRunner, getFunctionResponses, textOf, type BaseAgent, type Event } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { pollThenReport, rootAgent } from './agent.js';

async function runOnce(agent: BaseAgent, model: ScriptedModel, message: string) {
  const runner = new InMemoryRunner({ agent, defaultModel: model });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'dev' });
  return runner.run({ userId: 'dev', sessionId: session.id, newMessage: message });
}

const by = (events: Event[], author: string): Event[] => events.filter((e) => e.author === author);
const loopEnd = (events: Event[], loop: string): Event =>
  events.find((e) => e.author === loop && e.actions.agentState?.stopReason)!;

const V1 = 'const reverse = (s) => s.split().reverse().join();';
const V2 = "const reverse = (s) => [...s].reverse().join('');";

describe('iterative-refinement example (CodeRefinementLoop)', () => {
  it('stops in the iteration where the QualityChecker says pass', async () => {
    const model = new ScriptedModel([V1, 'fail', V2, 'pass']);

    const result = await runOnce(rootAgent, model, 'A function that reverses a string');

    expect(result.status).toBe('completed');
    expect(result.state).toMatchObject({ current_code: V2, quality_status: 'pass' });
    expect(by(result.events, 'CodeRefiner').map(textOf)).toEqual([V1, V2]);
    // StopChecker looked at the verdict after each pass and escalated on the second one.
    expect(by(result.events, 'StopChecker').map((e) => [e.path, e.actions.escalate])).toEqual([
      ['CodeRefinementLoop/StopChecker', false],
      ['CodeRefinementLoop/StopChecker', true],
    ]);
    // The loop ended right after the escalation and says why.
    const end = loopEnd(result.events, 'CodeRefinementLoop');
    expect(end.actions.agentState).toMatchObject({ stopReason: 'escalated', iterations: 2 });
    expect(result.events.indexOf(end)).toBe(result.events.indexOf(by(result.events, 'StopChecker')[1]!) + 1);
    // The second pass built on the first: the refiner saw the old code and the verdict.
    const secondPass = model.requests[2]!.config.systemInstruction!;
    expect(secondPass).toContain(V1);
    expect(secondPass).toContain('Last review: fail');
    expect(model.requests[3]!.config.systemInstruction).toContain(V2);
    // No model call after the escalation.
    model.assertDone();
  });

  it('stops after maxIterations (5) when the checker never passes', async () => {
    const model = new ScriptedModel(Array.from({ length: 5 }, (_, i) => [`// attempt ${i + 1}`, 'fail']).flat());

    const result = await runOnce(rootAgent, model, 'A function that proves P = NP');

    expect(result.status).toBe('completed');
    expect(by(result.events, 'CodeRefiner')).toHaveLength(5);
    expect(by(result.events, 'StopChecker').every((e) => e.actions.escalate === false)).toBe(true);
    expect(loopEnd(result.events, 'CodeRefinementLoop').actions.agentState).toMatchObject({
      stopReason: 'maxIterations',
      iterations: 5,
    });
    expect(result.state).toMatchObject({ current_code: '// attempt 5', quality_status: 'fail' });
    model.assertDone();
  });
});

describe('iterative-refinement example (StatusPoller in a pipeline)', () => {
  it('polls until the job completes, then the enclosing pipeline runs its next step', async () => {
    const poll = { functionCalls: [{ name: 'check_job_status' }] };
    const model = new ScriptedModel([
      poll,
      'The job is still pending.',
      poll,
      'The job is still pending.',
      poll,
      'The job has completed.',
      'Your job completed after 3 checks.',
    ]);

    const result = await runOnce(pollThenReport, model, 'Check the status of my processing job');

    expect(result.status).toBe('completed');
    expect(result.state).toMatchObject({ status: 'completed', polls: 3 });
    const statuses = result.events.flatMap(getFunctionResponses).map((r) => r.response.status);
    expect(statuses).toEqual(['pending', 'pending', 'completed']);
    expect(by(result.events, 'Checker').map((e) => e.actions.escalate)).toEqual([false, false, true]);
    expect(loopEnd(result.events, 'StatusPoller').actions.agentState).toMatchObject({
      stopReason: 'escalated',
      iterations: 3,
    });

    // Escalation ended the loop only: ReportStatus ran next and read the final state.
    const report = by(result.events, 'ReportStatus');
    expect(report.map((e) => [e.path, textOf(e)])).toEqual([
      ['PollThenReport/ReportStatus', 'Your job completed after 3 checks.'],
    ]);
    expect(result.events.indexOf(report[0]!)).toBeGreaterThan(
      result.events.indexOf(loopEnd(result.events, 'StatusPoller')),
    );
    expect(model.requests.at(-1)!.config.systemInstruction).toBe(
      "The job ended with status 'completed' after 3 checks. Tell the user in one sentence.",
    );
    expect(result.events.at(-1)).toMatchObject({ author: 'ReportStatus', path: 'PollThenReport/ReportStatus' });
    expect(result.output).toBe('Your job completed after 3 checks.');
    model.assertDone();
  });
});
