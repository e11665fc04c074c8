import { describe, expect, it } from 'vitest';
import { InMemoryRunner } from '@troupe/core';
import { agentGraph, encodeSession, type WireEvent } from '../../src/index.js';
import { layoutWorkflow, nodeWidth, type GraphLayout } from '../../ui/src/model/graph-layout.js';
import { edgeLabel, workflowSites } from '../../ui/src/model/workflow-graph.js';
import { workflowStatus, type WorkflowStatus } from '../../ui/src/model/workflow-status.js';
import type { AgentGraphNode, WorkflowOutline } from '../../ui/src/types.js';
import { rootAgent as triage } from '../e2e/fixtures/workflow-apps/triage/agent.js';

// The dev UI's workflow graph without a browser: the layered layout of a workflow's outline, and
// which nodes ran, wait or finished as of an event of a real run (the e2e fixture's triage
// workflow, run with InMemoryRunner and encoded for the wire as the API sends it).

/** The triage workflow's outline, as `GET /apps/{app}/graph` gives it on the workflow agent. */
const TRIAGE: WorkflowOutline = agentGraph(triage).workflow!;

function node(layout: GraphLayout, id: string) {
  const found = layout.nodes.find((n) => n.id === id);
  if (!found) throw new Error(`The layout has no node '${id}'; it has ${layout.nodes.map((n) => n.id).join(', ')}.`);
  return found;
}

function overlaps(a: { x: number; y: number; width: number; height: number }, b: typeof a): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

describe('workflow layout', () => {
  it('reads the outline the API gives', () => {
    expect(TRIAGE.nodes.map((n) => `${n.name}:${n.kind}`)).toEqual([
      'classify:function',
      'logs:function',
      'repro:function',
      'answer:function',
      'escalate:function',
      'merge:join',
      'writer:agent',
      'approve:function',
      'decide:function',
      'file:function',
    ]);
  });

  it('puts START first and every node in the layer of its longest path from START', () => {
    const layout = layoutWorkflow(TRIAGE);
    const layers = Object.fromEntries(layout.nodes.map((n) => [n.id, n.layer]));
    expect(layers).toEqual({
      START: 0,
      classify: 1,
      logs: 2,
      repro: 2,
      answer: 2,
      escalate: 2,
      merge: 3,
      writer: 4,
      approve: 5,
      decide: 6,
      file: 7,
    });
    // Layers go down the page; no two nodes overlap; everything is inside the drawing.
    for (const a of layout.nodes) {
      expect(a.x).toBeGreaterThanOrEqual(0);
      expect(a.y).toBeGreaterThanOrEqual(0);
      expect(a.x + a.width).toBeLessThanOrEqual(layout.width);
      expect(a.y + a.height).toBeLessThanOrEqual(layout.height);
      for (const b of layout.nodes) if (a !== b) expect(overlaps(a, b), `${a.id} and ${b.id}`).toBe(false);
    }
    expect(node(layout, 'classify').y).toBeGreaterThan(node(layout, 'START').y);
    expect(node(layout, 'merge').y).toBeGreaterThan(node(layout, 'repro').y);
  });

  it('labels edges with their routes, default and maxIterations, and draws the loop back as a curve on the right', () => {
    const layout = layoutWorkflow(TRIAGE);
    const labels = Object.fromEntries(layout.edges.map((e) => [e.key, e.label]));
    expect(labels).toEqual({
      'START→classify': '',
      'classify→logs': 'bug',
      'classify→repro': 'bug',
      'classify→answer': 'question',
      'classify→escalate': 'default',
      'logs→merge': '',
      'repro→merge': '',
      'merge→writer': '',
      'writer→approve': '',
      'approve→decide': '',
      'decide→file': 'approved',
      'decide→writer': 'rejected · max 2×',
    });
    const loop = layout.edges.find((e) => e.key === 'decide→writer')!;
    expect(loop.back).toBe(true);
    expect(layout.edges.filter((e) => e.back)).toHaveLength(1);
    // The loop's label is right of every node it passes, and inside the drawing.
    const passed = layout.nodes.filter((n) => n.layer >= 4 && n.layer <= 6);
    for (const n of passed) expect(loop.labelX).toBeGreaterThan(n.x + n.width);
    expect(loop.labelX).toBeLessThan(layout.width);
    // A forward edge's path starts at the bottom of its source and ends at the top of its target.
    const edge = layout.edges.find((e) => e.key === 'classify→answer')!;
    const from = node(layout, 'classify');
    const to = node(layout, 'answer');
    expect(edge.d.startsWith(`M${from.x + from.width / 2},${from.y + from.height}`)).toBe(true);
    expect(edge.d.endsWith(`${to.x + to.width / 2},${to.y}`)).toBe(true);
    // The route map's labels sit apart, between classify and its targets.
    const fanned = layout.edges.filter((e) => e.from === 'classify').sort((a, b) => a.labelX - b.labelX);
    for (let i = 1; i < fanned.length; i++) expect(fanned[i]!.labelX).toBeGreaterThan(fanned[i - 1]!.labelX);
    for (const e of fanned) {
      expect(e.labelY).toBeGreaterThan(from.y + from.height);
      expect(e.labelY).toBeLessThan(to.y);
    }
  });

  it('routes an edge that skips layers through waypoints, around the nodes between', () => {
    // a → c directly and through b: the direct edge passes b's layer beside b, not through it.
    const layout = layoutWorkflow({
      nodes: ['a', 'b', 'c'].map((name) => ({ name, kind: 'function' as const, description: '' })),
      edges: [
        { from: 'START', to: 'a' },
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'a', to: 'c', routes: ['skip'] },
      ],
    });
    expect(node(layout, 'c').layer).toBe(3);
    const direct = layout.edges.find((e) => e.key === 'a→c')!;
    // The path has one curve per gap it crosses (a → waypoint, through the layer, waypoint → c).
    expect(direct.d.match(/C/g)).toHaveLength(3);
    const b = node(layout, 'b');
    const through = [...direct.d.matchAll(/(-?[\d.]+),(-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
    const inLayer = through.filter(([, y]) => y! >= b.y && y! <= b.y + b.height);
    expect(inLayer.length).toBeGreaterThan(0);
    for (const [x] of inLayer) expect(x! < b.x || x! > b.x + b.width).toBe(true);
    expect(direct.label).toBe('skip');
  });

  it('draws a self-loop and a node the edges name but the node list does not', () => {
    const layout = layoutWorkflow({
      nodes: [{ name: 'poll', kind: 'function', description: '' }],
      edges: [
        { from: 'START', to: 'poll' },
        { from: 'poll', to: 'poll', routes: ['again'] },
        { from: 'poll', to: 'done', default: true },
      ],
    });
    expect(layout.nodes.map((n) => n.id)).toEqual(['START', 'poll', 'done']);
    const loop = layout.edges.find((e) => e.key === 'poll→poll')!;
    expect(loop.back).toBe(true);
    expect(loop.label).toBe('again');
    expect(layout.edges.find((e) => e.key === 'poll→done')!.label).toBe('default');
  });

  it('sizes a node for its name within bounds', () => {
    expect(nodeWidth('a')).toBe(104);
    expect(nodeWidth('classify_the_incoming_ticket')).toBeGreaterThan(nodeWidth('classify'));
    expect(nodeWidth('x'.repeat(80))).toBe(220);
  });

  it('names DEFAULT_ROUTE in a route list default too', () => {
    expect(edgeLabel({ from: 'a', to: 'b', routes: ['__DEFAULT__'] })).toBe('default');
    expect(edgeLabel({ from: 'a', to: 'b', routes: ['yes', 'ok'], maxIterations: 3 })).toBe('yes, ok · max 3×');
    expect(edgeLabel({ from: 'a', to: 'b' })).toBe('');
  });
});

describe('workflow sites', () => {
  it('finds the workflows of the tree, a nested one under its node’s path', () => {
    const leaf = (name: string, type: string, extra: Partial<AgentGraphNode> = {}): AgentGraphNode => ({
      name,
      type,
      class: 'X',
      description: '',
      children: [],
      tools: [],
      ...extra,
    });
    const inner = leaf('inner', 'workflow', {
      workflow: { nodes: [{ name: 'x', kind: 'function', description: '' }], edges: [{ from: 'START', to: 'x' }] },
    });
    const other = leaf('other', 'workflow', {
      workflow: { nodes: [{ name: 'y', kind: 'function', description: '' }], edges: [{ from: 'START', to: 'y' }] },
    });
    const outer = leaf('outer', 'workflow', {
      children: [inner],
      workflow: {
        nodes: [{ name: 'sub', kind: 'agent', agent: 'inner', description: '' }],
        edges: [{ from: 'START', to: 'sub' }],
      },
    });
    const root = leaf('root', 'sequential', { children: [outer, other] });
    expect(workflowSites(root).map(({ agent, path, depth }) => ({ agent, path, depth }))).toEqual([
      { agent: 'outer', path: 'outer', depth: 0 },
      { agent: 'inner', path: 'outer.sub', depth: 1 },
      { agent: 'other', path: 'other', depth: 0 },
    ]);
    expect(workflowSites(leaf('solo', 'llm'))).toEqual([]);
  });
});

/** Runs the triage fixture on a bug ticket to its approval (and, when `answer` is given, on to its end). */
async function runTriage(answer?: string): Promise<WireEvent[]> {
  const runner = new InMemoryRunner({ agent: triage });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const paused = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'The app crashes on save' });
  expect(paused.status).toBe('interrupted');
  if (answer !== undefined) {
    const resumed = await runner.resume({
      userId: 'u',
      sessionId: session.id,
      responses: { [paused.interrupts[0]!.id]: answer },
    });
    expect(resumed.status).toBe('completed');
  }
  const stored = await runner.sessionService.getSession({
    appName: runner.appName,
    userId: 'u',
    sessionId: session.id,
  });
  return encodeSession(stored!).events!;
}

const statuses = (status: WorkflowStatus) => Object.fromEntries([...status.nodes].map(([name, s]) => [name, s.status]));

/** The index of the node-record event of `node` (`started` or `ended`, the first one). */
function recordIndex(events: readonly WireEvent[], node: string, record: 'started' | 'ended'): number {
  const index = events.findIndex((e) => e.nodeInfo?.path === `triage.${node}` && e.actions.agentState?.node === record);
  if (index < 0) throw new Error(`No '${record}' record of triage.${node} among the events.`);
  return index;
}

describe('workflow status', () => {
  it('lights the nodes that finished, and the approval waiting for its answer', async () => {
    const events = await runTriage();
    const status = workflowStatus('triage', TRIAGE, events);
    expect(statuses(status)).toEqual({
      classify: 'finished',
      logs: 'finished',
      repro: 'finished',
      answer: 'idle',
      escalate: 'idle',
      merge: 'finished',
      writer: 'finished',
      approve: 'waiting',
      decide: 'idle',
      file: 'idle',
    });
    expect(status.ended).toBe(false);
    const approve = status.nodes.get('approve')!.runs[0]!;
    expect(approve.input).toBe('Bug report: saving crashes the app (TypeError at save()).');
    expect(approve.hasOutput).toBe(false);
    expect(approve.waitingFor).toBe('File this bug? Bug report: saving crashes the app (TypeError at save()).');
    // The route map took only the bug edges; the join and the chain after it were taken.
    expect([...status.taken].sort()).toEqual(
      [
        'START→classify',
        'classify→logs',
        'classify→repro',
        'logs→merge',
        'repro→merge',
        'merge→writer',
        'writer→approve',
      ].sort(),
    );
  });

  it('after the answer: every node on the bug path finished, with its input, output and route', async () => {
    const events = await runTriage('yes');
    const status = workflowStatus('triage', TRIAGE, events);
    expect(statuses(status)).toEqual({
      classify: 'finished',
      logs: 'finished',
      repro: 'finished',
      answer: 'idle',
      escalate: 'idle',
      merge: 'finished',
      writer: 'finished',
      approve: 'finished',
      decide: 'finished',
      file: 'finished',
    });
    expect(status.ended).toBe(true);
    const classify = status.nodes.get('classify')!.runs;
    expect(classify).toHaveLength(1);
    expect(classify[0]).toMatchObject({
      runId: '1',
      attempt: 1,
      input: 'The app crashes on save',
      output: 'The app crashes on save',
      route: 'bug',
    });
    expect(status.nodes.get('merge')!.runs[0]!.input).toEqual({
      logs: { lines: 2, last: 'TypeError at save()' },
      repro: ['ok', 'crash'],
    });
    expect(status.nodes.get('approve')!.runs[0]).toMatchObject({ output: 'yes', status: 'finished' });
    expect(status.nodes.get('approve')!.runs[0]!.waitingFor).toBeUndefined();
    expect(status.nodes.get('decide')!.runs[0]!.route).toBe('approved');
    expect(status.taken.has('decide→file')).toBe(true);
    expect(status.taken.has('decide→writer')).toBe(false);
    // repro's ctx.runNode children are listed under it, each with its input and output.
    expect(
      status.nodes.get('repro')!.children.map((c) => ({
        name: c.name,
        status: c.status,
        input: c.runs[0]!.input,
        output: c.runs[0]!.output,
      })),
    ).toEqual([
      { name: 'step@1', status: 'finished', input: 'open', output: 'ok' },
      { name: 'step@2', status: 'finished', input: 'save', output: 'crash' },
    ]);
  });

  it('as of an earlier event, only what had run by then: finished, running, not reached', async () => {
    const events = await runTriage('yes');
    const afterClassify = workflowStatus('triage', TRIAGE, events, recordIndex(events, 'classify', 'ended'));
    expect(statuses(afterClassify)).toEqual({
      classify: 'finished',
      logs: 'idle',
      repro: 'idle',
      answer: 'idle',
      escalate: 'idle',
      merge: 'idle',
      writer: 'idle',
      approve: 'idle',
      decide: 'idle',
      file: 'idle',
    });
    expect([...afterClassify.taken]).toEqual(['START→classify']);

    const writerStarted = workflowStatus('triage', TRIAGE, events, recordIndex(events, 'writer', 'started'));
    expect(writerStarted.nodes.get('writer')!.status).toBe('running');
    expect(writerStarted.nodes.get('writer')!.runs[0]!.hasOutput).toBe(false);
    expect(writerStarted.nodes.get('merge')!.status).toBe('finished');
    expect(writerStarted.nodes.get('approve')!.status).toBe('idle');

    // repro running, its first child finished and its second not yet started.
    const firstStep = events.findIndex(
      (e) => e.nodeInfo?.path === 'triage.repro.step@1' && e.actions.agentState?.node === 'ended',
    );
    const midRepro = workflowStatus('triage', TRIAGE, events, firstStep);
    expect(midRepro.nodes.get('repro')!.status).toBe('running');
    expect(midRepro.nodes.get('repro')!.children.map((c) => `${c.name} ${c.status}`)).toEqual(['step@1 finished']);

    // The resume record answers the approval: from then on it no longer waits.
    const resumeRecord = events.findIndex((e) => e.author === 'user' && e.actions.agentState?.resume !== undefined);
    expect(workflowStatus('triage', TRIAGE, events, resumeRecord - 1).nodes.get('approve')!.status).toBe('waiting');
    expect(workflowStatus('triage', TRIAGE, events, resumeRecord).nodes.get('approve')!.status).toBe('running');

    // Before the workflow's first record: nothing ran.
    const none = workflowStatus('triage', TRIAGE, events, 0);
    expect(none.invocationId).toBeUndefined();
    expect(new Set(Object.values(statuses(none)))).toEqual(new Set(['idle']));
  });

  it('a second turn shows its own runs, not the first turn’s', async () => {
    const first = await runTriage('yes');
    const second = (await runTriage()).map((e) => ({ ...e, invocationId: `second-${e.invocationId}` }));
    const events = [...first, ...second];
    const status = workflowStatus('triage', TRIAGE, events);
    expect(status.invocationId).toBe(second[0]!.invocationId);
    expect(status.nodes.get('file')!.status).toBe('idle');
    expect(status.nodes.get('approve')!.status).toBe('waiting');
    // The first turn's user message selected in the second: still the first turn's runs.
    expect(workflowStatus('triage', TRIAGE, events, first.length).nodes.get('file')!.status).toBe('finished');
  });

  it('a run that failed, a retried try and a run that ended the invocation with an error', () => {
    let id = 0;
    const event = (fields: Partial<WireEvent>): WireEvent => ({
      id: `e${++id}`,
      invocationId: 'inv',
      timestamp: 1_700_000_000 + id,
      author: 'w',
      branch: '',
      path: 'w',
      actions: { stateDelta: {}, artifactDelta: {} },
      ...fields,
    });
    const outline: WorkflowOutline = {
      nodes: [
        { name: 'fetch', kind: 'function', description: '' },
        { name: 'parse', kind: 'function', description: '' },
      ],
      edges: [
        { from: 'START', to: 'fetch' },
        { from: 'fetch', to: 'parse' },
      ],
    };
    const info = (node: string, attempt = 1) => ({ path: `w.${node}`, runId: '1', attempt });
    const events = [
      event({ author: 'user', content: { role: 'user', parts: [{ text: 'go' }] } }),
      event({
        nodeInfo: info('fetch'),
        actions: { stateDelta: {}, artifactDelta: {}, agentState: { node: 'started', input: 'go' } },
      }),
      event({
        nodeInfo: info('fetch'),
        errorCode: 'ERROR',
        errorMessage: 'Try 1 of 3 failed: socket hang up',
        actions: { stateDelta: {}, artifactDelta: {}, agentState: { node: 'failed' } },
      }),
      event({
        nodeInfo: info('fetch', 2),
        actions: { stateDelta: {}, artifactDelta: {}, agentState: { node: 'started', input: 'go' } },
      }),
      event({
        nodeInfo: info('fetch', 2),
        output: 'page',
        actions: { stateDelta: {}, artifactDelta: {}, agentState: { node: 'ended' } },
      }),
      event({
        nodeInfo: info('parse'),
        actions: { stateDelta: {}, artifactDelta: {}, agentState: { node: 'started', input: 'page' } },
      }),
      event({ errorCode: 'NODE_FAILED', errorMessage: "Node 'w.parse' failed" }),
    ];
    const retrying = workflowStatus('w', outline, events, 3);
    expect(retrying.nodes.get('fetch')!.runs).toMatchObject([
      { status: 'running', attempt: 2, errors: ['Try 1 of 3 failed: socket hang up'] },
    ]);
    const status = workflowStatus('w', outline, events);
    expect(status.nodes.get('fetch')!.runs).toHaveLength(1);
    expect(status.nodes.get('fetch')!.runs[0]).toMatchObject({ status: 'finished', attempt: 2, output: 'page' });
    expect(status.nodes.get('parse')!.status).toBe('failed');
    expect(status.nodes.get('parse')!.runs[0]!.errors).toEqual(["NODE_FAILED: Node 'w.parse' failed"]);
  });
});
