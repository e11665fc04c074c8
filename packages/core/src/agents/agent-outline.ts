import type { BaseTool } from '../tools/base-tool.js';
import type { BaseAgent } from './base-agent.js';

/**
 * What kind of agent an agent is ({@link BaseAgent.kind}). The built-in agents use the names of agent
 * definition files' `type:`; an agent class that names no kind of its own is `'custom'`. Any other
 * string is allowed, so a new workflow agent names its own kind (e.g. `'race'`).
 */
export type AgentKind =
  | 'llm'
  | 'sequential'
  | 'parallel'
  | 'loop'
  | 'team'
  | 'routed'
  | 'function'
  | 'supervisor'
  | 'plan_execute'
  | 'group_chat'
  | 'custom'
  // Any other string; written this way so editors still suggest the names above.
  | (string & Record<never, never>);

/**
 * How tools that draw agent trees (the server's `GET /apps/{app}/graph`, the dev UI, the A2A agent
 * card) show an agent: what {@link BaseAgent.outline} returns.
 */
export interface AgentOutline {
  /** The agents drawn below this one (never one of its ancestors: the tree is drawn recursively). Default: its sub-agents. */
  children: readonly BaseAgent[];
  /** The tools drawn on this agent; an `AgentTool`'s agent is drawn under its tool. Default: none. */
  tools: readonly BaseTool[];
  /** The model the agent names itself (an inherited model is not repeated). Default: none. */
  model?: string;
}
