import type { FunctionCall, FunctionResponse, Part } from '../../events/content.js';
import type { InterruptInfo } from '../../events/event.js';
import { endsRun } from '../../runner/ends-run.js';
import { ToolInterrupt, ToolPaused, ToolRejected } from '../../interrupts/signals.js';
import { firstResult, type OneOrMany } from '../../runner/plugin-manager.js';
import { BaseTool, toFunctionResponse } from '../../tools/base-tool.js';
import { ToolContext } from '../../tools/tool-context.js';
import type { EventSink } from '../event-sink.js';
import { findForbiddenKey } from '../../utils/forbidden-keys.js';
import type { InvocationContext } from '../invocation-context.js';

export type ToolResult = Record<string, unknown>;

/** Runs before a tool; returning an object skips the tool and is used as its result. */
export type BeforeToolCallback = (params: {
  tool: BaseTool;
  args: Record<string, unknown>;
  context: ToolContext;
}) => ToolResult | undefined | void | Promise<ToolResult | undefined | void>;

/** Runs after a tool; returning an object replaces its result. */
export type AfterToolCallback = (params: {
  tool: BaseTool;
  args: Record<string, unknown>;
  context: ToolContext;
  response: ToolResult;
}) => ToolResult | undefined | void | Promise<ToolResult | undefined | void>;

export interface ToolCallbacks {
  beforeToolCallback: OneOrMany<BeforeToolCallback> | undefined;
  afterToolCallback: OneOrMany<AfterToolCallback> | undefined;
}

/** What running one model turn's function calls produced. */
export interface ToolTurn {
  /** Responses of the calls that finished, in call order. */
  parts: Part[];
  /** Tool contexts of the finished calls, whose state writes and actions go on the response event. */
  contexts: ToolContext[];
  /** New requests for a human, one per paused call that asked. */
  interrupts: InterruptInfo[];
  /** True when some call is waiting for a human (here or inside an AgentTool). */
  paused: boolean;
}

type CallOutcome = { response: ToolResult } | { interrupt: InterruptInfo } | { paused: true };

/**
 * Runs the function calls of one model turn concurrently, handing the events their tools emit
 * (AgentTool) to `sink`, then returns the finished responses in call order and any pauses.
 */
export async function executeFunctionCalls(
  ctx: InvocationContext,
  calls: readonly FunctionCall[],
  tools: ReadonlyMap<string, BaseTool>,
  callbacks: ToolCallbacks,
  resumeFrom: number | undefined,
  sink: EventSink,
): Promise<ToolTurn> {
  const contexts = calls.map((call) => new ToolContext(ctx, call.id, sink, resumeFrom));
  const outcomes: CallOutcome[] = new Array(calls.length);
  const checking = checkCalls(ctx, calls, tools, contexts);
  if (checking) await checking;
  await Promise.all(
    calls.map(async (call, i) => {
      outcomes[i] = await callTool(ctx, call, tools, callbacks, contexts[i]!);
    }),
  );
  const turn: ToolTurn = { parts: [], contexts: [], interrupts: [], paused: false };
  outcomes.forEach((outcome, i) => {
    const call = calls[i]!;
    if ('response' in outcome) {
      const functionResponse: FunctionResponse = { id: call.id, name: call.name, response: outcome.response };
      turn.parts.push({ functionResponse });
      turn.contexts.push(contexts[i]!);
    } else {
      turn.paused = true;
      if ('interrupt' in outcome) turn.interrupts.push(outcome.interrupt);
    }
  });
  return turn;
}

/**
 * Every call's checks (tool guardrails) pass before any call of the turn starts: a tripwire on one
 * call must not find a sibling's side effect already done. Only what ends the run propagates; other
 * problems of a call are reported by running it.
 */
function checkCalls(
  ctx: InvocationContext,
  calls: readonly FunctionCall[],
  tools: ReadonlyMap<string, BaseTool>,
  contexts: ToolContext[],
): Promise<unknown> | undefined {
  let checks: Promise<void>[] | undefined;
  calls.forEach((call, i) => {
    const tool = tools.get(call.name);
    // Most tools check nothing: no promise, no argument walk for them (this runs every tool turn).
    if (!tool || tool.checkCall === BaseTool.prototype.checkCall) return;
    const args = call.args ?? {};
    if (findForbiddenKey(args, 'args')) return;
    const check = tool.checkCall(args, contexts[i]!);
    if (!check) return;
    (checks ??= []).push(
      check.catch((error: unknown) => {
        if (endsRun(error, ctx.abortSignal)) throw error;
      }),
    );
  });
  return checks && Promise.all(checks);
}

async function callTool(
  ctx: InvocationContext,
  call: FunctionCall,
  tools: ReadonlyMap<string, BaseTool>,
  callbacks: ToolCallbacks,
  toolCtx: ToolContext,
): Promise<CallOutcome> {
  const tool = tools.get(call.name);
  if (!tool) {
    const offered = [...tools.keys()];
    return {
      response: {
        error: `Tool '${call.name}' is not available to agent '${ctx.agent.name}'. ${offered.length ? `Available tools: ${offered.join(', ')}.` : 'This agent has no tools.'} Call one of the available tools or answer directly.`,
      },
    };
  }
  // A cancelled run starts no tool (calls of one turn start together; one may cancel the run).
  ctx.throwIfAborted();
  const args = call.args ?? {};
  const forbidden = findForbiddenKey(args, 'args');
  if (forbidden) {
    return {
      response: {
        error: `Tool '${call.name}' was not run: its arguments hold the key '${forbidden.key}' at ${forbidden.path}, and '__proto__', 'constructor' and 'prototype' are refused at any depth. Call it again without that key.`,
      },
    };
  }
  const plugins = ctx.shared.plugins;
  const skipped =
    (await plugins.run('beforeTool', { tool, args, context: toolCtx })) ??
    (await firstResult(callbacks.beforeToolCallback, { tool, args, context: toolCtx }));
  let response: ToolResult;
  if (skipped !== undefined) {
    response = toFunctionResponse(skipped);
  } else {
    try {
      response = toFunctionResponse(await tool.runAsync(args, toolCtx));
    } catch (error) {
      if (error instanceof ToolInterrupt) {
        return { interrupt: { ...error.request, agentPath: ctx.path, toolCallId: call.id, toolName: call.name, args } };
      }
      if (error instanceof ToolPaused) return { paused: true };
      if (error instanceof ToolRejected) {
        response = {
          error: `The user rejected this call of tool '${call.name}'; it did not run.`,
          ...(error.payload === undefined ? {} : { payload: error.payload }),
        };
      } else {
        if (endsRun(error, ctx.abortSignal)) throw error;
        const recovered = await plugins.run('onToolError', { tool, args, context: toolCtx, error });
        response =
          recovered !== undefined ? toFunctionResponse(recovered) : { error: ctx.shared.redact(errorMessage(error)) };
      }
    }
  }
  const replaced =
    (await plugins.run('afterTool', { tool, args, context: toolCtx, response })) ??
    (await firstResult(callbacks.afterToolCallback, { tool, args, context: toolCtx, response }));
  return { response: replaced !== undefined ? toFunctionResponse(replaced) : response };
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : JSON.stringify(error);
}
