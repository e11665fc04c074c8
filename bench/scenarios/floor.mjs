// The floor: the same logical work as scenarios/troupe.mjs in plain JavaScript, no framework.
// Async functions call the shared fake model function, append an event object to the session's
// array and write keys into a plain state object. Sessions live in a Map, like an in-memory store,
// and are kept for the whole measurement (as Troupe's InMemorySessionService keeps them).
import { performance } from 'node:perf_hooks';
import { TEXT, TOOL_TURNS, add, respond } from '../fake-model.mjs';
import { FLAT_CHAIN_CPU_AT, GRAPH50, USER_MESSAGE, classifyRoute } from './spec.mjs';
import { cpuMicros } from '../stats.mjs';

let lastId = 0;

function floorApp(agent) {
  const sessions = new Map();
  // `dropSession`: delete the run's session afterwards (the flatness check keeps one run's heap at a time).
  const run = async ({ dropSession = false } = {}) => {
    const session = { id: `s${++lastId}`, state: {}, events: [], usage: { inputTokens: 0, outputTokens: 0 } };
    sessions.set(session.id, session);
    const userContent = { role: 'user', parts: [{ text: USER_MESSAGE }] };
    append(session, 'user', userContent);
    const output = await agent(session, userContent);
    if (dropSession) sessions.delete(session.id);
    return { status: 'completed', state: session.state, events: session.events, output };
  };
  return { sessions, run };
}

function append(session, author, content, stateDelta, extra) {
  const event = { id: ++lastId, author, timestamp: Date.now(), content, stateDelta, ...extra };
  session.events.push(event);
  if (stateDelta) for (const key in stateDelta) session.state[key] = stateDelta[key];
  return event;
}

async function callModel(session, mode, contents) {
  const response = respond(mode, { contents });
  session.usage.inputTokens += response.usage.inputTokens;
  session.usage.outputTokens += response.usage.outputTokens;
  return response;
}

/** An "LLM agent": one model call, one event, its text under `outputKey`. */
async function llmAgent(session, name, userContent, outputKey) {
  const response = await callModel(session, 'text', [userContent]);
  const text = response.content.parts[0].text;
  append(session, name, response.content, outputKey ? { [outputKey]: text } : undefined, { usage: response.usage });
  return text;
}

function expect(condition, message) {
  if (!condition) throw new Error(`verification failed: ${message}`);
}

const verifyKeys = (n) => (r) => {
  for (let i = 0; i < n; i++) expect(r.state[`out${i}`] === TEXT, `state.out${i}`);
};

export function seq10() {
  const { run } = floorApp(async (session, userContent) => {
    let output;
    for (let i = 0; i < 10; i++) output = await llmAgent(session, `step${i}`, userContent, `out${i}`);
    return output;
  });
  return { run, verify: verifyKeys(10), notes: 'plain async functions in sequence' };
}

export function fanout100() {
  const { run } = floorApp(async (session, userContent) => {
    const outputs = await Promise.all(
      Array.from({ length: 100 }, (_, i) => llmAgent(session, `a${i}`, userContent, `out${i}`)),
    );
    return Object.fromEntries(outputs.map((o, i) => [`a${i}`, o]));
  });
  return { run, verify: verifyKeys(100), notes: 'Promise.all of 100 async functions' };
}

export function loopN(iterations) {
  const { run } = floorApp(async (session, userContent) => {
    let output;
    for (;;) {
      output = await llmAgent(session, 'worker', userContent, 'work');
      const iteration = Number(session.state.iteration ?? 0) + 1;
      append(session, 'checker', undefined, { iteration }, { escalate: iteration >= iterations });
      if (iteration >= iterations) break;
    }
    return output;
  });
  return {
    run,
    verify: (r) => expect(r.state.iteration === iterations, 'iterations'),
    notes: `for loop; checker event + state counter, break at ${iterations}`,
  };
}

export const loop200 = () => loopN(200);

export function tools10() {
  const { run } = floorApp(async (session, userContent) => {
    const contents = [userContent];
    for (;;) {
      const response = await callModel(session, 'tools', contents);
      append(session, 'calculator', response.content, undefined, { usage: response.usage });
      contents.push(response.content);
      const calls = response.content.parts.filter((p) => p.functionCall);
      if (calls.length === 0) return response.content.parts[0].text;
      const parts = calls.map(({ functionCall: c }) => ({
        functionResponse: { id: c.id, name: c.name, response: { result: add(c.args) } },
      }));
      const toolContent = { role: 'user', parts };
      append(session, 'calculator', toolContent);
      contents.push(toolContent);
    }
  });
  return {
    run,
    verify: (r) => {
      const responses = r.events.flatMap((e) => e.content?.parts.filter((p) => p.functionResponse) ?? []);
      expect(responses.length === TOOL_TURNS && r.output === TEXT, 'tool loop');
    },
    notes: 'while loop: model call, run add, feed the result back',
  };
}

export function transfer() {
  const agents = {
    worker: (session, userContent) => llmAgent(session, 'worker', userContent),
  };
  const { run } = floorApp(async (session, userContent) => {
    const response = await callModel(session, 'transfer', [userContent]);
    append(session, 'coordinator', response.content, undefined, { usage: response.usage });
    const call = response.content.parts[0].functionCall;
    const target = agents[call.args.agent_name];
    if (!target) throw new Error(`unknown agent ${call.args.agent_name}`);
    append(
      session,
      'coordinator',
      { role: 'user', parts: [{ functionResponse: { id: call.id, name: call.name, response: {} } }] },
      undefined,
      { transferToAgent: call.args.agent_name },
    );
    return target(session, userContent);
  });
  return {
    run,
    verify: (r) => expect(r.events.at(-1).author === 'worker' && r.output === TEXT, 'worker answered'),
    notes: 'coordinator function calls the worker function named by the transfer call',
  };
}

export function sessions10k({ sessions }) {
  const makeApp = () => floorApp((session, userContent) => llmAgent(session, 'assistant', userContent));
  const counted = makeApp();
  const perSessionUs = [];
  return {
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
      expect(counted.sessions.size === sessions, 'sessions stored');
    },
    perSessionUs,
    retained: counted,
    notes: '10,000 session objects in a Map, one agent function run each',
  };
}

/**
 * graph50 by hand: each node an async function call that appends one event with its output (an LLM
 * node: one model call and its answer), the fan-outs as Promise.all, the joins as objects of outputs,
 * the chain's state writes into session.state; the route picks plan or fallback.
 */
export function graph50() {
  const node = async (session, name, work) => {
    const output = await work();
    append(session, name, undefined, undefined, { output });
    return output;
  };
  const llmNode = async (session, name, input) => {
    const userContent = { role: 'user', parts: [{ text: typeof input === 'string' ? input : JSON.stringify(input) }] };
    const response = await callModel(session, 'text', [userContent]);
    const text = response.content.parts[0].text;
    append(session, name, response.content, undefined, { usage: response.usage, output: text });
    return text;
  };
  const { run } = floorApp(async (session, userContent) => {
    const text = userContent.parts[0].text;
    const route = classifyRoute(text);
    append(session, 'classify', undefined, undefined, { output: text, route });
    if (route === 'B') return node(session, 'fallback', async () => `fallback: ${text}`);
    await llmNode(session, 'plan', text);
    const workers = await Promise.all(
      Array.from({ length: GRAPH50.workers }, (_, i) => node(session, `w${i + 1}`, async () => i + 1)),
    );
    const join1 = await node(session, 'join1', async () => Object.fromEntries(workers.map((w, i) => [`w${i + 1}`, w])));
    const answers = await Promise.all(
      Array.from({ length: GRAPH50.reviewers }, (_, i) => llmNode(session, `r${i + 1}`, join1)),
    );
    const join2 = await node(session, 'join2', async () => Object.fromEntries(answers.map((a, i) => [`r${i + 1}`, a])));
    await node(session, 'summarize', async () => Object.values(join2).filter((a) => a === TEXT).length);
    // Each chain node an awaited async function writing the counter (its event carries the state delta).
    const increment = async (name) => {
      append(session, name, undefined, { counter: Number(session.state.counter ?? 0) + 1 });
    };
    for (let i = 1; i <= GRAPH50.chain; i++) await increment(`s${i}`);
    return node(session, 'end', async () => session.state.counter);
  });
  return {
    run,
    verify: (r) => {
      expect(r.output === GRAPH50.chain, `output ${r.output}`);
      for (let i = 1; i <= GRAPH50.reviewers; i++)
        expect(r.events.find((e) => e.author === `r${i}`)?.output === TEXT, `r${i} answered`);
    },
    notes:
      'hand-written: classify route, plan model call, Promise.all of 10 workers, join object, Promise.all of 10 model calls, join object, summarize, 24 state writes, end; one event per node',
  };
}

/** The flatness chain by hand: `nodes` awaited async functions in a row, one event each, start stamps kept. */
export function chainN(nodes) {
  const stamps = new Float64Array(nodes);
  // CPU time too at the flatness windows' ends (process.cpuUsage costs about a µs: not on every node).
  const cpu = new Float64Array(nodes);
  const cpuAt = new Uint8Array(nodes);
  for (const i of FLAT_CHAIN_CPU_AT) if (i < nodes) cpuAt[i] = 1;
  const { run } = floorApp(async (session) => {
    let x;
    for (let i = 0; i < nodes; i++) {
      x = await (async (value) => {
        stamps[i] = performance.now();
        if (cpuAt[i]) cpu[i] = cpuMicros();
        return i === 0 ? 1 : value + 1;
      })(x);
      append(session, `c${i + 1}`, undefined, undefined, { output: x });
    }
    return x;
  });
  return {
    run: async (options) => {
      stamps.fill(NaN);
      cpu.fill(NaN);
      const result = await run(options);
      expect(result.output === nodes, `chain output ${result.output}`);
      return result;
    },
    stamps,
    cpu,
    notes: `${nodes} awaited async functions in a row, one event each`,
  };
}
