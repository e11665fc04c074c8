// The scenarios of bench-scenarios.md built with Google ADK for JS 2.0 (@google/adk, installed in
// bench/peers by `npm run bench:peers`), the way ADK's docs build each pattern: LlmAgent with
// outputKey, SequentialAgent, ParallelAgent, LoopAgent with a custom BaseAgent that escalates,
// FunctionTool with a zod schema, sub-agents reached through transfer_to_agent, a Runner on an
// InMemorySessionService. Same factory interface as ../scenarios/troupe.mjs: { run, verify, notes }
// (sessions10k: { run, warmup, perSessionUs, retained, notes }). The model is the shared fake model
// (../fake-model.mjs) in a BaseLlm subclass, so both frameworks answer the same calls.
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
  createEventActions,
  getFunctionResponses,
  node,
} from '@google/adk';
import { z } from 'zod';
import { TEXT, TOOL_TURNS, add, respond } from '../fake-model.mjs';
import {
  checkGraph50Nodes,
  FLAT_CHAIN_CPU_AT,
  GRAPH50,
  INSTRUCTION,
  USER_MESSAGE,
  classifyRoute,
} from '../scenarios/spec.mjs';
import { cpuMicros } from '../stats.mjs';

const APP = 'bench';
const USER = 'u';
const NEW_MESSAGE = Object.freeze({ role: 'user', parts: [{ text: USER_MESSAGE }] });

/**
 * The fake model as an ADK model. ADK's LlmResponse carries usage as Gemini's usageMetadata, and a
 * function call's arguments follow the declared parameters: ADK JS declares transfer_to_agent with
 * `agentName` (Python ADK and Troupe: `agent_name`), so the call is written with the name the
 * request declares, as a real model reading the declaration would.
 */
export class FakeAdkLlm extends BaseLlm {
  constructor(mode = 'text') {
    super({ model: `fake-${mode}` });
    this.mode = mode;
  }

  async *generateContentAsync(request) {
    const { content, usage, turnComplete, finishReason } = respond(this.mode, request);
    yield {
      content: followDeclaredArgs(content, request),
      usageMetadata: {
        promptTokenCount: usage.inputTokens,
        candidatesTokenCount: usage.outputTokens,
        totalTokenCount: usage.inputTokens + usage.outputTokens,
      },
      turnComplete,
      finishReason,
    };
  }

  async connect() {
    throw new Error('FakeAdkLlm has no live mode.');
  }
}

const camel = (name) => name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

// Declared parameter names per tool, read once: building a declaration converts its zod schema,
// which is the fake model's work, not ADK's, and must not be timed on every call.
const declaredParams = new WeakMap();

function declaredParameters(tool) {
  if (!tool) return {};
  if (!declaredParams.has(tool)) declaredParams.set(tool, tool._getDeclaration()?.parameters?.properties ?? {});
  return declaredParams.get(tool);
}

/** Renames a call's snake_case argument to the camelCase one the request's declaration names. */
function followDeclaredArgs(content, request) {
  const call = content.parts[0]?.functionCall;
  if (!call) return content;
  const declared = declaredParameters(request.toolsDict?.[call.name]);
  const args = {};
  for (const [key, value] of Object.entries(call.args)) args[key in declared ? key : camel(key)] = value;
  return { ...content, parts: [{ functionCall: { ...call, args } }] };
}

/** A Runner on a fresh InMemorySessionService, and a function doing one run on a new session. */
export function adkApp(agent) {
  const sessionService = new InMemorySessionService();
  const runner = new Runner({ appName: APP, agent, sessionService });
  // `dropSession`: delete the run's session afterwards (the flatness check keeps one run's heap at a time).
  const run = async ({ dropSession = false } = {}) => {
    const session = await sessionService.createSession({ appName: APP, userId: USER });
    const events = [];
    for await (const event of runner.runAsync({ userId: USER, sessionId: session.id, newMessage: NEW_MESSAGE })) {
      if (event.errorCode)
        throw new Error(`ADK run of '${agent.name}' failed: ${event.errorCode} ${event.errorMessage}`);
      events.push(event);
    }
    if (dropSession) await sessionService.deleteSession({ appName: APP, userId: USER, sessionId: session.id });
    return { sessionId: session.id, events };
  };
  // The stored session of a run: what verify() checks (state written, events kept).
  const stored = (result) => sessionService.getSession({ appName: APP, userId: USER, sessionId: result.sessionId });
  return { runner, sessionService, run, stored };
}

function expect(condition, message) {
  if (!condition) throw new Error(`verification failed: ${message}`);
}

const lastText = (events) => events.at(-1)?.content?.parts?.[0]?.text;

const llm = (name, model, extra = {}) => new LlmAgent({ name, model, instruction: INSTRUCTION, ...extra });

const verifyKeys = (stored, n) => async (r) => {
  const { state } = await stored(r);
  for (let i = 0; i < n; i++) expect(state[`out${i}`] === TEXT, `state.out${i}`);
};

export function seq10() {
  const model = new FakeAdkLlm('text');
  const steps = Array.from({ length: 10 }, (_, i) => llm(`step${i}`, model, { outputKey: `out${i}` }));
  const { run, stored } = adkApp(new SequentialAgent({ name: 'pipeline', subAgents: steps }));
  return {
    run,
    verify: verifyKeys(stored, 10),
    notes:
      'ADK SequentialAgent of 10 LlmAgents, each with outputKey; Runner + InMemorySessionService, new session per run (SequentialAgent is deprecated in ADK 2.0 in favour of Workflow, still its documented pattern)',
  };
}

export function fanout100() {
  const model = new FakeAdkLlm('text');
  const branches = Array.from({ length: 100 }, (_, i) => llm(`a${i}`, model, { outputKey: `out${i}` }));
  const { run, stored } = adkApp(new ParallelAgent({ name: 'fanout', subAgents: branches }));
  return {
    run,
    verify: verifyKeys(stored, 100),
    notes:
      'ADK ParallelAgent of 100 LlmAgents, each with its own outputKey; new session per run (ParallelAgent is deprecated in ADK 2.0 in favour of Workflow)',
  };
}

/** Non-LLM checker (ADK's custom-agent pattern): counts iterations in state and escalates at `limit`. */
class IterationChecker extends BaseAgent {
  constructor(options) {
    super({ name: options.name });
    this.limit = options.limit;
  }

  async *runAsyncImpl(ctx) {
    const iteration = Number(ctx.session.state.iteration ?? 0) + 1;
    yield createEvent({
      invocationId: ctx.invocationId,
      author: this.name,
      branch: ctx.branch,
      actions: createEventActions({ stateDelta: { iteration }, escalate: iteration >= this.limit }),
    });
  }

  // eslint-disable-next-line require-yield -- no live mode; the generator only fails
  async *runLiveImpl() {
    throw new Error('IterationChecker has no live mode.');
  }
}

export function loopN(iterations) {
  const worker = llm('worker', new FakeAdkLlm('text'), { outputKey: 'work' });
  const checker = new IterationChecker({ name: 'checker', limit: iterations });
  // maxIterations is only a safety net: a broken escalation shows as a call-count mismatch, not a hang.
  const loop = new LoopAgent({ name: 'loop', subAgents: [worker, checker], maxIterations: iterations * 2 });
  const { run, stored } = adkApp(loop);
  return {
    run,
    verify: async (r) => {
      const { state } = await stored(r);
      expect(state.iteration === iterations, `state.iteration = ${state.iteration}`);
      expect(r.events.at(-1).actions.escalate === true, 'loop stopped by escalation');
    },
    notes: `ADK LoopAgent [worker LlmAgent (outputKey), custom BaseAgent checker: stateDelta + escalate at ${iterations}] (LoopAgent is deprecated in ADK 2.0 in favour of Workflow)`,
  };
}

export const loop200 = () => loopN(200);

export function tools10() {
  const addTool = new FunctionTool({
    name: 'add',
    description: 'Adds two numbers.',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: (args) => ({ result: add(args) }),
  });
  const { run } = adkApp(llm('calculator', new FakeAdkLlm('tools'), { tools: [addTool] }));
  return {
    run,
    verify: (r) => {
      const responses = r.events.flatMap(getFunctionResponses);
      expect(responses.length === TOOL_TURNS, `${responses.length} function responses`);
      responses.forEach((f, i) => expect(f.response.result === i + 1, `add result ${JSON.stringify(f.response)}`));
      expect(lastText(r.events) === TEXT, 'final text');
    },
    notes: 'ADK LlmAgent with FunctionTool add (zod parameters, as ADK docs); 10 tool turns then text',
  };
}

export function transfer() {
  const worker = new LlmAgent({
    name: 'worker',
    description: 'Does the work.',
    model: new FakeAdkLlm('text'),
    instruction: INSTRUCTION,
  });
  const coordinator = llm('coordinator', new FakeAdkLlm('transfer'), { subAgents: [worker] });
  const { run } = adkApp(coordinator);
  return {
    run,
    verify: (r) => {
      expect(
        r.events.some((e) => e.actions.transferToAgent === 'worker'),
        'transfer event',
      );
      expect(r.events.at(-1).author === 'worker' && lastText(r.events) === TEXT, 'worker answered');
    },
    notes: 'ADK coordinator LlmAgent with sub-agent worker; transfer_to_agent call; new session per run',
  };
}

/** sessions10k: one LlmAgent app; `sessions` sessions, each created and given one completed run. */
export function sessions10k({ sessions }) {
  const makeApp = () => adkApp(llm('assistant', new FakeAdkLlm('text')));
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
      const listed = await counted.sessionService.listSessions({ appName: APP, userId: USER });
      expect(listed.totalItems === sessions, `${listed.totalItems} sessions stored`);
    },
    perSessionUs,
    retained: counted,
    notes: 'ADK: one LlmAgent, one Runner + InMemorySessionService; 10,000 sessions each created + one completed run',
  };
}

/** The output node `name` of workflow `workflow` gave in a run's events (ADK: its event with `output`). */
function nodeOutput(events, workflow, name) {
  const path = `${workflow}.${name}`;
  return events.findLast((e) => e.nodeInfo?.path === path && e.output !== undefined)?.output;
}

/**
 * graph50 (bench-scenarios.md) with ADK 2.0's `Workflow` as the Runner's root, as its
 * samples/workflows build graphs: node() functions, JoinNode, LlmAgents as nodes, a route map.
 */
export function graph50() {
  const model = new FakeAdkLlm('text');
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
  const { run, stored } = adkApp(workflow);
  return {
    run,
    verify: async (r) => {
      const output = r.events.findLast((e) => e.output !== undefined)?.output;
      expect(output === GRAPH50.chain, `output ${JSON.stringify(output)}, expected ${GRAPH50.chain}`);
      const { state } = await stored(r);
      expect(state.counter === GRAPH50.chain, `state.counter ${state.counter}`);
      checkGraph50Nodes((name) => nodeOutput(r.events, 'graph50', name), TEXT);
    },
    notes:
      'ADK Workflow as the Runner root: classify (route A) → plan (LlmAgent) → w1..w10 → JoinNode → r1..r10 (LlmAgents) → JoinNode → summarize → s1..s24 (ctx.state counter) → end; unused B → fallback; new session per run',
  };
}

/** The flatness chain with ADK's Workflow: `nodes` function nodes, each stamping its start and returning input + 1. */
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
  const { run } = adkApp(new Workflow({ name: 'chain', edges: [['START', ...chain]] }));
  return {
    run: async (options) => {
      stamps.fill(NaN);
      cpu.fill(NaN);
      const result = await run(options);
      const output = result.events.findLast((e) => e.output !== undefined)?.output;
      expect(output === nodes, `chain output ${JSON.stringify(output)}, expected ${nodes}`);
      return result;
    },
    stamps,
    cpu,
    notes: `ADK Workflow: a chain of ${nodes} function nodes, each returning its input + 1`,
  };
}
