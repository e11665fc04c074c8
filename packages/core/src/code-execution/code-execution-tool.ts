import { ConfigurationError } from '../errors.js';
import type { FunctionDeclaration } from '../models/llm-request.js';
import { BaseTool } from '../tools/base-tool.js';
import type { ToolContext } from '../tools/tool-context.js';
import type { CodeExecutor, CodeLanguage } from './code-executor.js';
import { checkLanguages } from './executor-options.js';
import { runCodeWithApproval } from './run-code-with-approval.js';

/** Options of {@link codeExecutionTool}. */
export interface CodeExecutionToolOptions {
  /** Runs the code: a `LocalProcessExecutor`, a `ContainerExecutor` or your own. */
  executor: CodeExecutor;
  /**
   * The languages the model may use; only those the executor runs are offered.
   * @default the executor's languages
   */
  languages?: readonly CodeLanguage[];
  /** The tool's name. @default 'execute_code' */
  name?: string;
}

/**
 * The `execute_code` tool: the model sends `{ language, code, input_files? }`; the code runs in the session's
 * working folder through the executor and the model gets `{ exitCode, stdout, stderr, timedOut,
 * truncated, files }`. Made by {@link codeExecutionTool}.
 */
export class CodeExecutionTool extends BaseTool {
  /** The languages offered to the model. */
  readonly languages: readonly CodeLanguage[];
  private readonly executor: CodeExecutor;

  constructor(options: CodeExecutionToolOptions) {
    super({
      name: options?.name ?? 'execute_code',
      description:
        'Runs a program and returns its exit code, output and the files it wrote. Each call is a fresh process ' +
        "started in this conversation's working folder, which keeps the files of earlier calls; print what you need to see.",
    });
    const executor = options.executor;
    if (typeof executor?.execute !== 'function' || !Array.isArray(executor.languages)) {
      throw new ConfigurationError(
        `codeExecutionTool option 'executor' must be a CodeExecutor; got ${typeof executor}. Pass e.g. new LocalProcessExecutor({ root: '.troupe/code' }).`,
      );
    }
    const wanted = checkLanguages('codeExecutionTool', 'languages', options.languages) ?? executor.languages;
    const offered = wanted.filter((language) => executor.languages.includes(language));
    if (offered.length === 0) {
      throw new ConfigurationError(
        `codeExecutionTool option 'languages' is ${JSON.stringify(wanted)}, but its executor runs only ${JSON.stringify(executor.languages)}. List languages the executor runs.`,
      );
    }
    this.executor = executor;
    this.languages = Object.freeze(offered);
  }

  override async getDeclaration(): Promise<FunctionDeclaration> {
    return {
      name: this.name,
      description: this.description,
      parameters: {
        type: 'object',
        properties: {
          language: { type: 'string', enum: [...this.languages], description: 'The language of the code.' },
          code: { type: 'string', description: 'The complete program to run.' },
          input_files: {
            type: 'array',
            items: { type: 'string' },
            description:
              "Artifacts of this conversation (e.g. files the user sent) to place in the working folder by name before the run, e.g. ['sales.csv'].",
          },
        },
        required: ['language', 'code'],
      },
    };
  }

  override async runAsync(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    const { language, code } = args;
    if (typeof language !== 'string' || !this.languages.includes(language as CodeLanguage)) {
      return {
        error: `${this.name} runs ${this.languages.join(', ')}; got language ${JSON.stringify(language)}. Call it again with one of those.`,
      };
    }
    if (typeof code !== 'string' || code.trim() === '') {
      return { error: `${this.name} needs the program as a non-empty string in 'code'. Call it again with the code.` };
    }
    const inputFiles = args.input_files;
    if (inputFiles !== undefined && !(Array.isArray(inputFiles) && inputFiles.every((f) => typeof f === 'string'))) {
      return {
        error: `${this.name}: 'input_files' must be a list of artifact names, e.g. ['sales.csv']. Call it again.`,
      };
    }
    return runCodeWithApproval(ctx, this.executor, {
      language: language as CodeLanguage,
      code,
      ...(inputFiles ? { inputArtifacts: inputFiles } : {}),
    });
  }
}

/**
 * The `execute_code` tool (`{ language, code }`). Running code is a confirmation interrupt whose
 * payload is `{ language, code }` (the approval card shows it) unless the agent has
 * `allowCodeExecution: true`; a rejected run never starts. Written files are saved as artifacts when
 * the Runner has an artifact service.
 *
 * @example
 * const analyst = new LlmAgent({
 *   name: 'analyst',
 *   model,
 *   tools: [codeExecutionTool({ executor: new LocalProcessExecutor({ root: '.troupe/code' }), languages: ['python'] })],
 * });
 */
export function codeExecutionTool(options: CodeExecutionToolOptions): CodeExecutionTool {
  return new CodeExecutionTool(options);
}
