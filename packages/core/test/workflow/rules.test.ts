import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigurationError,
  createEvent,
  DEFAULT_ROUTE,
  InMemoryRunner,
  JoinNode,
  LlmAgent,
  node,
  NodeSchemaValidationError,
  RequestInput,
  Workflow,
  type NodeContext,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { deferred, waitFor } from '../wait.js';
import { nodeRuns, session } from './harness.js';

const fn = (name: string, f: (ctx: NodeContext, input: unknown) => unknown = (_c, x) => x) => node(f, { name });

describe('Workflow construction refuses mistakes, naming the node or edge and the fix', () => {
  const a = fn('a');
  const b = fn('b');
  const cases: [string, () => unknown, RegExp][] = [
    ['no edge from START', () => new Workflow({ name: 'w', edges: [[a, b]] }), /no edge from START.*'START'/],
    [
      'an edge into START',
      () => new Workflow({ name: 'w', edges: [['START', a], { fromNode: a, toNode: 'START' }] }),
      /goes into START/,
    ],
    [
      'a route on a START edge',
      () => new Workflow({ name: 'w', edges: [{ fromNode: 'START', toNode: a, route: 'x' }] }),
      /START emits none/,
    ],
    [
      'an unknown node name',
      () => new Workflow({ name: 'w', edges: [['START', a, 'missing']] }),
      /names node 'missing'.*nodes: a/,
    ],
    [
      'two nodes with one name',
      () => new Workflow({ name: 'w', edges: [['START', a, fn('a')]] }),
      /two different nodes named 'a'/,
    ],
    [
      'a duplicate edge',
      () =>
        new Workflow({
          name: 'w',
          edges: [
            ['START', a, b],
            [a, b],
          ],
        }),
      /a → b twice/,
    ],
    [
      'DEFAULT_ROUTE in a route list',
      () => new Workflow({ name: 'w', edges: [['START', a], { fromNode: a, toNode: b, route: ['x', DEFAULT_ROUTE] }] }),
      /DEFAULT_ROUTE stands alone/,
    ],
    [
      'two DEFAULT edges from one node',
      () =>
        new Workflow({
          name: 'w',
          edges: [
            ['START', a, { [DEFAULT_ROUTE]: b }],
            [a, { [DEFAULT_ROUTE]: fn('c') }],
          ],
        }),
      /'a' has two DEFAULT_ROUTE edges/,
    ],
    [
      'an unreachable node',
      () =>
        new Workflow({
          name: 'w',
          edges: [
            ['START', a],
            [b, fn('c')],
          ],
        }),
      /'b' cannot be reached from START/,
    ],
    [
      'a cycle with no way out',
      () => new Workflow({ name: 'w', edges: [['START', a, b, a]] }),
      /cycle with no way out: a → b → a.*maxIterations/,
    ],
    [
      'a cycle closed by a DEFAULT_ROUTE edge from a node with no routes',
      () => new Workflow({ name: 'w', edges: [['START', a, b, { [DEFAULT_ROUTE]: a }]] }),
      /cycle with no way out: a → b → a/,
    ],
    [
      'two routed edges between the same nodes',
      () => new Workflow({ name: 'w', edges: [['START', a, { x: b, y: b }]] }),
      /'a' has 2 edges to 'b'.*route: \['x', 'y'\]/,
    ],
    ['an anonymous function', () => node((_c: NodeContext, x: unknown) => x), /anonymous function needs a name/],
    ['a bad timeout', () => fn('t').constructor && node(() => 1, { name: 't', timeout: -1 }), /'t' has timeout -1/],
    ['a bad retry', () => node(() => 1, { name: 'r', retryConfig: { maxAttempts: 0 } }), /retryConfig.maxAttempts 0/],
    [
      'edges and dynamicEntry',
      () => new Workflow({ name: 'w', edges: [['START', a]], dynamicEntry: () => 1 }),
      /both edges and dynamicEntry/,
    ],
  ];
  for (const [what, build, message] of cases)
    it(what, () => {
      expect(build).toThrow(ConfigurationError);
      expect(build).toThrow(message);
    });

  it('allows a JoinNode with one incoming edge, and a cycle with a routed exit or maxIterations', () => {
    expect(() => new Workflow({ name: 'w', edges: [['START', a, new JoinNode({ name: 'j' })]] })).not.toThrow();
    const c = fn('c');
    const d = fn('d');
    expect(
      () => new Workflow({ name: 'w2', edges: [['START', c, d], { fromNode: d, toNode: c, maxIterations: 2 }] }),
    ).not.toThrow();
    // A DEFAULT back-edge from a node that can route out; a route and DEFAULT to one node (never both taken).
    const e = fn('e');
    const f = fn('f');
    expect(
      () =>
        new Workflow({
          name: 'w3',
          edges: [['START', e, f, { done: fn('out'), [DEFAULT_ROUTE]: e }]],
        }),
    ).not.toThrow();
    expect(
      () => new Workflow({ name: 'w4', edges: [['START', fn('g'), { x: fn('h'), [DEFAULT_ROUTE]: 'h' }]] }),
    ).not.toThrow();
  });
});

describe('Workflow at run time', () => {
  it('a node output failing its outputSchema fails the run with NodeSchemaValidationError, stored once', async () => {
    const bad = node(() => ({ city: 3 }), { name: 'bad', outputSchema: z.object({ city: z.string() }) });
    const s = await session(new Workflow({ name: 'w', edges: [['START', bad]] }));
    const result = await s.send('go');
    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(NodeSchemaValidationError);
    expect(result.error).toMatchObject({ node: 'w.bad', which: 'output', code: 'NODE_SCHEMA' });
    expect(result.error!.message).toContain('city');
    const errors = (await s.events()).filter((e) => e.errorCode === 'NODE_SCHEMA');
    expect(errors).toHaveLength(1);
  });

  it('stateSchema refuses a bad write, naming key and node; nothing is stored', async () => {
    const writer = node(
      (ctx: NodeContext) => {
        ctx.state.set('count', 'many');
        return 'done';
      },
      { name: 'writer' },
    );
    const s = await session(
      new Workflow({ name: 'w', stateSchema: z.object({ count: z.number() }), edges: [['START', writer]] }),
    );
    const result = await s.send('go');
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'STATE_SCHEMA', key: 'count', node: 'w.writer' });
    expect(result.state.count).toBeUndefined();
    expect((await s.events()).some((e) => 'count' in e.actions.stateDelta)).toBe(false);
  });

  it('a node whose state write stateSchema refuses starts no successor, though a sibling ends in the same turn', async () => {
    let nextRuns = 0;
    const bad = node(
      (ctx: NodeContext) => {
        ctx.state.set('count', 'many');
        return 'bad output';
      },
      { name: 'bad' },
    );
    const next = node(() => (nextRuns += 1), { name: 'next' });
    const s = await session(
      new Workflow({
        name: 'w',
        stateSchema: z.object({ count: z.number() }),
        edges: [
          ['START', [bad, fn('good', () => undefined)]],
          [bad, next],
        ],
      }),
    );
    const result = await s.send('go');
    expect(result.error).toMatchObject({ code: 'STATE_SCHEMA', node: 'w.bad' });
    expect(nextRuns).toBe(0);
    expect((await s.events()).some((e) => e.nodeInfo?.path === 'w.next')).toBe(false);
  });

  it('maxConcurrency holds for the runs a resume reopens too', async () => {
    let running = 0;
    let peak = 0;
    const asker = (name: string) =>
      node(
        async (ctx: NodeContext) => {
          running += 1;
          peak = Math.max(peak, running);
          await new Promise((resolve) => setImmediate(resolve));
          running -= 1;
          const answer = Object.values(ctx.resumeInputs)[0];
          return answer === undefined ? new RequestInput({ message: name }) : `${name}:${String(answer)}`;
        },
        { name, rerunOnResume: true },
      );
    const s = await session(
      new Workflow({
        name: 'w',
        maxConcurrency: 1,
        edges: [['START', [asker('a'), asker('b'), asker('c')], new JoinNode({ name: 'j' })]],
      }),
    );
    const paused = await s.send('go');
    expect(paused.interrupts).toHaveLength(3);
    expect(peak).toBe(1);
    const resumed = await s.resume(Object.fromEntries(paused.interrupts.map((i) => [i.id, 'ok'])));
    expect(resumed.output).toEqual({ a: 'a:ok', b: 'b:ok', c: 'c:ok' });
    expect(peak).toBe(1);
  });

  it('two terminal nodes with outputs fail with WorkflowOutputError naming both', async () => {
    const s = await session(new Workflow({ name: 'w', edges: [['START', [fn('x'), fn('y')]]] }));
    const result = await s.send('go');
    expect(result.error).toMatchObject({ code: 'WORKFLOW_OUTPUT' });
    expect(result.error!.message).toMatch(/'x', 'y'/);
  });

  it('maxSteps ends an endless routed loop with status limit', async () => {
    const ping = node((_c, x) => createEvent({ output: x, route: 'again' }), { name: 'ping' });
    const pong = fn('pong');
    const s = await session(
      new Workflow({
        name: 'w',
        maxSteps: 7,
        edges: [
          ['START', ping, { again: pong, stop: fn('out') }],
          [pong, ping],
        ],
      }),
    );
    const result = await s.send('go');
    expect(result.status).toBe('limit');
    expect(result.stopReason).toBe('maxSteps');
    expect(nodeRuns(await s.events())).toHaveLength(7);
  });

  it('maxIterations: a back-edge is followed N times, then the exit is taken', async () => {
    const step = node((_c, n: number) => n + 1, { name: 'step' });
    const check = node((_c, n: number) => createEvent({ output: n, route: 'loop' }), { name: 'check' });
    const done = node((_c, n: number) => `stopped at ${n}`, { name: 'done' });
    const s = await session(
      new Workflow({
        name: 'w',
        inputSchema: z.any().transform(() => 0),
        edges: [
          ['START', step, check],
          { fromNode: check, toNode: step, route: 'loop', maxIterations: 3 },
          { fromNode: check, toNode: done, route: DEFAULT_ROUTE },
        ],
      }),
    );
    expect((await s.send('go')).output).toBe('stopped at 4');
  });

  it('an unrouted back-edge with maxIterations: DEFAULT_ROUTE is its exit, taken once it is used up', async () => {
    const step = node((ctx: NodeContext) => Number(ctx.runId), { name: 'step' });
    const done = node((_c, n: number) => `done after ${n}`, { name: 'done' });
    const s = await session(
      new Workflow({
        name: 'w',
        edges: [
          ['START', step],
          { fromNode: step, toNode: step, maxIterations: 2 },
          { fromNode: step, toNode: done, route: DEFAULT_ROUTE },
        ],
      }),
    );
    expect((await s.send('go')).output).toBe('done after 3');
    expect((await s.starts()).get('w.done')).toBe(1);
  });

  it('a try longer than timeout is aborted and retried; the last failure names node and tries', async () => {
    let tries = 0;
    const slow = node(
      (ctx: NodeContext) =>
        new Promise((_, reject) => {
          tries += 1;
          ctx.abortSignal.addEventListener('abort', () => reject(ctx.abortSignal.reason as Error));
        }),
      { name: 'slow', timeout: 20, retryConfig: { maxAttempts: 2, initialDelayMs: 1, jitter: 0 } },
    );
    const s = await session(new Workflow({ name: 'w', edges: [['START', slow]] }));
    const result = await s.send('go');
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'NODE_FAILED', attemptCount: 2 });
    expect(result.error!.message).toMatch(/'w.slow' failed after 2 tries: .*timeout of 20 ms/);
    expect(tries).toBe(2);
  });

  it('a bug in a node function fails the run naming the node', async () => {
    const broken = node(
      () => {
        throw new TypeError('x is not a function');
      },
      { name: 'broken' },
    );
    const result = await (await session(new Workflow({ name: 'w', edges: [['START', broken]] }))).send('go');
    expect(result.error).toMatchObject({ code: 'NODE_FAILED' });
    expect(result.error!.message).toContain("'w.broken' failed after 1 try: x is not a function");
  });

  it("a node's failure is stored as that node's error event: its path, run and tries; Troupe's own errors keep their class", async () => {
    const writer = new LlmAgent({
      name: 'writer',
      instruction: 'Write.',
      model: new ScriptedModel([{ error: 'model is down', status: 500 }]),
    });
    const flaky = node(
      () => {
        throw new Error('boom');
      },
      { name: 'flaky', retryConfig: { maxAttempts: 2, initialDelayMs: 1, jitter: 0 } },
    );
    const refuses = node(
      () => {
        throw new ConfigurationError('API key missing');
      },
      { name: 'refuses' },
    );
    const cases: [Workflow, string, string, number, string][] = [
      [new Workflow({ name: 'w1', edges: [['START', fn('pre'), writer]] }), 'w1.writer', 'writer', 1, 'MODEL'],
      [new Workflow({ name: 'w2', edges: [['START', flaky]] }), 'w2.flaky', 'flaky', 2, 'NODE_FAILED'],
      [new Workflow({ name: 'w3', edges: [['START', refuses]] }), 'w3.refuses', 'refuses', 1, 'CONFIGURATION'],
    ];
    for (const [workflow, path, author, attempt, code] of cases) {
      const s = await session(workflow);
      const result = await s.send('go');
      expect(result.status, path).toBe('failed');
      expect(result.error, path).toMatchObject({ code });
      const failure = (await s.events()).at(-1)!;
      expect(failure, path).toMatchObject({ author, errorCode: code, nodeInfo: { path, runId: '1', attempt } });
    }
  });

  it('cancellation stops at the next node boundary and aborts the running node', async () => {
    const started = deferred();
    let aborted = false;
    let after = 0;
    const wait = node(
      (ctx: NodeContext) =>
        new Promise((resolve) => {
          started.resolve();
          ctx.abortSignal.addEventListener('abort', () => {
            aborted = true;
            resolve('late');
          });
        }),
      { name: 'wait' },
    );
    const next = node(() => (after += 1), { name: 'next' });
    const runner = new InMemoryRunner({ agent: new Workflow({ name: 'w', edges: [['START', wait, next]] }) });
    const { id } = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const controller = new AbortController();
    const run = runner.run({ userId: 'u', sessionId: id, newMessage: 'go', abortSignal: controller.signal });
    await started.promise;
    controller.abort();
    const result = await run;
    expect(result.status).toBe('cancelled');
    expect(aborted).toBe(true);
    expect(after).toBe(0);
  });

  it('parallelWorker runs once per item, at most maxParallelWorkers at a time, output in input order', async () => {
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const work = node(
      async (_c: NodeContext, n: number) => {
        started.push(n);
        running += 1;
        peak = Math.max(peak, running);
        await gates[n]!.promise;
        running -= 1;
        return n * 10;
      },
      { name: 'work', parallelWorker: true, maxParallelWorkers: 2 },
    );
    const s = await session(
      new Workflow({ name: 'w', inputSchema: z.any().transform(() => [0, 1, 2, 3]), edges: [['START', work]] }),
    );
    const run = s.send('go');
    await waitFor(() => running === 2, 'two items running');
    gates[1]!.resolve();
    await waitFor(() => running === 2 && started.length === 3, 'the third item running');
    expect(started).toEqual([0, 1, 2]);
    // Finish out of order: the output keeps input order.
    for (const i of [0, 3, 2]) gates[i]!.resolve();
    expect((await run).output).toEqual([0, 10, 20, 30]);
    expect(peak).toBe(2);
  });

  it('parallelWorker takes a single value as a list of one (ADK)', async () => {
    const double = node((_c: NodeContext, n: number) => n * 2, { name: 'double', parallelWorker: true });
    const s = await session(
      new Workflow({ name: 'w', inputSchema: z.any().transform(() => 21), edges: [['START', double]] }),
    );
    expect((await s.send('go')).output).toEqual([42]);
  });

  it('a workflow is a step of a SequentialAgent and gets the message', async () => {
    const { SequentialAgent, FunctionAgent } = await import('@troupe/core');
    const wf = new Workflow({ name: 'w', edges: [['START', fn('shout', (_c, x) => String(x).toUpperCase())]] });
    const after = new FunctionAgent({ name: 'after', run: () => 'after ran' });
    const s = await session(new SequentialAgent({ name: 'seq', subAgents: [wf, after] }));
    const result = await s.send('hey');
    expect(result.status).toBe('completed');
    expect((await s.events()).some((e) => e.author === 'w' && e.output === 'HEY')).toBe(true);
  });

  it('RequestInput with several open: text is refused, naming the interrupts', async () => {
    const ask = (name: string) => node(() => new RequestInput({ message: name }), { name });
    const s = await session(
      new Workflow({ name: 'w', edges: [['START', [ask('q1'), ask('q2')], new JoinNode({ name: 'j' })]] }),
    );
    const paused = await s.send('go');
    expect(paused.interrupts).toHaveLength(2);
    await expect(s.send('yes')).rejects.toMatchObject({ code: 'PENDING_INTERRUPT' });
    const [one, two] = paused.interrupts;
    const half = await s.resume({ [one!.id]: 'a' });
    expect(half.status).toBe('interrupted');
    expect(half.interrupts.map((i) => i.id)).toEqual([two!.id]);
    const done = await s.send('b');
    expect(done.output).toEqual({ q1: 'a', q2: 'b' });
  });

  it('a message that answers a request keeps its stateDelta, stored with the answer', async () => {
    const ask = node(() => new RequestInput({ message: 'Name?' }), { name: 'ask' });
    const greet = node((ctx: NodeContext, name: string) => `hello ${name} (${String(ctx.state.get('lang'))})`, {
      name: 'greet',
    });
    const s = await session(new Workflow({ name: 'w', edges: [['START', ask, greet]] }));
    await s.send('go');
    const done = await s.runner.run({
      userId: 'u',
      sessionId: s.sessionId,
      newMessage: 'Ada',
      stateDelta: { lang: 'en' },
    });
    expect(done.output).toBe('hello Ada (en)');
    expect(done.state.lang).toBe('en');
  });
});
