import { redact, type Runner, TroupeError } from '@troupe/core';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { appCallOf } from './app-tool.js';
import { CallRefused } from './call-refused.js';
import { refusedResult } from './call-results.js';
import { runCall } from './call-run.js';
import { mcpMessage } from './mcp-remedy.js';
import type { ResolvedMcpOptions } from './mcp-server-options.js';
import { type CallExtra, ProgressReporter } from './progress-reporter.js';
import { RESUME_TOOL, resumeCallOf } from './resume-tool.js';

/** Who calls, and what of the client matters to a call. */
export interface Caller {
  userId: string;
  /** The client declared form elicitation. */
  canElicit: boolean;
}

/**
 * Answers one `tools/call`: an app's tool runs a turn, `resume` answers a paused run. What the
 * caller must fix (arguments, an unknown session, a busy one) is a tool error naming it; an unknown
 * tool is a JSON-RPC error (-32602); a failure of the server itself is a JSON-RPC internal error.
 */
export async function callTool(
  options: ResolvedMcpOptions,
  caller: Caller,
  name: string,
  args: Record<string, unknown> | undefined,
  extra: CallExtra,
): Promise<CallToolResult> {
  try {
    if (name === RESUME_TOOL) return await resume(options, caller, args, extra);
    const names = await options.apps.names();
    if (!names.includes(name))
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool '${name}'. This server's tools are ${[...names, RESUME_TOOL].map((n) => `'${n}'`).join(', ')}; tools/list describes them.`,
      );
    return await callApp(options, caller, name, args, extra);
  } catch (error) {
    if (error instanceof McpError) throw error;
    if (error instanceof CallRefused) return refusedResult(error.message);
    if (error instanceof TroupeError) return refusedResult(mcpMessage(error));
    throw new McpError(
      ErrorCode.InternalError,
      `The server failed to run '${name}': ${redact(error instanceof Error ? error.message : String(error))}`,
    );
  }
}

async function callApp(
  options: ResolvedMcpOptions,
  caller: Caller,
  name: string,
  args: Record<string, unknown> | undefined,
  extra: CallExtra,
): Promise<CallToolResult> {
  let runner: Runner;
  try {
    runner = await options.apps.runner(name);
  } catch (error) {
    throw new CallRefused(
      `App '${name}' failed to load: ${error instanceof Error ? error.message : String(error)} Fix it; the next call loads it again.`,
    );
  }
  const call = appCallOf(name, runner, args);
  const { userId } = caller;
  const session = await sessionFor(runner, userId, call.sessionId, name);
  const sessionId = session.sessionId;
  let discard = session.discard;
  const run = { runner, userId, sessionId, options, extra, progress: progressOf(extra), canElicit: caller.canElicit };
  try {
    return await runCall(run, async (abortSignal) => {
      // Once the run starts, the session is its own, whatever happens next.
      const undo = discard;
      discard = undefined;
      try {
        return await runner.start({ userId, sessionId, ...call.turn, runConfig: options.runConfig, abortSignal });
      } catch (error) {
        await undo?.();
        throw error;
      }
    });
  } catch (error) {
    // Refused before the run started (the host is shutting down): the new session goes too.
    await discard?.();
    throw error;
  }
}

/** The session a call runs in: the one it names (this user's, else refused), or a new one, deleted again if the run cannot start. */
async function sessionFor(
  runner: Runner,
  userId: string,
  requested: string | undefined,
  tool: string,
): Promise<{ sessionId: string; discard: (() => Promise<void>) | undefined }> {
  const key = { appName: runner.appName, userId };
  const sessionService = runner.sessionService;
  if (requested === undefined) {
    const sessionId = (await sessionService.createSession(key)).id;
    return { sessionId, discard: () => sessionService.deleteSession({ ...key, sessionId }) };
  }
  if (!(await sessionService.getSession({ ...key, sessionId: requested })))
    throw new CallRefused(
      `There is no session '${requested}' of app '${tool}' for this user: sessions belong to the user who started them. Pass the _meta.sessionId an earlier result of '${tool}' returned, or leave sessionId out to start a new session.`,
    );
  return { sessionId: requested, discard: undefined };
}

async function resume(
  options: ResolvedMcpOptions,
  caller: Caller,
  args: Record<string, unknown> | undefined,
  extra: CallExtra,
): Promise<CallToolResult> {
  const { userId } = caller;
  const { runner, sessionId, interrupt, answer } = await resumeCallOf(options.apps, userId, args);
  const run = { runner, userId, sessionId, options, extra, progress: progressOf(extra), canElicit: caller.canElicit };
  return runCall(run, (abortSignal) =>
    runner.startResume({
      userId,
      sessionId,
      responses: { [interrupt.id]: answer },
      runConfig: options.runConfig,
      abortSignal,
    }),
  );
}

function progressOf(extra: CallExtra): ProgressReporter {
  return new ProgressReporter(extra._meta?.progressToken, extra);
}
