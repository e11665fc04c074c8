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
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { z } from 'zod';
import {
  createApp,
  serve,
  type AgentGraphNode,
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

async function listen(apps: Record<string, Workflow>) {
  const sessionService = new InMemorySessionService();
  const server = await serve(createApp({ apps, sessionService }), { port: 0 });
  servers.push(server);
  const http = async (method: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
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

describe('graph workflows over HTTP', () => {
  it('GET /apps/{app}/graph gives the workflow its nodes (kinds, agent, parallelWorker) and edges (routes, default, maxIterations)', async () => {
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
    const triage = new Workflow({
      name: 'triage',
      description: 'Sorts messages.',
      edges: [
        ['START', classify, { question: answerer, [DEFAULT_ROUTE]: prepare }],
        [prepare, [lookup, enrich], merge],
        { fromNode: merge, toNode: classify, maxIterations: 2 },
      ],
    });
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
