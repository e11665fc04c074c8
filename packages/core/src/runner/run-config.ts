import { ConfigurationError } from '../errors.js';
import type { FunctionDeclaration } from '../models/llm-request.js';
import { clientToolsOf, type ClientTool } from '../tools/client-tool.js';

/** Per-run settings and limits. */
export interface RunConfig {
  /** `'sse'` streams partial text events as the model produces them. @default 'none' */
  streaming?: 'none' | 'sse';
  /** Model calls allowed in one run, across the whole tree. @default 500 */
  maxLlmCalls?: number;
  /** Agent transfers allowed in one run. @default 10 */
  maxTransfers?: number;
  /** Input + output tokens allowed in one run. */
  maxTokens?: number;
  /** Wall-clock limit of the run in milliseconds. */
  timeoutMs?: number;
  /** Start every user turn at the root agent instead of the agent that spoke last. */
  restartFromRoot?: boolean;
  /** Start a new run even though the session has unanswered interrupts (they are abandoned). */
  abandonInterrupts?: boolean;
  /**
   * Tools the caller executes (a web page's "frontend tools"), offered to every LlmAgent of the
   * run beside its own (an agent's own tool wins a name clash). A call to one pauses the run with
   * an input interrupt whose answer, given to `resume`, is the tool's result (see `ClientTool`).
   * Pass the same tools again when resuming.
   * @default []
   */
  clientTools?: readonly FunctionDeclaration[];
}

export type ResolvedRunConfig = Required<
  Pick<RunConfig, 'streaming' | 'maxLlmCalls' | 'maxTransfers' | 'restartFromRoot' | 'abandonInterrupts'>
> &
  Pick<RunConfig, 'maxTokens' | 'timeoutMs'> & { clientTools: readonly ClientTool[] };

const DEFAULTS: ResolvedRunConfig = Object.freeze({
  streaming: 'none',
  maxLlmCalls: 500,
  maxTransfers: 10,
  restartFromRoot: false,
  abandonInterrupts: false,
  clientTools: [],
});

/** Applies defaults once and rejects bad limits with the option, the value and the fix. */
export function resolveRunConfig(config?: RunConfig): ResolvedRunConfig {
  if (config === undefined) return DEFAULTS;
  const resolved: ResolvedRunConfig = {
    streaming: config.streaming ?? 'none',
    maxLlmCalls: config.maxLlmCalls ?? 500,
    maxTransfers: config.maxTransfers ?? 10,
    restartFromRoot: config.restartFromRoot ?? false,
    abandonInterrupts: config.abandonInterrupts ?? false,
    clientTools: clientToolsOf(config.clientTools),
  };
  if (resolved.streaming !== 'none' && resolved.streaming !== 'sse') {
    throw new ConfigurationError(`runConfig.streaming is ${JSON.stringify(config.streaming)}; use 'none' or 'sse'.`);
  }
  for (const key of ['maxLlmCalls', 'maxTransfers', 'maxTokens', 'timeoutMs'] as const) {
    const value = config[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !(value >= 0) || !Number.isFinite(value)) {
      throw new ConfigurationError(
        `runConfig.${key} is ${JSON.stringify(value)}; it must be a non-negative finite number.`,
      );
    }
    if (key === 'maxTokens' || key === 'timeoutMs') resolved[key] = value;
  }
  return resolved;
}
