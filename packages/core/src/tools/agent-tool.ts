import type { BaseAgent } from '../agents/base-agent.js';
import type { HistoryScope } from '../agents/invocation-context.js';
import { createEvent, textOf, type Event } from '../events/event.js';
import { ToolPaused } from '../interrupts/signals.js';
import { InputValidationError } from '../errors.js';
import type { FunctionDeclaration } from '../models/llm-request.js';
import { TEMP_PREFIX } from '../sessions/state-keys.js';
import { toJsonSchema, validate } from '../utils/schema.js';
import { fanInAgentsOf } from '../agents/llm/branch-visibility.js';
import { BaseTool } from './base-tool.js';
import type { ToolContext } from './tool-context.js';

/** Options of {@link AgentTool}. */
export interface AgentToolOptions {
  /** The agent to call as a tool. It is not added to the caller's tree. */
  agent: BaseAgent;
  /** End the caller's turn with the agent's result instead of a further model call. @default false */
  skipSummarization?: boolean;
}

const REQUEST_PARAMETERS = {
  type: 'object',
  properties: { request: { type: 'string', description: 'The request for the agent.' } },
  required: ['request'],
} as const;

/**
 * Lets an LlmAgent call another agent like a function. The agent runs inside the same session
 * and invocation, on branch `<caller branch>.<caller>.<agent>`, seeing only the call's input (not
 * the caller's conversation). Its events stream to the caller and are stored; its state writes
 * (its `outputKey` too) flow back, `temp:` keys do not. The result is the agent's output; an
 * error becomes an error tool response, except a guardrail tripwire (`GuardrailTrippedError`),
 * cancellation and run limits, which end the whole run.
 *
 * @example
 * const researcher = new AgentTool({ agent: researchAssistant });
 * const writer = new LlmAgent({ name: 'ReportWriter', instruction: '...', tools: [researcher] });
 */
export class AgentTool extends BaseTool {
  readonly agent: BaseAgent;
  readonly skipSummarization: boolean;
  private declaration: Promise<FunctionDeclaration> | undefined;

  constructor(options: AgentToolOptions) {
    super({ name: options.agent?.name, description: options.agent?.description ?? '' });
    this.agent = options.agent;
    this.skipSummarization = options.skipSummarization ?? false;
  }

  getDeclaration(): Promise<FunctionDeclaration> {
    this.declaration ??= (async () => ({
      name: this.name,
      description: this.description,
      parameters: this.agent.inputSchema ? await toJsonSchema(this.agent.inputSchema) : { ...REQUEST_PARAMETERS },
    }))();
    return this.declaration;
  }

  async runAsync(args: Record<string, unknown>, toolCtx: ToolContext): Promise<unknown> {
    let input = args;
    if (this.agent.inputSchema) {
      const checked = await validate(this.agent.inputSchema, args);
      if (!checked.ok) {
        throw new InputValidationError(
          `Invalid arguments for agent tool '${this.name}': ${checked.message}. Call it again with arguments matching its input schema.`,
        );
      }
      input = checked.value as Record<string, unknown>;
    } else if (typeof args.request !== 'string') {
      input = { request: typeof args.request === 'undefined' ? JSON.stringify(args) : JSON.stringify(args.request) };
    }
    if (this.skipSummarization) toolCtx.actions.skipSummarization = true;

    const caller = toolCtx.invocationContext;
    const branch = caller.childBranch(caller.agent.name, this.agent.name);
    const userContent = this.agent.inputMessage(input);
    // The call's own conversation: its input as the user turn, then what the agent says.
    const scope: HistoryScope = {
      events: [createEvent({ invocationId: caller.invocationId, author: 'user', branch, content: userContent })],
      fanIn: fanInAgentsOf(this.agent),
    };
    if (toolCtx.resumeFrom !== undefined)
      scope.events.push(...eventsOfCall(caller.session.events, toolCtx.resumeFrom, caller.invocationId, branch));
    const ctx = caller.with({
      branch,
      input,
      userContent,
      historyScope: scope,
      loopScope: undefined,
      abortSignal: toolCtx.abortSignal,
      resumeFrom: toolCtx.resumeFrom,
    });

    const state = caller.session.state;
    const tempBefore = snapshotTemp(state);
    let output: unknown;
    let lastText: string | undefined;
    let paused = false;
    try {
      for await (const event of this.agent.runAsync(ctx)) {
        await toolCtx.emitEvent(event);
        if (event.partial) continue;
        if (event.interrupt) paused = true;
        scope.events.push(event);
        if (event.output !== undefined) output = event.output;
        const text = textOf(event);
        if (text) lastText = text;
      }
    } finally {
      restoreTemp(state, tempBefore);
    }
    // The agent is waiting for a human; the call stays open and resumes with the run.
    if (paused) throw new ToolPaused();
    return output !== undefined ? output : (lastText ?? null);
  }
}

/** The stored events of an earlier, paused part of this call (its branch and below). */
function eventsOfCall(events: readonly Event[], from: number, invocationId: string, branch: string): Event[] {
  const out: Event[] = [];
  for (let i = from; i < events.length; i++) {
    const e = events[i]!;
    if (e.invocationId === invocationId && (e.branch === branch || e.branch.startsWith(`${branch}.`))) out.push(e);
  }
  return out;
}

function snapshotTemp(state: Record<string, unknown>): Map<string, unknown> {
  const snapshot = new Map<string, unknown>();
  for (const key in state) if (key.startsWith(TEMP_PREFIX)) snapshot.set(key, state[key]);
  return snapshot;
}

// temp: keys are scoped to one invocation; the agent a tool calls is its own, so its temp: writes
// must not be seen by the caller afterwards.
function restoreTemp(state: Record<string, unknown>, before: Map<string, unknown>): void {
  for (const key in state) {
    if (key.startsWith(TEMP_PREFIX) && !before.has(key)) delete state[key];
  }
  for (const [key, value] of before) state[key] = value;
}
