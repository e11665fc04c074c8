import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AgentDefinitionError,
  AgentNode,
  FunctionAgent,
  FunctionNode,
  InMemoryRunner,
  JoinNode,
  LlmAgent,
  loadAgent,
  Workflow,
  type Event,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { fixture } from './helpers.js';

// `type: workflow` (SPEC §17 "Seen everywhere"): a graph workflow written in YAML, its nodes by path
// (agents, module functions), inline, or of a kind (`type: join`), its edges as chains, route maps
// and explicit edges.

async function run(agent: Workflow, message: string) {
  const runner = new InMemoryRunner({ agent });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: message });
  const stored = await runner.sessionService.getSession({
    appName: runner.appName,
    userId: 'u',
    sessionId: session.id,
  });
  return { result, events: stored!.events };
}

const ends = (events: readonly Event[]) =>
  events.filter((e) => e.actions.agentState?.node === 'ended').map((e) => e.nodeInfo!.path);

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Writes the files into a new folder and loads `workflow.yaml` from it; resolves with the error it throws. */
async function loadError(files: Record<string, string>, options?: Parameters<typeof loadAgent>[1]) {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-yaml-workflow-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const error: unknown = await loadAgent(join(dir, 'workflow.yaml'), options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentDefinitionError);
  return error as AgentDefinitionError;
}

const NODES_JS = `
export function classify(ctx, text) { return text; }
export function answer(ctx, text) { return 'answer to ' + text; }
export const notAFunction = 42;
`;

describe('loadAgent: type workflow', () => {
  it('reads nodes of every form and their options, the edges and the workflow options', async () => {
    const answerer = new ScriptedModel([]);
    const agent = await loadAgent(fixture('workflow/triage.yaml'), { models: { answerer } });
    expect(agent).toBeInstanceOf(Workflow);
    const workflow = agent as Workflow;
    expect(workflow).toMatchObject({ name: 'triage', description: 'Routes a request and answers it.' });
    expect(workflow.maxConcurrency).toBe(4);
    expect(workflow.maxSteps).toBe(50);
    expect(workflow.stateSchema).toEqual({ type: 'object', properties: { category: { type: 'string' } } });
    const nodes = workflow.graph!.nodes;
    expect([...nodes].map(([name, n]) => [name, n.constructor.name])).toEqual([
      ['classify', 'FunctionNode'],
      ['answer', 'AgentNode'],
      ['note', 'FunctionNode'],
      ['count', 'AgentNode'],
      ['merge', 'JoinNode'],
      ['report', 'FunctionNode'],
    ]);
    expect(nodes.get('answer')).toBeInstanceOf(AgentNode);
    expect((nodes.get('answer') as AgentNode).agent).toBeInstanceOf(LlmAgent);
    expect(((nodes.get('answer') as AgentNode).agent as LlmAgent).model).toBe(answerer);
    expect((nodes.get('count') as AgentNode).agent).toBeInstanceOf(FunctionAgent);
    expect((nodes.get('count') as AgentNode).agent.name).toBe('counter');
    expect(nodes.get('note')).toMatchObject({ timeout: 5000, retryConfig: { maxAttempts: 2, initialDelayMs: 0 } });
    expect(nodes.get('report')!.outputSchema).toMatchObject({ required: ['answer', 'words'] });
    expect(workflow.subAgents.map((a) => a.name)).toEqual(['answer', 'counter']);
    expect(
      workflow.graph!.edges.map(
        (e) => `${e.from}→${e.to}${e.isDefault ? ' (default)' : e.routes ? ` (${e.routes.join()})` : ''}`,
      ),
    ).toEqual([
      'START→classify',
      'classify→answer (question)',
      'classify→note (default)',
      'START→count',
      'answer→merge',
      'count→merge',
      'merge→report',
    ]);
  });

  it('runs with ScriptedModel: the route map picks the LLM node, the join merges it with the counter for the report', async () => {
    const answerer = new ScriptedModel(['Paris is the capital.']);
    const workflow = (await loadAgent(fixture('workflow/triage.yaml'), { models: { answerer } })) as Workflow;
    const { result, events } = await run(workflow, 'What is the capital of France?');
    expect(result.status).toBe('completed');
    expect(result.output).toEqual({ answer: 'Paris is the capital.', words: 6 });
    expect(result.state.category).toBe('question');
    expect(ends(events)).toEqual(
      expect.arrayContaining(['triage.classify', 'triage.count', 'triage.answer', 'triage.merge', 'triage.report']),
    );
    expect(ends(events)).not.toContain('triage.note');
    expect(ends(events).indexOf('triage.merge')).toBeGreaterThan(ends(events).indexOf('triage.answer'));
    expect(JSON.stringify(answerer.requests[0]!.contents)).toContain('What is the capital of France?');
    answerer.assertDone();
  });

  it('takes the default route, and the retry_config lets a node fail once', async () => {
    const workflow = (await loadAgent(fixture('workflow/triage.yaml'), {
      models: { answerer: new ScriptedModel([]) },
    })) as Workflow;
    const { result, events } = await run(workflow, 'buy milk');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('noted: buy milk');
    const failed = events.filter((e) => e.actions.agentState?.node === 'failed');
    expect(failed.map((e) => [e.nodeInfo!.path, e.errorMessage])).toEqual([
      ['triage.note', 'Try 1 of 2 failed: the notebook was busy'],
    ]);
  });

  it('reads nodes as a list, options in any key case, explicit edges with routes and max_iterations', async () => {
    const workflow = (await loadAgent(fixture('workflow/loop.yaml'))) as Workflow;
    const nodes = workflow.graph!.nodes;
    expect([...nodes.keys()]).toEqual(['draft', 'review', 'spread', 'items', 'finish', 'total', 'helper']);
    expect(nodes.get('review')!.waitForOutput).toBe(true);
    expect(nodes.get('items')).toMatchObject({ parallelWorker: true, maxParallelWorkers: 2, timeout: 5000 });
    expect(nodes.get('helper')!.rerunOnResume).toBe(true);
    expect((nodes.get('helper') as AgentNode).agent.name).toBe('Helper');
    expect(nodes.get('finish')).toBeInstanceOf(JoinNode);
    expect(nodes.get('total')).toBeInstanceOf(FunctionNode);
    expect(workflow.graph!.edges.find((e) => e.from === 'review' && e.to === 'draft')).toMatchObject({
      routes: ['revise'],
      maxIterations: 5,
    });

    const { result, events } = await run(workflow, 'go');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('go: 12');
    expect(ends(events).filter((path) => path === 'drafts.draft')).toHaveLength(3);
    expect(ends(events).filter((path) => path.startsWith('drafts.items.'))).toHaveLength(3);
  });

  it('names an inline agent without name: after its node, in a list of nodes as in a map', async () => {
    for (const nodes of [
      'nodes:\n  helper: { agent: { instruction: Help. }, retry_config: { max_attempts: 2 } }\n',
      'nodes:\n  - { name: helper, agent: { instruction: Help. }, retry_config: { max_attempts: 2 } }\n',
    ]) {
      const dir = mkdtempSync(join(tmpdir(), 'troupe-yaml-workflow-'));
      dirs.push(dir);
      writeFileSync(join(dir, 'workflow.yaml'), `type: workflow\nname: wf\n${nodes}edges:\n  - [START, helper]\n`);
      const workflow = (await loadAgent(join(dir, 'workflow.yaml'), {
        model: new ScriptedModel(['helped']),
      })) as Workflow;
      expect((workflow.graph!.nodes.get('helper') as AgentNode).agent.name).toBe('helper');
      expect((await run(workflow, 'go')).result.output).toBe('helped');
    }
  });
});

describe('loadAgent: type workflow errors name the file, the line and the key', () => {
  const workflow = (nodes: string, edges: string) =>
    ['type: workflow', 'name: flow', 'nodes:', nodes, 'edges:', edges].join('\n');
  const cases: [string, string, string, number, string, RegExp][] = [
    [
      'a node name in an edge that is not a node',
      '  classify: ./nodes.js#classify\n  answer: ./nodes.js#answer',
      '  - [START, classify]\n  - [classify, { question: anwser }]',
      8,
      'edges[1]',
      /route 'question' names 'anwser', which is not a node of this workflow\. Did you mean 'answer'\? Its nodes are: classify, answer \(and START\)\./,
    ],
    [
      'a missing export',
      '  classify: ./nodes.js#clasify',
      '  - [START, classify]',
      4,
      'nodes.classify',
      /nodes\.js has no export 'clasify'; did you mean 'classify'\? It exports .*'notAFunction'\./,
    ],
    [
      'an export that is not a node',
      '  classify: { module: ./nodes.js, export: notAFunction }',
      '  - [START, classify]',
      4,
      'nodes.classify.module',
      /'notAFunction' of .*nodes\.js is a number; a workflow node's module exports a function \(ctx, input\) => output, an agent, a tool or a node/,
    ],
    [
      'a node in no edge',
      '  classify: ./nodes.js#classify\n  answer: ./nodes.js#answer',
      '  - [START, classify]',
      5,
      'nodes.answer',
      /node 'answer' is in no edge, so it would never run\. Add it to 'edges' \(e\.g\. \[START, answer\]\), or remove it\./,
    ],
    [
      'max_parallel_workers without parallel_worker',
      '  classify:\n    module: ./nodes.js#classify\n    max_parallel_workers: 2',
      '  - [START, classify]',
      6,
      'nodes.classify.max_parallel_workers',
      /'max_parallel_workers' needs 'parallel_worker: true'/,
    ],
    [
      'a misspelt retry option',
      '  classify:\n    module: ./nodes.js#classify\n    retry_config: { max_attempt: 3 }',
      '  - [START, classify]',
      6,
      'nodes.classify.retry_config.max_attempt',
      /unknown key 'max_attempt' for 'retry_config'\. Did you mean 'max_attempts'\?/,
    ],
    [
      'a node unreachable from START (the graph rules, at edges)',
      '  classify: ./nodes.js#classify\n  answer: ./nodes.js#answer',
      '  - [START, classify]\n  - [answer, classify]',
      6,
      'edges',
      /Workflow 'flow': node 'answer' cannot be reached from START\. Add an edge into it, or remove it\./,
    ],
    [
      'two list entries with one name',
      '  - ./nodes.js#classify\n  - { name: classify, module: ./nodes.js#answer }',
      '  - [START, classify]',
      5,
      'nodes[1].module',
      /a second workflow node is named 'classify' \(the first is at .*workflow\.yaml:4\)\. Node names are unique in a workflow; rename one\./,
    ],
    [
      'an export picked from a definition file',
      '  classify: ./helper.yaml#main',
      '  - [START, classify]',
      4,
      'nodes.classify',
      /'\.\/helper\.yaml#main' names an export of a definition file; '#main' only picks an export of a \.js\/\.ts module\./,
    ],
  ];
  it.each(cases)('%s', async (_what, nodes, edges, line, key, message) => {
    const error = await loadError({
      'workflow.yaml': workflow(nodes, edges),
      'nodes.js': NODES_JS,
      'helper.yaml': 'name: Helper\ninstruction: Help.',
    });
    expect(error.line).toBe(line);
    expect(error.key).toBe(key);
    expect(error.message).toMatch(message);
    expect(error.message).toMatch(new RegExp(`workflow\\.yaml:${line}: `));
  });

  it('needs nodes and edges', async () => {
    const noNodes = await loadError({ 'workflow.yaml': 'type: workflow\nname: flow\nedges: [[START, a]]' });
    expect(noNodes.message).toMatch(/'nodes' is required: the workflow's nodes, as a mapping of name to node\./);
    const noEdges = await loadError({
      'workflow.yaml': 'type: workflow\nname: flow\nnodes:\n  a: ./nodes.js#classify',
      'nodes.js': NODES_JS,
    });
    expect(noEdges.message).toMatch(/'edges' is required: chains of node names from START/);
  });
});
