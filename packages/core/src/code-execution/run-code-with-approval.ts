import { LlmAgent } from '../agents/llm-agent.js';
import type { ToolContext } from '../tools/tool-context.js';
import { USER_ARTIFACT_PREFIX } from '../artifacts/artifact-service.js';
import { ToolArgumentsError } from '../tools/function-tool.js';
import type { CodeExecutionRequest, CodeExecutor, CodeFile, CodeLanguage } from './code-executor.js';
import { saveWrittenFiles, type ReportedFile } from './save-written-files.js';

/** What a tool that ran code answers the model: the run's outcome and the files it wrote. */
export interface CodeRunResponse {
  /** The exit code; `null` when the run was killed (timeout). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** The run was killed at the executor's timeout. */
  timedOut: boolean;
  /** stdout or stderr was cut at the executor's output cap. */
  truncated: boolean;
  /** Files the run created or changed, and the artifacts they were saved as. */
  files: ReportedFile[];
}

/** What a human approving a run of code is shown: an approval card renders `code` as a code block. */
export interface CodeApprovalPayload {
  language: CodeLanguage;
  code: string;
  /** The program's arguments, when it has some. */
  args?: string[];
  /** The paths of the files placed in the working folder before the run. */
  files?: string[];
}

/** Options of {@link runCodeWithApproval}. */
export interface RunCodeWithApprovalOptions {
  /**
   * Run without asking. Unset, the calling agent's `allowCodeExecution` decides (an agent that is
   * not an LlmAgent is always asked for).
   */
  allow?: boolean;
  /** The confirmation's text. @default `Run this <language> code?` */
  hint?: string;
}

/** The request without what {@link runCodeWithApproval} fills in from the tool context. */
export type CodeRunRequest = Omit<CodeExecutionRequest, 'workspace' | 'signal'> & {
  /** @default `<appName>/<userId>/<sessionId>` of the calling session */
  workspace?: string;
  /**
   * Artifacts of the session to place in the working folder before the run, each at its name (a
   * `user:` artifact without the prefix): files the user sent, or earlier runs' outputs. A name the
   * session has no artifact for fails the call, before anything is asked or run.
   */
  inputArtifacts?: readonly string[];
};

/**
 * Runs code for a tool, the way `execute_code` does: unless allowed, it first pauses the run with a
 * confirmation interrupt whose payload is the code ({@link CodeApprovalPayload}); a rejection ends
 * the tool call before anything runs. The run uses the session's working folder and the run's abort
 * signal; the files it writes are saved as artifacts when the Runner has an artifact service.
 * Call it before any other side effect of the tool: on approval the tool call runs again from its
 * start.
 *
 * @example
 * const tool = new FunctionTool({
 *   name: 'run_report',
 *   description: 'Builds the report.',
 *   execute: (_args, ctx) => runCodeWithApproval(ctx, executor, { language: 'python', code: REPORT_PY }),
 * });
 */
export async function runCodeWithApproval(
  ctx: ToolContext,
  executor: CodeExecutor,
  request: CodeRunRequest,
  options: RunCodeWithApprovalOptions = {},
): Promise<CodeRunResponse> {
  const { inputArtifacts, ...rest } = request;
  request = { ...rest, files: [...(request.files ?? []), ...(await artifactFiles(ctx, inputArtifacts ?? []))] };
  const agent = ctx.invocationContext.agent;
  const allowed = options.allow ?? (agent instanceof LlmAgent && agent.allowCodeExecution);
  if (!allowed) {
    const payload: CodeApprovalPayload = { language: request.language, code: request.code };
    if (request.args && request.args.length > 0) payload.args = [...request.args];
    if (request.files && request.files.length > 0) payload.files = request.files.map((file) => file.path);
    await ctx.requestConfirmation({ hint: options.hint ?? `Run this ${request.language} code?`, payload });
  }
  const session = ctx.session;
  const result = await executor.execute({
    ...request,
    workspace: request.workspace ?? `${session.appName}/${session.userId}/${session.id}`,
    signal: ctx.abortSignal,
  });
  return {
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
    timedOut: result.timedOut,
    truncated: result.truncated,
    files: await saveWrittenFiles(ctx, result.files),
  };
}

/** The named artifacts as files for the working folder; a missing one is an error naming it and the others. */
async function artifactFiles(ctx: ToolContext, names: readonly string[]): Promise<CodeFile[]> {
  const files: CodeFile[] = [];
  for (const name of names) {
    const part = typeof name === 'string' && name !== '' ? await ctx.loadArtifact(name) : undefined;
    if (part === undefined) {
      const known = await ctx.listArtifacts();
      throw new ToolArgumentsError(
        `Input file ${JSON.stringify(name)} is not an artifact of this session; its artifacts are ${known.length > 0 ? known.map((k) => JSON.stringify(k)).join(', ') : 'none'}. Call again with one of those names.`,
      );
    }
    const content =
      'inlineData' in part ? Buffer.from(part.inlineData.data, 'base64') : 'text' in part ? part.text : '';
    files.push({
      path: name.startsWith(USER_ARTIFACT_PREFIX) ? name.slice(USER_ARTIFACT_PREFIX.length) : name,
      content,
    });
  }
  return files;
}
