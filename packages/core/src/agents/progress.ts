import type { Event } from '../events/event.js';
import type { LoopStopReason } from './loop-agent.js';

/**
 * The resume protocol's records, in one place. An agent that cannot show from its other events how
 * far it got stores a *progress record* in `actions.agentState` of an event of its own; a resumed
 * run (after a pause, a crash or a drain, in any process) reads the agent's records from that
 * invocation and continues after them. Each built-in agent has one record type here, and each is
 * read back through its parser, which also rejects records of another shape (so a record written by
 * another release fails loudly instead of steering a resume wrongly).
 *
 * Custom agents write their own records (any JSON object) and read them back with
 * `ctx.lastProgress()`; see docs/agents.md, "Writing your own workflow agent".
 */

/** SequentialAgent, after a child that cannot show it finished: the next child to run. */
export interface SequentialProgress {
  next: number;
}

/** LoopAgent: where an iteration stood, or, on its final event, why it stopped. */
export type LoopProgress = { iteration: number; next: number } | { stopReason: LoopStopReason; iterations: number };

/** ParallelAgent: one branch finished (custom agents only), or the whole fan-out did. */
export type ParallelProgress = { completed: string } | { completed: string[] };

/** TeamAgent: a finished skill or reviewer run and its output, a reflection round begun, or the team done. */
export type TeamProgress = { unit: string; output: Record<string, unknown> } | { round: string } | { finished: true };

/** The runner, on the user event that opens an invocation: how to start it again the same way. */
export interface InvocationStart {
  /** The agent that answered, when it was not the root (an earlier transfer). */
  startAgent?: string;
  /** The structured input, when the run was given one. */
  input?: Record<string, unknown>;
}

/** The runner, on a user event of a resume: the answers given to interrupts. */
export interface ResumeAnswers {
  resume: { responses: Record<string, unknown> };
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;

export function sequentialProgress(state: Json | undefined): SequentialProgress | undefined {
  return state && isCount(state.next) ? { next: state.next } : undefined;
}

export function loopProgress(state: Json | undefined): LoopProgress | undefined {
  if (!state) return undefined;
  if ((state.stopReason === 'escalated' || state.stopReason === 'maxIterations') && isCount(state.iterations))
    return { stopReason: state.stopReason, iterations: state.iterations };
  if (isCount(state.iteration) && isCount(state.next)) return { iteration: state.iteration, next: state.next };
  return undefined;
}

export function parallelProgress(state: Json | undefined): ParallelProgress | undefined {
  if (!state) return undefined;
  if (typeof state.completed === 'string') return { completed: state.completed };
  if (Array.isArray(state.completed) && state.completed.every((n) => typeof n === 'string'))
    return { completed: state.completed };
  return undefined;
}

export function teamProgress(state: Json | undefined): TeamProgress | undefined {
  if (!state) return undefined;
  if (typeof state.unit === 'string' && isObject(state.output)) return { unit: state.unit, output: state.output };
  if (typeof state.round === 'string') return { round: state.round };
  if (state.finished === true) return { finished: true };
  return undefined;
}

/** The runner's record on an invocation's opening user event (empty when it had none). */
export function invocationStart(event: Event): InvocationStart {
  const state = event.actions.agentState;
  const start: InvocationStart = {};
  if (typeof state?.startAgent === 'string') start.startAgent = state.startAgent;
  if (isObject(state?.input)) start.input = state.input;
  return start;
}

/** The answers recorded on a resume's user event, if it is one. */
export function resumeAnswers(event: Event): ResumeAnswers | undefined {
  if (event.author !== 'user') return undefined;
  const resume = event.actions.agentState?.resume;
  return isObject(resume) && isObject(resume.responses) ? { resume: { responses: resume.responses } } : undefined;
}

/** Typed as a progress record for `actions.agentState` (records are plain JSON objects). */
export function asAgentState(
  record: SequentialProgress | LoopProgress | ParallelProgress | TeamProgress | InvocationStart | ResumeAnswers,
): Json {
  return record as unknown as Json;
}
