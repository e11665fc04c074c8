import { describe, expect, it } from 'vitest';
import { InMemoryRunner, textOf } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { rootAgent } from './agent.js';

async function runPipeline(model: ScriptedModel, message: string) {
  const runner = new InMemoryRunner({ agent: rootAgent, defaultModel: model });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'analyst' });
  return runner.run({ userId: 'analyst', sessionId: session.id, newMessage: message });
}

describe('pipeline example', () => {
  it('runs ValidateInput, ProcessData and ReportResult in order, passing results through state', async () => {
    const model = new ScriptedModel(['valid', 'The sum is 108.', 'Your numbers add up to 108.']);

    const result = await runPipeline(model, 'Sum these numbers: 4, 8, 15, 16, 23, 42');

    expect(result.status).toBe('completed');
    expect(result.events.filter((e) => textOf(e)).map((e) => [e.author, e.path])).toEqual([
      ['ValidateInput', 'DataPipeline/ValidateInput'],
      ['ProcessData', 'DataPipeline/ProcessData'],
      ['ReportResult', 'DataPipeline/ReportResult'],
    ]);
    expect(result.state).toMatchObject({ validation_status: 'valid', result: 'The sum is 108.' });
    expect(result.state).not.toHaveProperty('ReportResult');

    const [validate, process, report] = model.requests;
    expect(validate!.config.systemInstruction).toContain('Validate the input.');
    // {validation_status} and {result} were filled in from state before each model call.
    expect(process!.config.systemInstruction).toContain("The validation status is 'valid'.");
    expect(process!.config.systemInstruction).not.toContain('{validation_status}');
    expect(report!.config.systemInstruction).toContain('The result: The sum is 108.');
    expect(result.output).toBe('Your numbers add up to 108.');
    model.assertDone();
  });

  it('later steps see the outcome of earlier ones even when validation fails', async () => {
    const model = new ScriptedModel([
      'invalid',
      'nothing to process',
      'There was nothing to process: the input was not a list of numbers.',
    ]);

    const result = await runPipeline(model, 'Hello there');

    expect(result.state).toMatchObject({ validation_status: 'invalid', result: 'nothing to process' });
    expect(model.requests[1]!.config.systemInstruction).toContain("The validation status is 'invalid'.");
    expect(model.requests[2]!.config.systemInstruction).toContain('The result: nothing to process');
  });
});
