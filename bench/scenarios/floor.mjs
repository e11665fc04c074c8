// The floor: the same logical work as scenarios/troupe.mjs in plain JavaScript, no framework.
// Async functions call the shared fake model function, append an event object to the session's
// array and write keys into a plain state object. Sessions live in a Map, like an in-memory store,
// and are kept for the whole measurement (as Troupe's InMemorySessionService keeps them).
import { performance } from 'node:perf_hooks';
import { TEXT, TOOL_TURNS, add, respond } from '../fake-model.mjs';
import { USER_MESSAGE } from './spec.mjs';

let lastId = 0;

function floorApp(agent) {
  const sessions = new Map();
  const run = async () => {
    const session = { id: `s${++lastId}`, state: {}, events: [], usage: { inputTokens: 0, outputTokens: 0 } };
    sessions.set(session.id, session);
    const userContent = { role: 'user', parts: [{ text: USER_MESSAGE }] };
    append(session, 'user', userContent);
    const output = await agent(session, userContent);
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
