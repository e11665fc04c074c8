import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigurationError,
  FunctionAgent,
  FunctionTool,
  LlmAgent,
  SequentialAgent,
  getFunctionCalls,
  getFunctionResponses,
  type Event,
} from '@troupe/core';
import { SupervisorAgent } from '@troupe/core/patterns';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce } from '../helpers.js';
import { acrossRunners } from './approve-across-runners.js';

const delegate = (name: string, request: string, id: string) => ({ functionCalls: [{ name, args: { request }, id }] });
const delegations = (events: Event[]) =>
  events
    .filter((e) => e.author === 'Lead' && !e.partial)
    .flatMap(getFunctionCalls)
    .map((c) => `${c.name}:${String(c.args?.request)}`);
const record = (events: Event[]) =>
  events.filter((e) => e.author === 'Lead' && e.actions.agentState).map((e) => e.actions.agentState);

function workers(log: string[]) {
  return [
    new FunctionAgent({
      name: 'Searcher',
      description: 'Finds facts.',
      run: (input) => {
        log.push(`Searcher:${String(input.request)}`);
        return `facts about ${String(input.request)}`;
      },
    }),
    new FunctionAgent({
      name: 'Writer',
      description: 'Writes summaries.',
      run: (input) => {
        log.push(`Writer:${String(input.request)}`);
        return `summary of ${String(input.request)}`;
      },
    }),
  ];
}

describe('SupervisorAgent', () => {
  it('delegates, gets control back after each worker, and answers; the history is in the events', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      delegate('Searcher', 'webb', 's1'),
      delegate('Writer', 'facts about webb', 'w1'),
      'Webb: summary of facts about webb',
    ]);
    const lead = new SupervisorAgent({
      name: 'Lead',
      model,
      instruction: 'Research, then answer.',
      subAgents: workers(log),
    });
    const result = await runOnce(lead, 'Tell me about Webb');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('Webb: summary of facts about webb');
    expect(log).toEqual(['Searcher:webb', 'Writer:facts about webb']);
    expect(delegations(result.events)).toEqual(['Searcher:webb', 'Writer:facts about webb']);
    expect(result.events.flatMap(getFunctionResponses).map((r) => r.response)).toEqual([
      { result: 'facts about webb' },
      { result: 'summary of facts about webb' },
    ]);
    // The workers' own events are in the stream, between the supervisor's call and its result.
    const authors = result.events.filter((e) => !e.partial).map((e) => e.author);
    expect(authors).toEqual(['Lead', 'Searcher', 'Lead', 'Lead', 'Writer', 'Lead', 'Lead']);
    expect(record(result.events)).toEqual([{ stopReason: 'answered', delegations: 2 }]);
    // The model is offered each worker as a tool, described.
    expect(model.requests[0]!.config.tools!.map((t) => `${t.name}: ${t.description}`)).toEqual([
      'Searcher: Finds facts.',
      'Writer: Writes summaries.',
    ]);
  });

  it('stops delegating at maxDelegations: the workers are withdrawn and an extra call is refused', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      delegate('Searcher', 'a', 's1'),
      delegate('Searcher', 'b', 's2'),
      delegate('Writer', 'c', 'w1'),
      'Best effort: facts about a, b',
    ]);
    const lead = new SupervisorAgent({ name: 'Lead', model, subAgents: workers(log), maxDelegations: 2 });
    const result = await runOnce(lead, 'go');
    expect(log).toEqual(['Searcher:a', 'Searcher:b']);
    expect(model.requests[2]!.config.tools ?? []).toEqual([]);
    expect(model.requests[2]!.config.systemInstruction).toMatch(/used all your delegations/);
    const refused = result.events.flatMap(getFunctionResponses).at(-1)!;
    expect(refused.response).toMatchObject({ error: expect.stringMatching(/maxDelegations/) });
    expect(result.output).toBe('Best effort: facts about a, b');
    expect(record(result.events)).toEqual([{ stopReason: 'maxDelegations', delegations: 3 }]);
  });

  it('a cancelled run starts no further delegation', async () => {
    const log: string[] = [];
    const controller = new AbortController();
    const searcher = new FunctionAgent({
      name: 'Searcher',
      run: () => {
        log.push('Searcher');
        controller.abort(new Error('user cancelled'));
        return 'x';
      },
    });
    const model = new ScriptedModel([delegate('Searcher', 'a', 's1'), delegate('Searcher', 'b', 's2'), 'never']);
    const lead = new SupervisorAgent({ name: 'Lead', model, subAgents: [searcher] });
    const result = await runOnce(lead, 'go', { abortSignal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(log).toEqual(['Searcher']);
    expect(model.requests).toHaveLength(1);
  });

  it('nests in a SequentialAgent, which goes on after the supervisor answers', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([delegate('Searcher', 'a', 's1'), 'answer from lead']);
    const lead = new SupervisorAgent({ name: 'Lead', model, subAgents: workers(log), outputKey: 'lead_answer' });
    const after = new FunctionAgent({
      name: 'After',
      run: (_input, ctx) => `after: ${String(ctx.state.get('lead_answer'))}`,
    });
    const result = await runOnce(new SequentialAgent({ name: 'Pipeline', subAgents: [lead, after] }), 'go');
    expect(result.output).toBe('after: answer from lead');
    expect(log).toEqual(['Searcher:a']);
  });

  it('an approval inside a worker pauses the run; a new runner over the same SQLite file resumes it without repeating work', async () => {
    const files = acrossRunners('troupe-supervisor-');
    const log: string[] = [];
    const build = (model: ScriptedModel) => {
      const refund = new FunctionTool({
        name: 'issue_refund',
        description: 'Refunds an order.',
        parameters: z.object({ amount: z.number() }),
        requireConfirmation: true,
        execute: ({ amount }) => {
          log.push(`refund ${amount}`);
          return { refunded: amount };
        },
      });
      const billing = new LlmAgent({ name: 'Billing', description: 'Handles refunds.', model, tools: [refund] });
      return new SupervisorAgent({ name: 'Lead', model, subAgents: [...workers(log), billing] });
    };
    const first = new ScriptedModel([
      delegate('Searcher', 'order A-1', 's1'),
      delegate('Billing', 'refund 30', 'b1'),
      { functionCalls: [{ name: 'issue_refund', args: { amount: 30 }, id: 'r1' }] },
    ]);
    const paused = await files.run(build(first), 'Refund order A-1');
    expect(paused.status).toBe('interrupted');
    expect(log).toEqual(['Searcher:order A-1']);

    const second = new ScriptedModel(['Refunded 30.', 'Order A-1 was refunded 30.']);
    const resumed = await files.approve(build(second), paused);
    expect(resumed.status).toBe('completed');
    expect(resumed.output).toBe('Order A-1 was refunded 30.');
    expect(log).toEqual(['Searcher:order A-1', 'refund 30']);
    expect(record(resumed.events)).toEqual([{ stopReason: 'answered', delegations: 2 }]);
    second.assertDone();
  });

  it('rejects bad configuration with the fix', () => {
    const model = new ScriptedModel([]);
    expect(() => new SupervisorAgent({ name: 'Lead', model, subAgents: [] })).toThrow(
      /no subAgents; give it at least one worker/,
    );
    const a = new FunctionAgent({ name: 'A', run: () => 'a' });
    const a2 = new FunctionAgent({ name: 'A', run: () => 'a' });
    expect(() => new SupervisorAgent({ name: 'Lead', model, subAgents: [a, a2] })).toThrow(ConfigurationError);
    expect(() => new SupervisorAgent({ name: 'Lead', model, subAgents: [a, a2] })).toThrow(/two subAgents named 'A'/);
    expect(() => new SupervisorAgent({ name: 'Lead', model, subAgents: [a], maxDelegations: 0 })).toThrow(
      /maxDelegations 0; use a whole number of at least 1/,
    );
  });
});
