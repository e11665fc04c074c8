import type { Content } from '@troupe/core';

/**
 * A tool call a turn is expected to make. Calls made inside an AgentTool (by the agent it wraps,
 * at any depth) are part of the trajectory too, in call order: the wrapping call comes first,
 * then the calls its agent makes, then whatever the caller does next.
 */
export interface ToolCallExpectation {
  /** The tool's name (for an AgentTool, the wrapped agent's name). */
  name: string;
  /** The arguments, compared as JSON values (key order does not matter). Omitted: any arguments. */
  args?: Record<string, unknown>;
  /**
   * The agent that makes the call: its path from the root (`Planner/Researcher`), or a trailing
   * part of it (`Researcher`). Omitted: any agent.
   */
  agent?: string;
}

/** One user turn of a case and what should come of it. */
export interface EvalTurn {
  /** The user's message: text, or a Content with role `user`. */
  user: string | Content;
  /** The expected final response text. Omitted: the response is not scored for this turn. */
  response?: string;
  /** The expected tool trajectory. Omitted: not scored; `[]`: no tool call is expected. */
  toolCalls?: ToolCallExpectation[];
}

/** One conversation to run on a fresh session, turn by turn. */
export interface EvalCase {
  /** Unique within its eval set. */
  id: string;
  description?: string;
  /** The session's state before the first turn. */
  state?: Record<string, unknown>;
  /** The user the session belongs to. @default 'eval_user' */
  userId?: string;
  turns: EvalTurn[];
}

/** A named collection of cases, as read from an eval set file. */
export interface EvalSet {
  id: string;
  name?: string;
  description?: string;
  cases: EvalCase[];
}

/** A tool call that was made during a run. */
export interface ToolCallRecord {
  name: string;
  args: Record<string, unknown>;
  /** The path of the agent that made it, from the root (`Planner/Researcher`). */
  agent: string;
}
