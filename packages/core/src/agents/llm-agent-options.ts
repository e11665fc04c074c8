import type { ContextCache } from '../models/context-cache.js';
import type { BaseLlm } from '../models/base-llm.js';
import type { GenerateContentConfig } from '../models/llm-request.js';
import type { OneOrMany } from '../runner/plugin-manager.js';
import type { BaseTool } from '../tools/base-tool.js';
import type { BaseToolset } from '../tools/base-toolset.js';
import type { BaseNode } from '../workflow/base-node.js';
import type { Workflow } from '../workflow/workflow.js';
import type { WorkingMemoryOptions } from '../working-memory/working-memory-options.js';
import type { InputGuardrail, OutputGuardrail } from '../guardrails/guardrail.js';
import type { Schema } from '../utils/schema.js';
import type { BaseAgentOptions } from './base-agent.js';
import type { IncludeContents } from './llm/history.js';
import type { AfterModelCallback, BeforeModelCallback } from './llm/model-call.js';
import type { Instruction } from './llm/request-builder.js';
import type { AfterToolCallback, BeforeToolCallback } from './llm/tool-execution.js';

/** Options of {@link LlmAgent} (ADK names). */
export interface LlmAgentOptions extends BaseAgentOptions {
  /** A model string (`'gemini-2.5-flash'`, `'openai/gpt-4o-mini'`) or instance. Inherited from the nearest ancestor LlmAgent when unset. */
  model?: string | BaseLlm;
  /**
   * Models to fall back to, in order, when the model fails before its first streamed chunk. The
   * primary is tried first on every request; the event records which model answered.
   */
  fallbackModels?: readonly (string | BaseLlm)[];
  /** What the agent should do. `{key}` inserts `state[key]`, `{key?}` is optional, `{{`/`}}` are literal braces. */
  instruction?: Instruction;
  /** On the root agent: an instruction placed before every LlmAgent's own in the tree. */
  globalInstruction?: Instruction;
  /**
   * Tools, and toolsets whose current tools are fetched at the start of every run (e.g. an MCP
   * server). A graph workflow or a workflow node is made a tool (ADK's `NodeTool`; its
   * `inputSchema` is the tool's parameters).
   */
  tools?: readonly (BaseTool | BaseToolset | BaseNode | Workflow)[];
  /** Stores the final answer (text, or the parsed object with `outputSchema`) in `state[outputKey]`. */
  outputKey?: string;
  /** The final answer must be JSON matching this schema; it becomes the agent's output. */
  outputSchema?: Schema;
  /** Schema of the structured input (AgentTool parameters, TeamAgent input). */
  inputSchema?: Schema;
  /** With a structured input, the field whose text is the user message. */
  inputKey?: string;
  /**
   * `'none'`: the model sees only the current turn; `{ lastTurns?, maxTokens? }`: a window over the
   * history (the current turn always whole). @default 'default'
   */
  includeContents?: IncludeContents;
  /** @default false */
  disallowTransferToParent?: boolean;
  /** @default false */
  disallowTransferToPeers?: boolean;
  /** Temperature, maxOutputTokens and other generation settings. */
  generateContentConfig?: GenerateContentConfig;
  /**
   * Prompt caching for this agent's model calls; overrides the Runner's `contextCache` (false
   * turns it off here). See "Prompt caching" in docs/models.md.
   * @default the Runner's
   */
  contextCache?: ContextCache;
  beforeModelCallback?: OneOrMany<BeforeModelCallback>;
  afterModelCallback?: OneOrMany<AfterModelCallback>;
  beforeToolCallback?: OneOrMany<BeforeToolCallback>;
  afterToolCallback?: OneOrMany<AfterToolCallback>;
  /**
   * Checks on the agent's input (the user's Content, or `ctx.input` for a structured input) when it
   * starts. They run concurrently with the first model call, whose response is held until they pass;
   * a guardrail with `blocking: true` runs before the model is called. A tripwire blocks the run.
   */
  inputGuardrails?: readonly InputGuardrail[];
  /**
   * Checks on the agent's final output before it is stored (and written to `outputKey`). A tripwire
   * blocks the run. While an agent has them, its streamed chunks are held until its answer passed
   * them, so a blocked answer is never shown (see `streamBeforeOutputGuardrails`).
   */
  outputGuardrails?: readonly OutputGuardrail[];
  /**
   * Streams the answer's chunks as they come, before the output guardrails have checked it: lower
   * latency, but a client has already shown what a tripwire then blocks (the chunks are never stored,
   * and the run ends blocked). Only for guardrails whose verdict may arrive after the text was seen.
   * @default false
   */
  streamBeforeOutputGuardrails?: boolean;
  /**
   * Lets this agent run code (`codeExecutionTool`, skill scripts) without asking a human first.
   * Unset, every run of code is a confirmation interrupt whose card shows the code.
   * @default false
   */
  allowCodeExecution?: boolean;
  /**
   * A small record the agent sees in every request's instruction and keeps up to date with the
   * `update_working_memory` tool (added to its tools): per user across their sessions, or per session.
   */
  workingMemory?: WorkingMemoryOptions;
}
