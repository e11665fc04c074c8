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
});

export const FRAMEWORKS = Object.freeze(['troupe', 'floor']);

/** Other frameworks, run by `npm run bench:peers` (installed in bench/peers): name → its scenario module, from bench/. */
export const PEER_FRAMEWORKS = Object.freeze({ adk: './peers/adk.mjs' });

/** The user's message of every run. */
export const USER_MESSAGE = 'hello';
/** The instruction of every LLM agent. */
export const INSTRUCTION = 'Answer briefly.';
