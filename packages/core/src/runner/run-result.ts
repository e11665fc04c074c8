import type { Event, InterruptInfo, Usage } from '../events/event.js';
import type { RunLimit } from '../errors.js';

/** How a run ended. `'blocked'`: a guardrail's tripwire fired (`error` is the `GuardrailTrippedError`). */
export type RunStatus = 'completed' | 'interrupted' | 'failed' | 'cancelled' | 'limit' | 'blocked';

/** Token counts summed over model calls. */
export interface UsageSums {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  thoughtTokens: number;
  /** Prompt tokens written to a provider's cache; present once a call reported some. */
  cacheWriteTokens?: number;
}

/** Token totals of a run, overall and per agent. */
export interface UsageTotals extends UsageSums {
  byAgent: Record<string, UsageSums>;
}

/** What `runner.run` resolves with. */
export interface RunResult {
  status: RunStatus;
  /** The invocation's id (the caller's `invocationId`, or the generated one): `resume` takes it. */
  invocationId: string;
  /** The events the run produced and stored (partial chunks excluded), in order. */
  events: Event[];
  /** The output of the agent that answered (see "Output" in the docs). */
  output: unknown;
  /** The session state after the run (without `temp:` keys). */
  state: Record<string, unknown>;
  usage: UsageTotals;
  /** Interrupts still waiting for an answer. */
  interrupts: InterruptInfo[];
  error?: Error;
  /** Which limit ended a run with status `'limit'`. */
  stopReason?: RunLimit;
}

/** Adds one model-call event's usage to the totals. */
export function addUsage(totals: UsageTotals, author: string, usage: Usage): void {
  const cached = usage.cachedTokens ?? 0;
  const thought = usage.thoughtTokens ?? 0;
  totals.inputTokens += usage.inputTokens;
  totals.outputTokens += usage.outputTokens;
  totals.cachedTokens += cached;
  totals.thoughtTokens += thought;
  let agent = totals.byAgent[author];
  if (!agent) {
    agent = { inputTokens: 0, outputTokens: 0, cachedTokens: 0, thoughtTokens: 0 };
    totals.byAgent[author] = agent;
  }
  agent.inputTokens += usage.inputTokens;
  agent.outputTokens += usage.outputTokens;
  agent.cachedTokens += cached;
  agent.thoughtTokens += thought;
  const written = usage.cacheWriteTokens;
  if (written !== undefined) {
    totals.cacheWriteTokens = (totals.cacheWriteTokens ?? 0) + written;
    agent.cacheWriteTokens = (agent.cacheWriteTokens ?? 0) + written;
  }
}

export function emptyUsage(): UsageTotals {
  return { inputTokens: 0, outputTokens: 0, cachedTokens: 0, thoughtTokens: 0, byAgent: {} };
}
