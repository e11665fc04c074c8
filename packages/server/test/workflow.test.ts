import { afterEach, describe, expect, it } from 'vitest';
import {
  createEvent,
  DEFAULT_ROUTE,
  FunctionTool,
  InMemorySessionService,
  JoinNode,
  LlmAgent,
  node,
  RequestInput,
  Workflow,
  type NodeContext,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { z } from 'zod';
import {
  createApp,
  serve,
  type AgentGraphNode,
  type CreateAppOptions,
  type ServerHandle,
  type WireEvent,
  type WireSession,
} from '../src/index.js';
import { expectError, message, parseFrames } from './helpers.js';

// Graph workflows (SPEC §17) through the HTTP server, over a real listening socket: the graph
// route, node events on the wire, and a RequestInput answered the ways ADK's clients answer it
// (ADK's web UI: a function response to the adk_request_input call, free text as { result: text },
// a form as an object; ADK's CLI: plain text).

type FunctionCall = { id: string; name: string; args: Record<string, unknown> };

/** What ADK's web UI shows as requests: long-running function calls with no function response anywhere in the session. */
function pendingRequests(events: readonly WireEvent[]): FunctionCall[] {
  const answered = new Set(
    events.flatMap((e) =>
      (e.content?.parts ?? []).flatMap((p) => ('functionResponse' in p ? [p.functionResponse.id] : [])),
    ),
  );
  return events
    .flatMap((e) =>
      (e.content?.parts ?? []).flatMap((p) =>
        'functionCall' in p && e.longRunningToolIds?.includes(p.functionCall.id) ? [p.functionCall] : [],
      ),
    )
    .filter((c) => !answered.has(c.id));
}

const servers: ServerHandle[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function listen(apps: Record<string, Workflow>, options: Partial<CreateAppOptions> = {}) {
  const sessionService = new InMemorySessionService();
  const server = await serve(createApp({ apps, sessionService, ...options }), { port: 0 });
  servers.push(server);
  const http = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const newSession = async (app: string): Promise<string> =>
    ((await (await http('POST', `/apps/${app}/users/alice/sessions`)).json()) as WireSession).id;
  const readSession = async (app: string, id: string): Promise<WireSession> =>
    (await (await http('GET', `/apps/${app}/users/alice/sessions/${id}`)).json()) as WireSession;
  /** POST /run_sse as ADK's web UI does; resolves with the frames once the stream ends. */
  const runSse = async (app: string, sessionId: string, body: Record<string, unknown>): Promise<WireEvent[]> => {
    const res = await http('POST', '/run_sse', { appName: app, userId: 'alice', sessionId, streaming: true, ...body });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    return parseFrames(await res.text());
  };
  return { http, newSession, readSession, runSse };
}

/** START → greet (routes 'ask') → askName (RequestInput with a form schema) → welcome. */
function intake() {
  const runs: string[] = [];
  const greet = node(
    (_ctx, text: string) => {
      runs.push('greet');
      return createEvent({
        output: text.toUpperCase(),
        route: 'ask',
        content: { role: 'model', parts: [{ text: 'Hi!' }] },
      });
    },
    { name: 'greet' },
  );
  const askName = node(
    (_ctx, greeting: string) => {
      runs.push('askName');
      return new RequestInput({
        message: 'What is your name?',
        payload: { greeting },
        responseSchema: z.object({ name: z.string() }),
      });
    },
    { name: 'askName' },
  );
  const welcome = node(
    (_ctx, answer: string | { name: string }) => `Welcome, ${typeof answer === 'string' ? answer : answer.name}!`,
    { name: 'welcome' },
  );
  return {
    runs,
    workflow: new Workflow({
      name: 'intake',
      edges: [
        ['START', greet, { ask: askName }],
        [askName, welcome],
      ],
    }),
  };
}

/** START → classify → { question: answerer (an LlmAgent), default: prepare } → [lookup (a tool), enrich (per item)] → merge (a JoinNode), with merge → classify at most twice. */
function triageWorkflow(): Workflow {
  const answerer = new LlmAgent({
    name: 'answerer',
    description: 'Answers questions.',
    model: new ScriptedModel(['42']),
  });
  const lookup = new FunctionTool({
    name: 'lookup',
    description: 'Looks a topic up.',
    parameters: z.object({ topic: z.string() }),
    execute: ({ topic }) => ({ topic, found: true }),
  });
  const classify = node(
    (_ctx, text: string) => createEvent({ output: text, route: text.endsWith('?') ? 'question' : 'other' }),
    {
      name: 'classify',
      description: 'Question or not.',
    },
  );
  const prepare = node((_ctx, text: string) => ({ topic: text }), { name: 'prepare' });
  const enrich = node((_ctx, item: unknown) => item, { name: 'enrich', parallelWorker: true, maxParallelWorkers: 2 });
  const merge = new JoinNode({ name: 'merge' });
  return new Workflow({
    name: 'triage',
    description: 'Sorts messages.',
    edges: [
      ['START', classify, { question: answerer, [DEFAULT_ROUTE]: prepare }],
      [prepare, [lookup, enrich], merge],
      { fromNode: merge, toNode: classify, maxIterations: 2 },
    ],
  });
}

describe('graph workflows over HTTP', () => {
  it('GET /apps/{app}/graph gives the workflow its nodes (kinds, agent, parallelWorker) and edges (routes, default, maxIterations)', async () => {
    const triage = triageWorkflow();
    const { http } = await listen({ triage });
    const res = await http('GET', '/apps/triage/graph');
    expect(res.status).toBe(200);
    const graph = (await res.json()) as AgentGraphNode;
    expect(graph).toMatchObject({
      name: 'triage',
      type: 'workflow',
      class: 'Workflow',
      description: 'Sorts messages.',
    });
    expect(graph.children.map((c) => [c.name, c.type])).toEqual([['answerer', 'llm']]);
    expect(graph.tools.map((t) => t.name)).toEqual(['lookup']);
    expect(graph.workflow).toEqual({
      nodes: [
        { name: 'classify', kind: 'function', description: 'Question or not.' },
        { name: 'answerer', kind: 'agent', agent: 'answerer', description: 'Answers questions.' },
        { name: 'prepare', kind: 'function', description: '' },
        { name: 'lookup', kind: 'tool', description: 'Looks a topic up.' },
        { name: 'enrich', kind: 'function', parallelWorker: true, description: '' },
        { name: 'merge', kind: 'join', description: '' },
      ],
      edges: [
        { from: 'START', to: 'classify' },
        { from: 'classify', to: 'answerer', routes: ['question'] },
        { from: 'classify', to: 'prepare', default: true },
        { from: 'prepare', to: 'lookup' },
        { from: 'prepare', to: 'enrich' },
        { from: 'lookup', to: 'merge' },
        { from: 'enrich', to: 'merge' },
        { from: 'merge', to: 'classify', maxIterations: 2 },
      ],
    });
    // The agent node's agent is drawn from children; an LlmAgent has no workflow of its own.
    expect(graph.children[0]!.workflow).toBeUndefined();
  });

  it('a workflow nested as a node has its own outline under children; a dynamicEntry workflow has none', async () => {
    const inner = new Workflow({
      name: 'inner',
      edges: [['START', node((_ctx, x: string) => x, { name: 'echo' })]],
    });
    const dynamic = new Workflow({ name: 'dyn', dynamicEntry: (_ctx, input) => input });
    const outer = new Workflow({ name: 'outer', edges: [['START', inner, dynamic]] });
    const { http } = await listen({ outer });
    const graph = (await (await http('GET', '/apps/outer/graph')).json()) as AgentGraphNode;
    expect(graph.workflow!.nodes).toEqual([
      { name: 'inner', kind: 'agent', agent: 'inner', description: '' },
      { name: 'dyn', kind: 'agent', agent: 'dyn', description: '' },
    ]);
    const [innerNode, dynNode] = graph.children;
    expect(innerNode!.workflow).toEqual({
      nodes: [{ name: 'echo', kind: 'function', description: '' }],
      edges: [{ from: 'START', to: 'echo' }],
    });
    expect(dynNode).toMatchObject({ name: 'dyn', type: 'workflow' });
    expect(dynNode!.workflow).toBeUndefined();
  });

  it("node events carry nodeInfo, output and route on the wire; the pause goes out as ADK's adk_request_input call", async () => {
    const { workflow } = intake();
    const { newSession, runSse } = await listen({ intake: workflow });
    const sessionId = await newSession('intake');
    const events = await runSse('intake', sessionId, { newMessage: message('hello') });

    const greetEnd = events.find((e) => e.nodeInfo?.path === 'intake.greet' && e.actions.agentState?.node === 'ended')!;
    expect(greetEnd).toMatchObject({
      author: 'greet',
      output: 'HELLO',
      route: 'ask',
      nodeInfo: { path: 'intake.greet', runId: '1', attempt: 1 },
    });
    const said = events.find((e) => e.nodeInfo?.path === 'intake.greet' && e.content)!;
    expect(said.content).toEqual({ role: 'model', parts: [{ text: 'Hi!' }] });
    expect(events.find((e) => e.nodeInfo?.path === 'intake.askName')?.actions.agentState).toEqual({
      node: 'started',
      input: 'HELLO',
    });

    const pause = events.at(-1)!;
    expect(pause).toMatchObject({ author: 'askName', nodeInfo: { path: 'intake.askName' } });
    const id = pause.interrupt!.id;
    expect(pause.longRunningToolIds).toEqual([id]);
    expect(pause.content).toEqual({
      role: 'model',
      parts: [
        {
          functionCall: {
            id,
            name: 'adk_request_input',
            args: {
              interruptId: id,
              message: 'What is your name?',
              payload: { greeting: 'HELLO' },
              response_schema: expect.objectContaining({
                type: 'object',
                properties: { name: { type: 'string' } },
                required: ['name'],
              }),
            },
          },
        },
      ],
    });
    expect(pendingRequests(events).map((c) => c.id)).toEqual([id]);
  });

  it("ADK's web UI answer (a function response { result: text } to adk_request_input, on /run_sse) resumes the paused run, which completes; a reload shows it answered", async () => {
    const { runs, workflow } = intake();
    const { newSession, readSession, runSse } = await listen({ intake: workflow });
    const sessionId = await newSession('intake');
    const paused = await runSse('intake', sessionId, { newMessage: message('hello') });
    const pause = paused.at(-1)!;
    // A reloaded ADK web UI finds the request in GET session, and answers it.
    const [request] = pendingRequests((await readSession('intake', sessionId)).events!);
    expect(request!.name).toBe('adk_request_input');

    const resumed = await runSse('intake', sessionId, {
      newMessage: {
        role: 'user',
        parts: [{ functionResponse: { id: request!.id, name: request!.name, response: { result: 'Ada' } } }],
      },
      stateDelta: null,
      functionCallEventId: pause.id,
    });
    expect(resumed.every((e) => e.invocationId === pause.invocationId)).toBe(true);
    expect(
      resumed.find((e) => e.nodeInfo?.path === 'intake.askName' && e.actions.agentState?.node === 'ended')?.output,
    ).toBe('Ada');
    const end = resumed.at(-1)!;
    expect(end).toMatchObject({ author: 'intake', output: 'Welcome, Ada!', nodeInfo: { path: 'intake' } });
    expect(end.actions.agentState).toEqual({ workflow: 'ended' });
    // greet and askName ran once: the resume went on from the open node.
    expect(runs).toEqual(['greet', 'askName']);

    const after = (await readSession('intake', sessionId)).events!;
    expect(pendingRequests(after)).toEqual([]);
    const record = after.find((e) => e.author === 'user' && e.actions.agentState?.resume !== undefined)!;
    expect(record).toMatchObject({ invocationId: pause.invocationId });
    expect(record.content).toEqual({
      role: 'user',
      parts: [{ functionResponse: { id: request!.id, name: 'adk_request_input', response: { result: 'Ada' } } }],
    });
  });

  it('a form answer (an object) is checked against response_schema: a wrong one is a 400 that leaves the run paused, a right one resumes it', async () => {
    const { workflow } = intake();
    const { http, newSession, readSession, runSse } = await listen({ intake: workflow });
    const sessionId = await newSession('intake');
    const pause = (await runSse('intake', sessionId, { newMessage: message('hello') })).at(-1)!;
    const id = pause.interrupt!.id;
    const answer = (response: Record<string, unknown>) => ({
      appName: 'intake',
      userId: 'alice',
      sessionId,
      newMessage: { role: 'user', parts: [{ functionResponse: { id, name: 'adk_request_input', response } }] },
    });

    const wrong = await http('POST', '/run', answer({ name: 3 }));
    expect(await expectError(wrong, 400, 'INTERRUPT_RESPONSE')).toMatch(/responseSchema/);
    expect(pendingRequests((await readSession('intake', sessionId)).events!).map((c) => c.id)).toEqual([id]);

    const right = await http('POST', '/run', answer({ name: 'Grace' }));
    expect(right.status).toBe(200);
    const events = (await right.json()) as WireEvent[];
    expect(events.at(-1)!.output).toBe('Welcome, Grace!');
    const record = (await readSession('intake', sessionId)).events!.find((e) => e.actions.agentState?.resume)!;
    expect(record.content!.parts).toEqual([
      { functionResponse: { id, name: 'adk_request_input', response: { name: 'Grace' } } },
    ]);

    // The same answer again: the request was answered; nothing is stored or run.
    expect(await expectError(await http('POST', '/run', answer({ name: 'Grace' })), 409, 'INTERRUPT_ANSWERED')).toMatch(
      /request for input .* was already answered/,
    );
  });

  it('an answer naming no request of the session is a 400 naming the field; the run stays paused', async () => {
    const { workflow } = intake();
    const { http, newSession, readSession, runSse } = await listen({ intake: workflow });
    const sessionId = await newSession('intake');
    const pause = (await runSse('intake', sessionId, { newMessage: message('hello') })).at(-1)!;
    const res = await http('POST', '/run_sse', {
      appName: 'intake',
      userId: 'alice',
      sessionId,
      newMessage: {
        role: 'user',
        parts: [{ functionResponse: { id: 'intake.nope@1', name: 'adk_request_input', response: { result: 'x' } } }],
      },
    });
    expect(((await res.clone().json()) as { error: { field: string } }).error.field).toBe(
      'newMessage.parts.0.functionResponse.id',
    );
    expect(await expectError(res, 400, 'INTERRUPT_RESPONSE')).toMatch(/no 'adk_request_input' call 'intake\.nope@1'/);
    expect(pendingRequests((await readSession('intake', sessionId)).events!).map((c) => c.id)).toEqual([
      pause.interrupt!.id,
    ]);
  });

  it("plain text (ADK's CLI) answers the one open request: the run resumes and completes, and the session shows the text and ADK's answer", async () => {
    const { runs, workflow } = intake();
    const { newSession, readSession, runSse } = await listen({ intake: workflow });
    const sessionId = await newSession('intake');
    const pause = (await runSse('intake', sessionId, { newMessage: message('hello') })).at(-1)!;
    const id = pause.interrupt!.id;

    const resumed = await runSse('intake', sessionId, { newMessage: message('Alan') });
    expect(resumed.every((e) => e.invocationId === pause.invocationId)).toBe(true);
    expect(resumed.at(-1)!.output).toBe('Welcome, Alan!');
    expect(runs).toEqual(['greet', 'askName']);

    const after = (await readSession('intake', sessionId)).events!;
    expect(pendingRequests(after)).toEqual([]);
    const record = after.find((e) => e.actions.agentState?.resume)!;
    expect(record.content).toEqual({
      role: 'user',
      parts: [{ text: 'Alan' }, { functionResponse: { id, name: 'adk_request_input', response: { result: 'Alan' } } }],
    });
  });

  it('plain text with a stateDelta (state edited in ADK web) stores the state, then resumes with the text', async () => {
    const { workflow } = intake();
    const { newSession, readSession, runSse } = await listen({ intake: workflow });
    const sessionId = await newSession('intake');
    await runSse('intake', sessionId, { newMessage: message('hello') });
    const resumed = await runSse('intake', sessionId, {
      newMessage: message('Alan'),
      stateDelta: { __session_metadata__: { displayName: 'Intake' } },
    });
    expect(resumed.at(-1)!.output).toBe('Welcome, Alan!');
    expect((await readSession('intake', sessionId)).state).toEqual({ __session_metadata__: { displayName: 'Intake' } });
  });

  it('a message that answers adk_request_input and says something else too is refused, naming the parts', async () => {
    const { workflow } = intake();
    const { http, newSession, runSse } = await listen({ intake: workflow });
    const sessionId = await newSession('intake');
    const id = (await runSse('intake', sessionId, { newMessage: message('hello') })).at(-1)!.interrupt!.id;
    const res = await http('POST', '/run', {
      appName: 'intake',
      userId: 'alice',
      sessionId,
      newMessage: {
        role: 'user',
        parts: [
          { text: 'and also' },
          { functionResponse: { id, name: 'adk_request_input', response: { result: 'x' } } },
        ],
      },
    });
    expect(await expectError(res, 400, 'INVALID_REQUEST')).toMatch(
      /answers 'adk_request_input' .* can hold nothing else/,
    );
  });
});

describe("ADK's graph routes for a workflow app (what ADK's web UI draws)", () => {
  it('GET /dev/apps/{app}/build_graph gives the structure in ADK’s shape: START as __START__, node types, routes (default for DEFAULT_ROUTE)', async () => {
    const { http } = await listen({ triage: triageWorkflow() });
    const res = await http('GET', '/dev/apps/triage/build_graph');
    expect(res.status).toBe(200);
    const info = (await res.json()) as { name: string; root_agent: Record<string, unknown> };
    expect(info.name).toBe('triage');
    expect(info.root_agent).toMatchObject({ name: 'triage', type: 'workflow', description: 'Sorts messages.' });
    const graph = info.root_agent.graph as {
      nodes: { name: string; type: string }[];
      edges: { from_node: { name: string }; to_node: { name: string }; route?: unknown }[];
    };
    expect(graph.nodes.map((n) => [n.name, n.type])).toEqual([
      ['__START__', 'start'],
      ['classify', 'function'],
      ['answerer', 'agent'],
      ['prepare', 'function'],
      ['lookup', 'tool'],
      ['enrich', 'function'],
      ['merge', 'join'],
    ]);
    expect(graph.nodes[2]).toMatchObject({ description: 'Answers questions.', model: 'scripted' });
    expect(graph.edges.map((e) => [e.from_node.name, e.to_node.name, e.route])).toEqual([
      ['__START__', 'classify', undefined],
      ['classify', 'answerer', 'question'],
      ['classify', 'prepare', 'default'],
      ['prepare', 'lookup', undefined],
      ['prepare', 'enrich', undefined],
      ['lookup', 'merge', undefined],
      ['enrich', 'merge', undefined],
      ['merge', 'classify', undefined],
    ]);
  });

  it('GET /dev/apps/{app}/build_graph_image gives DOT whose node ids are the nodes’ event paths, with route labels; a nested workflow is a level of its own', async () => {
    const { http } = await listen({ triage: triageWorkflow() });
    const image = (await (await http('GET', '/dev/apps/triage/build_graph_image?dark_mode=false')).json()) as Record<
      string,
      unknown
    >;
    expect(Object.keys(image)).toEqual(['triage', 'dotSrc']);
    const dot = image.dotSrc as string;
    expect(image.triage).toEqual({ dotSrc: dot });
    expect(dot).toMatch(/^digraph "triage" \{/);
    for (const line of [
      '"__START__" -> "triage.classify"',
      '"triage.classify" -> "triage.answerer" [label="  question"]',
      '"triage.classify" -> "triage.prepare" [label="  default"]',
      '"triage.merge" -> "triage.classify" [label="  max 2×"]',
      '"triage.answerer" -> "__END__"',
    ])
      expect(dot).toContain(line);
    // classify routes: a diamond; merge waits for all: an oval; enrich runs per item.
    expect(dot).toMatch(/"triage\.classify" \[[^\]]*shape="diamond"/);
    expect(dot).toMatch(/"triage\.merge" \[[^\]]*shape="oval"/);
    expect(dot).toMatch(/"triage\.enrich" \[label=<[^\]]*per item[^\]]*shape="box3d"/);

    const inner = new Workflow({ name: 'inner', edges: [['START', node((_ctx, x: string) => x, { name: 'echo' })]] });
    const nested = await listen({ outer: new Workflow({ name: 'outer', edges: [['START', inner]] }) });
    const levels = (await (
      await nested.http('GET', '/dev/apps/outer/build_graph_image?dark_mode=true')
    ).json()) as Record<string, { dotSrc: string }>;
    expect(Object.keys(levels)).toEqual(['outer', 'outer/inner', 'dotSrc']);
    expect(levels.outer!.dotSrc).toContain('"__START__" -> "outer.inner"');
    // The inner workflow's nodes run under the outer node's path.
    expect(levels['outer/inner']!.dotSrc).toContain('"__START__" -> "outer.inner.echo"');
    const one = (await (
      await nested.http('GET', '/dev/apps/outer/build_graph_image?node=outer/inner')
    ).json()) as Record<string, unknown> & { dotSrc: string };
    expect(one.dotSrc).toContain('"__START__" -> "outer.inner.echo"');
    expect(one.dotSrc).toContain('#F8FAFC'); // light: dark_mode was not asked for
    expect(Object.keys(one)).toEqual(['outer/inner', 'dotSrc']);
    const missing = await nested.http('GET', '/dev/apps/outer/build_graph_image?node=outer/nope');
    expect(await expectError(missing, 404, 'NOT_FOUND')).toMatch(
      /no graph workflow at 'outer\/nope'.*'outer', 'outer\/inner'/,
    );
  });

  it("GET …/events/{eventId}/graph lights the event's node and the edge it came along; the /dev routes need the token like the others", async () => {
    const { workflow } = intake();
    const tokens = { 'alice-token': 'alice', 'bob-token': 'bob' };
    const { http } = await listen({ intake: workflow }, { auth: { tokens } });
    const alice = { Authorization: 'Bearer alice-token' };
    expect((await http('GET', '/dev/apps/intake/build_graph')).status).toBe(401);
    expect((await http('GET', '/dev/apps/intake/build_graph', undefined, alice)).status).toBe(200);

    const created = (await (
      await http('POST', '/apps/intake/users/alice/sessions', undefined, alice)
    ).json()) as WireSession;
    const run = await http(
      'POST',
      '/run',
      { appName: 'intake', userId: 'alice', sessionId: created.id, newMessage: message('hello') },
      alice,
    );
    const events = (await run.json()) as WireEvent[];
    const greetEnd = events.find((e) => e.nodeInfo?.path === 'intake.greet' && e.actions.agentState?.node === 'ended')!;
    const path = `/apps/intake/users/alice/sessions/${created.id}/events/${greetEnd.id}/graph`;
    for (const route of [path, `/dev${path}`]) {
      const res = await http('GET', route, undefined, alice);
      expect(res.status).toBe(200);
      const { dotSrc } = (await res.json()) as { dotSrc: string };
      expect(dotSrc).toMatch(/"intake\.greet" \[[^\]]*fillcolor="#0F5223"/);
      expect(dotSrc).not.toMatch(/"intake\.askName" \[[^\]]*fillcolor="#0F5223"/);
      expect(dotSrc).toMatch(/"__START__" -> "intake\.greet" \[[^\]]*color="#69CB87"/);
    }
    expect((await http('GET', path, undefined, { Authorization: 'Bearer bob-token' })).status).toBe(403);
    expect(
      await expectError(await http('GET', path.replace(greetEnd.id, 'nope'), undefined, alice), 404, 'NOT_FOUND'),
    ).toMatch(/has no event 'nope'/);
  });

  it("GET …/events/{eventId}/graph lights the root node an item, a runNode child or a nested workflow's node belongs to", async () => {
    const list = node(() => [1, 2], { name: 'list' });
    const sq = node(async (_ctx, n: number) => n * n, { name: 'sq', parallelWorker: true });
    const inner = new Workflow({
      name: 'inner',
      edges: [['START', node(async (_ctx, x: unknown) => `in ${String(x)}`, { name: 'echo' })]],
    });
    const research = node(async (_ctx, topic: string) => `notes ${topic}`, { name: 'research' });
    const sup = node(async (ctx: NodeContext, x: unknown) => (await ctx.runNode(research, String(x))).output, {
      name: 'sup',
    });
    const { http } = await listen({ wf: new Workflow({ name: 'wf', edges: [['START', list, sq, inner, sup]] }) });
    const created = (await (await http('POST', '/apps/wf/users/u/sessions')).json()) as WireSession;
    const run = await http('POST', '/run', {
      appName: 'wf',
      userId: 'u',
      sessionId: created.id,
      newMessage: message('go'),
    });
    const events = (await run.json()) as WireEvent[];
    const lit = async (path: string) => {
      const event = events.find((e) => e.nodeInfo?.path === path && e.actions.agentState?.node === 'ended')!;
      const res = await http('GET', `/apps/wf/users/u/sessions/${created.id}/events/${event.id}/graph`);
      const { dotSrc } = (await res.json()) as { dotSrc: string };
      return dotSrc
        .split('\n')
        .filter((line) => line.includes('#0F5223') || line.includes('#69CB87'))
        .map((line) => line.trim().split(' [')[0]);
    };
    expect(await lit('wf.sq.sq@0')).toEqual(['"wf.sq"', '"wf.list" -> "wf.sq"']);
    expect(await lit('wf.sq')).toEqual(['"wf.sq"', '"wf.list" -> "wf.sq"']);
    expect(await lit('wf.inner.echo')).toEqual(['"wf.inner"', '"wf.sq" -> "wf.inner"']);
    expect(await lit('wf.sup.research@1')).toEqual(['"wf.sup"', '"wf.inner" -> "wf.sup"']);
  });
});
