// The scenario table of /work/shared/bench-scenarios.md: counted runs and the expected fake-model
// calls per run (asserted). Keep the shapes exactly as written there: other frameworks are measured
// on the same scenarios elsewhere.
export const SCENARIOS = Object.freeze({
  seq10: { runs: 300, llmCallsPerRun: 10 },
  fanout100: { runs: 50, llmCallsPerRun: 100 },
  loop200: { runs: 20, llmCallsPerRun: 200 },
  tools10: { runs: 200, llmCallsPerRun: 11, toolCallsPerRun: 10 },
  transfer: { runs: 500, llmCallsPerRun: 2 },
  // One run = 10,000 sessions, each created and given one completed run.
  sessions10k: { runs: 1, sessions: 10_000, llmCallsPerRun: 10_000 },
  // The 50-node graph workflow (GRAPH50 below): plan + r1..r10 call the model.
  graph50: { runs: 50, llmCallsPerRun: 11, floorRatioTarget: 10, peerThroughputTarget: 5 },
});

/**
 * graph50's shape (bench-scenarios.md, "Graph workflow scenario"): START → classify, routing A
 * (→ plan) or B (→ fallback); plan (LLM) → w1..w10 (function, each returns its index) → join1
 * (JoinNode) → r1..r10 (LLM) → join2 (JoinNode) → summarize → s1..s24 (each adds 1 to the state
 * key `counter`) → end (returns the counter). 51 nodes with the unused fallback; 11 model calls.
 */
export const GRAPH50 = Object.freeze({ workers: 10, reviewers: 10, chain: 24 });

/**
 * graph50's per-node checks, the same for every engine: `outputOf(name)` reads a node's output as
 * that engine records it; `text` is the fake model's answer. Throws naming the first check that fails.
 */
export function checkGraph50Nodes(outputOf, text) {
  const check = (ok, what) => {
    if (!ok) throw new Error(`verification failed: ${what}`);
  };
  check(outputOf('plan') === text, 'plan answered');
  const joined = outputOf('join1');
  for (let i = 1; i <= GRAPH50.workers; i++) check(joined?.[`w${i}`] === i, `join1.w${i}`);
  for (let i = 1; i <= GRAPH50.reviewers; i++) check(outputOf(`r${i}`) === text, `r${i} answered`);
  check(outputOf('summarize') === GRAPH50.reviewers, 'summarize counted every answer');
  check(outputOf('fallback') === undefined, 'fallback did not run');
}

/** classify's rule: route A for inputs up to this many characters (the scenario's input always), B above. */
export const CLASSIFY_MAX_A = 200;
export const classifyRoute = (text) => (String(text).length <= CLASSIFY_MAX_A ? 'A' : 'B');

/** The flatness chain: this many function nodes in a row; per-node cost of the last 50 vs the first 50. */
export const FLAT_CHAIN = Object.freeze({ nodes: 500, window: 50 });

/**
 * The chain nodes (0-based) whose start is also stamped with the process's CPU time: the two
 * windows are nodes 0→window and nodes−1−window→nodes−1 (the time between node starts).
 */
export const FLAT_CHAIN_CPU_AT = Object.freeze([
  0,
  FLAT_CHAIN.window,
  FLAT_CHAIN.nodes - 1 - FLAT_CHAIN.window,
  FLAT_CHAIN.nodes - 1,
]);

/** The scenarios `extras.mjs warm` measures after JIT warm-up (sessions10k is one long run already). */
export const WARM_SCENARIOS = Object.freeze(['seq10', 'fanout100', 'loop200', 'tools10', 'transfer', 'graph50']);

export const FRAMEWORKS = Object.freeze(['troupe', 'floor']);

/** Other frameworks, run by `npm run bench:peers` (installed in bench/peers): name → its scenario module, from bench/. */
export const PEER_FRAMEWORKS = Object.freeze({ adk: './peers/adk.mjs' });

/** The user's message of every run. */
export const USER_MESSAGE = 'hello';
/** The instruction of every LLM agent. */
export const INSTRUCTION = 'Answer briefly.';
