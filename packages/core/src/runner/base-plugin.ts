import type { CallbackContext } from '../agents/callback-context.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import type { BaseAgent } from '../agents/base-agent.js';
import type { Content } from '../events/content.js';
import type { Event, EventActions } from '../events/event.js';
import type { LlmRequest, LlmResponse } from '../models/llm-request.js';
import type { BaseTool } from '../tools/base-tool.js';
import type { ToolContext } from '../tools/tool-context.js';
import type { RunResult } from './run-result.js';

/** How an agent ended: finished, threw, stopped by cancellation, or paused for a human. */
export type AgentOutcome = 'completed' | 'failed' | 'cancelled' | 'interrupted';

type Maybe<T> = T | undefined | void | Promise<T | undefined | void>;

/**
 * Hooks that apply to every agent, model call and tool of a runner, at every depth (AgentTool,
 * transfer, parallel branches), each exactly once per call. Plugins run before the agents' own
 * callbacks; the first hook that returns a value short-circuits, as the callbacks do.
 *
 * @example
 * class CountCalls extends BasePlugin {
 *   calls = 0;
 *   constructor() { super('count-calls'); }
 *   override beforeModel() { this.calls++; return undefined; }
 * }
 */
export abstract class BasePlugin {
  constructor(readonly name: string) {}

  /**
   * When a run gets a new user message, before it is stored (ADK's `onUserMessageCallback`).
   * Returning content stores and runs that instead, e.g. uploaded files replaced by references to
   * the artifacts they were saved as ({@link SaveFilesAsArtifactsPlugin}). `actions` are the user
   * event's: record what the hook did there (`artifactDelta`). Not called for resumes.
   */
  onUserMessage?(params: { context: InvocationContext; message: Content; actions: EventActions }): Maybe<Content>;
  /** Before the invocation starts (after the user's message is appended). */
  beforeRun?(params: { context: InvocationContext }): Maybe<never>;
  /** After the invocation ends, however it ended. */
  afterRun?(params: { context: InvocationContext; result: RunResult }): Maybe<never>;
  /** For every event the runner yields (partial ones included). Return an event to replace it. */
  onEvent?(params: { context: InvocationContext; event: Event }): Maybe<Event>;
  /** Before an agent runs; returning content skips the agent and emits that content. */
  beforeAgent?(params: { agent: BaseAgent; context: CallbackContext }): Maybe<Content>;
  /**
   * After an agent ended, however it ended (`outcome`; `error` when it failed or was cancelled by
   * one). For a completed agent, returning content appends it as the agent's final event; for the
   * other outcomes the return value is ignored.
   */
  afterAgent?(params: {
    agent: BaseAgent;
    context: CallbackContext;
    outcome: AgentOutcome;
    error?: unknown;
  }): Maybe<Content>;
  /** Before a model call; returning a response skips the model. */
  beforeModel?(params: { context: CallbackContext; request: LlmRequest }): Maybe<LlmResponse>;
  /** After a model call; returning a response replaces it. */
  afterModel?(params: { context: CallbackContext; response: LlmResponse }): Maybe<LlmResponse>;
  /** When a model call fails; returning a response recovers with it. */
  onModelError?(params: { context: CallbackContext; request: LlmRequest; error: unknown }): Maybe<LlmResponse>;
  /** Before a tool runs; returning an object skips the tool and is used as its result. */
  beforeTool?(params: {
    tool: BaseTool;
    args: Record<string, unknown>;
    context: ToolContext;
  }): Maybe<Record<string, unknown>>;
  /** After a tool ran; returning an object replaces its result. */
  afterTool?(params: {
    tool: BaseTool;
    args: Record<string, unknown>;
    context: ToolContext;
    response: Record<string, unknown>;
  }): Maybe<Record<string, unknown>>;
  /** When a tool throws; returning an object recovers with it as the result. */
  onToolError?(params: {
    tool: BaseTool;
    args: Record<string, unknown>;
    context: ToolContext;
    error: unknown;
  }): Maybe<Record<string, unknown>>;
}

/** The hooks that short-circuit on the first defined result. */
export type PluginHook = Exclude<keyof BasePlugin, 'name'>;
