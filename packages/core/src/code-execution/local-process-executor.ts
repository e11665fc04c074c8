import { join } from 'node:path';
import { ConfigurationError } from '../errors.js';
import type { CodeExecutionRequest, CodeExecutionResult, CodeExecutor, CodeLanguage } from './code-executor.js';
import {
  checkExecutorOptions,
  CODE_LANGUAGES,
  type CodeExecutorOptions,
  type ExecutorSettings,
} from './executor-options.js';
import { allowListedEnv, runInWorkspace } from './run-in-workspace.js';
import { workspaceFolderName } from './workspace-folder.js';

/** Options of {@link LocalProcessExecutor}. */
export interface LocalProcessExecutorOptions extends CodeExecutorOptions {
  /**
   * The program that runs each language, looked up on the PATH unless absolute.
   * @default { python: 'python3', node: process.execPath, bash: 'bash' }
   */
  interpreters?: Partial<Record<CodeLanguage, string>>;
}

/**
 * Runs code as a child process of this one, in a working folder per workspace under `root`.
 *
 * What it does: the request's files are written only inside the folder (no `..`, no absolute path,
 * no symbolic link out of it); the program starts in the folder with an allow-listed environment
 * (PATH, LANG, HOME = the folder, plus `env` and `inheritEnv`); at the timeout, or when the request's
 * signal aborts, its whole process group is killed; stdout and stderr are capped; the files it wrote
 * are reported. What it does not do: **a local process is not a sandbox.** The code runs as the
 * user running Troupe: it can read and write anything that user can by absolute path, use the
 * network, and use CPU and memory until the timeout. Use {@link ContainerExecutor} for more.
 *
 * An interpreter that is not installed fails the run with a `ConfigurationError` naming it (the
 * tools hand that message to the model as the call's error).
 *
 * @example
 * const executor = new LocalProcessExecutor({ root: '.troupe/code', timeoutMs: 10_000 });
 * const result = await executor.execute({ language: 'python', code: 'print(6 * 7)', workspace: 'demo' });
 * // result.stdout === '42\n'
 */
export class LocalProcessExecutor implements CodeExecutor {
  readonly languages: readonly CodeLanguage[];
  private readonly settings: ExecutorSettings;
  private readonly interpreters: Record<CodeLanguage, string>;

  constructor(options: LocalProcessExecutorOptions) {
    this.settings = checkExecutorOptions('LocalProcessExecutor', options);
    this.languages = this.settings.languages;
    const interpreters = options.interpreters ?? {};
    for (const [language, program] of Object.entries(interpreters)) {
      if (!CODE_LANGUAGES.includes(language as CodeLanguage) || typeof program !== 'string' || program === '') {
        throw new ConfigurationError(
          `LocalProcessExecutor option 'interpreters' has ${JSON.stringify(language)}: ${JSON.stringify(program)}; keys are ${JSON.stringify(CODE_LANGUAGES)} and values program names or paths. Fix it, e.g. { interpreters: { python: 'python3.12' } }.`,
        );
      }
    }
    this.interpreters = {
      python: interpreters.python ?? 'python3',
      node: interpreters.node ?? process.execPath,
      bash: interpreters.bash ?? 'bash',
    };
  }

  /** The working folder of a workspace (created by the first run in it). */
  workspacePath(workspace: string): string {
    return join(this.settings.root, workspaceFolderName(workspace));
  }

  execute(request: CodeExecutionRequest): Promise<CodeExecutionResult> {
    return runInWorkspace('LocalProcessExecutor', this.settings, request, ({ language, folder, script, args }) => {
      const interpreter = this.interpreters[language];
      const base: Record<string, string> = {
        PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
        HOME: folder,
        LANG: process.env.LANG ?? 'C.UTF-8',
      };
      // Imports of the folder's modules would leave __pycache__ folders behind as "written files".
      if (language === 'python') base.PYTHONDONTWRITEBYTECODE = '1';
      return {
        command: interpreter,
        args: [script, ...args],
        env: allowListedEnv(this.settings, base),
        missingCommandFix: `Install it, set LocalProcessExecutor's interpreters.${language} to its path, or leave '${language}' out of 'languages'.`,
      };
    });
  }

  /** Nothing to release: each run's processes are gone when it returns. */
  async close(): Promise<void> {}
}
