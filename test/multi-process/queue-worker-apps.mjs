// The apps of the queue's multi-process tests, shared by the workers (which run them) and the API
// replicas (which serve their graphs and check resumes). Every step appends "<step> <runId> <pid>"
// to the log file when it finishes, so a test can tell which steps ran, where and how often.
import { appendFileSync } from 'node:fs';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { FunctionAgent, FunctionTool, LlmAgent, SequentialAgent, Workflow, node } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';

/** `{ pipeline, graph, desk, tick }` writing to `options.log`, each pipeline step taking `options.stepMs`. */
export function apps(options) {
  const note = (line) => appendFileSync(options.log, `${line}\n`);

  // Plain waits that ignore the abort signal: they stand for real work a process cannot stop.
  const step = (name) =>
    new FunctionAgent({
      name,
      run: async (_input, ctx) => {
        if (ctx.state.get('crashAt') === name) process.kill(process.pid, 'SIGKILL');
        await sleep(options.stepMs);
        note(`${name} ${ctx.invocationId} ${process.pid}`);
        return `${name} by ${process.pid}`;
      },
    });

  const pipeline = new SequentialAgent({ name: 'Pipeline', subAgents: ['s1', 's2', 's3', 's4', 's5'].map(step) });

  // The same five steps as a graph workflow's chain of function nodes (SPEC §17).
  const graphStep = (name) =>
    node(
      async (ctx) => {
        await sleep(options.stepMs);
        note(`${name} ${ctx.invocationId} ${process.pid}`);
        return `${name} by ${process.pid}`;
      },
      { name },
    );
  const graph = new Workflow({ name: 'Graph', edges: [['START', ...['g1', 'g2', 'g3', 'g4', 'g5'].map(graphStep)]] });

  // A tool that needs a human's approval; the model asks for it once and answers after the result.
  const refund = new FunctionTool({
    name: 'refund',
    description: 'Refunds an order.',
    parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
    requireConfirmation: true,
    execute: async ({ order }, ctx) => {
      note(`refund ${ctx.invocationId} ${process.pid}`);
      return { refunded: order };
    },
  });
  const model = new ScriptedModel(
    Array.from(
      { length: 100 },
      () => (request) =>
        request.contents.some((c) => c.parts.some((p) => p.functionResponse))
          ? 'Refunded.'
          : { functionCalls: [{ name: 'refund', args: { order: 'A1' } }] },
    ),
  );
  const desk = new LlmAgent({ name: 'Desk', model, instruction: 'Refund what is asked.', tools: [refund] });

  const tick = new FunctionAgent({
    name: 'Tick',
    run: async (_input, ctx) => {
      note(`tick ${ctx.invocationId} ${process.pid}`);
      return 'ticked';
    },
  });
  return { pipeline, graph, desk, tick };
}
