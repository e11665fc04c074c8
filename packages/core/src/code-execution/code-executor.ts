/** A language a {@link CodeExecutor} can run. */
export type CodeLanguage = 'python' | 'node' | 'bash';

/** One file to place in the working folder before the code runs. */
export interface CodeFile {
  /** Relative to the working folder, with `/` separators; `..` and absolute paths are refused. */
  path: string;
  content: string | Uint8Array;
}

/** What to run, and where. */
export interface CodeExecutionRequest {
  language: CodeLanguage;
  /** The program's source text. */
  code: string;
  /** Arguments passed to the program after its source (e.g. a skill script's arguments). */
  args?: readonly string[];
  /** Files written into the working folder before the run (e.g. a skill's scripts and data). */
  files?: readonly CodeFile[];
  /**
   * Names the working folder: runs with the same workspace share one folder (a session's runs see
   * the files earlier runs wrote). Made of the app, user and session ids by the tools that call it.
   */
  workspace: string;
  /** Cancels the run: the executor kills the whole process tree. */
  signal?: AbortSignal;
}

/** A file the run created or changed in its working folder. */
export interface WrittenFile {
  /** Relative to the working folder, with `/` separators. */
  path: string;
  size: number;
  /**
   * The file's bytes, when the executor read them back (for artifacts): the built-in executors read
   * files up to their `maxFileBytes`.
   */
  content?: Uint8Array;
}

/** How a run ended. */
export interface CodeExecutionResult {
  /** The exit code; `null` when the process was killed (timeout or cancel). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** The run took longer than the executor's timeout and its process tree was killed. */
  timedOut: boolean;
  /** stdout or stderr was cut at the executor's output cap (the text ends with a marker saying so). */
  truncated: boolean;
  /** Files created or changed by the run, in path order. */
  files: WrittenFile[];
  durationMs: number;
}

/**
 * Runs code on behalf of an agent. Implementations decide how much they isolate: a local process
 * is not a sandbox (docs/code-execution.md states what each executor protects against).
 */
export interface CodeExecutor {
  /** The languages this executor can run. */
  readonly languages: readonly CodeLanguage[];
  execute(request: CodeExecutionRequest): Promise<CodeExecutionResult>;
  /** Releases what the executor holds (containers, temp folders). Safe to call more than once. */
  close?(): Promise<void>;
}
