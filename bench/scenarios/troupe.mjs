// The scenarios built with Troupe's public API, the way its docs (SPEC §4–§6) say to build each
// pattern. Each factory returns { run, verify, notes }: `run()` performs one run (new session, then
// runner.run) and rejects unless the run completed; `verify(result)` checks the first (warm-up) run
// really did the work. sessions10k returns { run, warmup, perSessionUs, notes } instead.
import { performance } from 'node:perf_hooks';
import {
  BaseAgent,
  BaseLlm,
  FunctionTool,
  InMemorySessionService,
  JoinNode,
  LlmAgent,
  LoopAgent,
  ParallelAgent,
  Runner,
  SequentialAgent,
  Workflow,
  createEvent,
  getFunctionResponses,
  node,
} from '../../packages/core/dist/index.js';
import { TEXT, TOOL_TURNS, add, respond } from '../fake-model.mjs';
import { checkGraph50Nodes, FLAT_CHAIN_CPU_AT, GRAPH50, INSTRUCTION, USER_MESSAGE, classifyRoute } from './spec.mjs';
import { cpuMicros } from '../stats.mjs';

const APP = 'bench';
const USER = 'u';

/** The fake model as a Troupe model: yields the shared fake answer at once. */
export class FakeLlm extends BaseLlm {
  constructor(mode = 'text') {
    super(`fake-${mode}`);
    this.mode = mode;
  }

  async *generateContentAsync(request) {
    yield respond(this.mode, request);
  }
}

/** A Runner on a fresh InMemorySessionService, and a function doing one run on a new session. */
export function troupeApp(agent, runConfig) {
  const runner = new Runner({ appName: APP, agent, sessionService: new InMemorySessionService() });
  // `dropSession`: delete the run's session afterwards (the flatness check keeps one run's heap at a time).
  const run = async ({ dropSession = false } = {}) => {
    const session = await runner.sessionService.createSession({ appName: APP, userId: USER });
    const result = await runner.run({
      userId: USER,
      sessionId: session.id,
      newMessage: USER_MESSAGE,
      ...(runConfig ? { runConfig } : {}),
    });
    if (result.status !== 'completed') {
      throw new Error(
        `Troupe run of '${agent.name}' ended with status '${result.status}'${result.error ? `: ${result.error.message}` : ''}`,
      );
    }
    if (dropSession) await runner.sessionService.deleteSession({ appName: APP, userId: USER, sessionId: session.id });
    return result;
  };
  return { runner, run };
}

function expect(condition, message) {
  if (!condition) throw new Error(`verification failed: ${message}`);
}

const llm = (name, model, extra = {}) => new LlmAgent({ name, model, instruction: INSTRUCTION, ...extra });

export function seq10() {
  const model = new FakeLlm('text');
  const steps = Array.from({ length: 10 }, (_, i) => llm(`step${i}`, model, { outputKey: `out${i}` }));
  const { run } = troupeApp(new SequentialAgent({ name: 'pipeline', subAgents: steps }));
  return {
    run,
    verify: (r) => {
      for (let i = 0; i < 10; i++) expect(r.state[`out${i}`] === TEXT, `state.out${i}`);
    },
    notes: 'SequentialAgent of 10 LlmAgents, each with outputKey; new in-memory session per run',
  };
}

export function fanout100() {
  const model = new FakeLlm('text');
  const branches = Array.from({ length: 100 }, (_, i) => llm(`a${i}`, model, { outputKey: `out${i}` }));
  const { run } = troupeApp(new ParallelAgent({ name: 'fanout', subAgents: branches }));
  return {
    run,
    verify: (r) => {
      for (let i = 0; i < 100; i++) expect(r.state[`out${i}`] === TEXT, `state.out${i}`);
    },
    notes: 'ParallelAgent of 100 LlmAgents, each with its own outputKey; new in-memory session per run',
  };
}

/** Non-LLM checker: counts iterations in state and escalates at `limit`. */
class IterationChecker extends BaseAgent {
  constructor(options) {
    super({ name: options.name });
    this.limit = options.limit;
  }

  async *runAsyncImpl(ctx) {
    const iteration = Number(ctx.session.state.iteration ?? 0) + 1;
    yield createEvent({ actions: { stateDelta: { iteration }, escalate: iteration >= this.limit } });
  }
}

/** loop of [worker LlmAgent, checker] escalating at `iterations` (also used by the loop-flatness extra). */
export function loopN(iterations) {
  const worker = llm('worker', new FakeLlm('text'), { outputKey: 'work' });
  const checker = new IterationChecker({ name: 'checker', limit: iterations });
  // maxIterations is only a safety net: a broken escalation shows as a failed run or a call mismatch, not a hang.
  const loop = new LoopAgent({ name: 'loop', subAgents: [worker, checker], maxIterations: iterations * 2 });
  const { run } = troupeApp(loop);
  return {
    run,
    verify: (r) => {
      expect(r.state.iteration === iterations, `state.iteration = ${r.state.iteration}`);
      expect(r.events.at(-1).actions.agentState?.stopReason === 'escalated', 'loop stopped by escalation');
    },
    notes: `LoopAgent [worker LlmAgent (outputKey), custom BaseAgent checker: stateDelta + escalate at ${iterations}]`,
  };
}

export const loop200 = () => loopN(200);

export function tools10() {
  const addTool = new FunctionTool({
    name: 'add',
    description: 'Adds two numbers.',
    parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    execute: (args) => add(args),
  });
  const { run } = troupeApp(llm('calculator', new FakeLlm('tools'), { tools: [addTool] }));
  return {
    run,
    verify: (r) => {
      const responses = r.events.flatMap(getFunctionResponses);
      expect(responses.length === TOOL_TURNS, `${responses.length} function responses`);
      responses.forEach((f, i) => expect(f.response.result === i + 1, `add result ${JSON.stringify(f.response)}`));
      expect(r.output === TEXT, 'final text');
    },
    notes: 'LlmAgent with FunctionTool add (JSON Schema parameters); 10 tool turns then text',
  };
}

export function transfer() {
  const worker = new LlmAgent({
    name: 'worker',
    description: 'Does the work.',
    model: new FakeLlm('text'),
    instruction: INSTRUCTION,
  });
  const coordinator = llm('coordinator', new FakeLlm('transfer'), { subAgents: [worker] });
  const { run } = troupeApp(coordinator);
  return {
    run,
    verify: (r) => {
      expect(
        r.events.some((e) => e.actions.transferToAgent === 'worker'),
        'transfer event',
      );
      expect(r.events.at(-1).author === 'worker' && r.output === TEXT, 'worker answered');
    },
    notes: 'coordinator LlmAgent with sub-agent worker; transfer_to_agent call; new session per run',
  };
}

/** sessions10k: one LlmAgent app; `count` sessions, each created and given one completed run. */
export function sessions10k({ sessions }) {
  const makeApp = () => troupeApp(llm('assistant', new FakeLlm('text')));
  const counted = makeApp();
  const perSessionUs = [];
  return {
    // Warm-up on a separate app (its sessions are dropped before the counted run).
    warmup: async (count) => {
      const { run } = makeApp();
      for (let i = 0; i < count; i++) await run();
    },
    run: async () => {
      for (let i = 0; i < sessions; i++) {
        const t = performance.now();
        await counted.run();
        perSessionUs.push((performance.now() - t) * 1000);
      }
      const stored = (await counted.runner.sessionService.listSessions({ appName: APP, userId: USER })).sessions.length;
      expect(stored === sessions, `${stored} sessions stored`);
    },
    perSessionUs,
    retained: counted,
    notes: 'one LlmAgent, one Runner + InMemorySessionService; 10,000 sessions each created + one completed run',
  };
}

/** The output of node `name` of workflow `workflow` in a run's events (its end record). */
function nodeOutput(events, workflow, name) {
  const path = `${workflow}.${name}`;
  const end = events.find((e) => e.nodeInfo?.path === path && e.actions.agentState?.node === 'ended');
  return end ? end.output : undefined;
}

/** graph50 (bench-scenarios.md): Troupe's `Workflow`, nodes made with node(), JoinNode and LlmAgents. */
export function graph50() {
  const model = new FakeLlm('text');
  const numbered = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);
  const classify = node((_ctx, text) => createEvent({ output: text, route: classifyRoute(text) }), {
    name: 'classify',
  });
  const fallback = node((_ctx, text) => `fallback: ${text}`, { name: 'fallback' });
  const plan = llm('plan', model);
  const workers = numbered('w', GRAPH50.workers).map((name, i) => node(() => i + 1, { name }));
  const join1 = new JoinNode({ name: 'join1' });
  const reviewers = numbered('r', GRAPH50.reviewers).map((name) => llm(name, model));
  const join2 = new JoinNode({ name: 'join2' });
  const summarize = node((_ctx, answers) => Object.values(answers).filter((a) => a === TEXT).length, {
    name: 'summarize',
  });
  const chain = numbered('s', GRAPH50.chain).map((name) =>
    node(
      (ctx) => {
        ctx.state.set('counter', ctx.state.get('counter', 0) + 1);
      },
      { name },
    ),
  );
  const end = node((ctx) => ctx.state.get('counter'), { name: 'end' });
  const workflow = new Workflow({
    name: 'graph50',
    edges: [
      ['START', classify, { A: plan, B: fallback }],
      [plan, workers, join1, reviewers, join2, summarize, ...chain, end],
    ],
  });
  const { run } = troupeApp(workflow);
  return {
    run,
    verify: (r) => {
      expect(r.output === GRAPH50.chain, `output ${JSON.stringify(r.output)}, expected ${GRAPH50.chain}`);
      expect(r.state.counter === GRAPH50.chain, `state.counter ${r.state.counter}`);
      checkGraph50Nodes((name) => nodeOutput(r.events, 'graph50', name), TEXT);
    },
    notes:
      'Workflow: classify (route A) → plan (LlmAgent) → w1..w10 → JoinNode → r1..r10 (LlmAgents) → JoinNode → summarize → s1..s24 (ctx.state counter) → end; unused B → fallback; new in-memory session per run',
  };
}

/**
 * A chain of `nodes` function nodes (the flatness check). Each node stamps performance.now() as it
 * starts (`stamps`, reset per run) and returns its input + 1; the workflow's output is `nodes`.
 */
export function chainN(nodes) {
  const stamps = new Float64Array(nodes);
  // CPU time too at the flatness windows' ends (process.cpuUsage costs about a µs: not on every node).
  const cpu = new Float64Array(nodes);
  const cpuAt = new Uint8Array(nodes);
  for (const i of FLAT_CHAIN_CPU_AT) if (i < nodes) cpuAt[i] = 1;
  const chain = Array.from({ length: nodes }, (_, i) =>
    node(
      (_ctx, x) => {
        stamps[i] = performance.now();
        if (cpuAt[i]) cpu[i] = cpuMicros();
        return i === 0 ? 1 : x + 1;
      },
      { name: `c${i + 1}` },
    ),
  );
  const { run } = troupeApp(new Workflow({ name: 'chain', edges: [['START', ...chain]] }));
  return {
    run: async (options) => {
      stamps.fill(NaN);
      cpu.fill(NaN);
      const result = await run(options);
      expect(result.output === nodes, `chain output ${JSON.stringify(result.output)}, expected ${nodes}`);
      return result;
    },
    stamps,
    cpu,
    notes: `Workflow: a chain of ${nodes} function nodes, each returning its input + 1`,
  };
}
