import { isAbsolute, resolve } from 'node:path';
import { ConfigurationError } from '../errors.js';
import type { CodeLanguage } from './code-executor.js';

/** Every language an executor can run. */
export const CODE_LANGUAGES: readonly CodeLanguage[] = ['python', 'node', 'bash'];

/** Options both executors take. */
export interface CodeExecutorOptions {
  /** The folder that holds one working folder per workspace; created when missing. */
  root: string;
  /**
   * Wall-clock limit of one run, in milliseconds: at it the whole process tree is killed and the
   * result has `timedOut: true`.
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * The most bytes kept of stdout and of stderr, each; the rest is dropped and the text ends with
   * `[output truncated at N bytes]`.
   * @default 65536
   */
  maxOutputBytes?: number;
  /**
   * Written files up to this size are read back into `WrittenFile.content` (and saved as artifacts
   * by the tools); bigger ones are only listed with their size. `0` reads none back.
   * @default 5242880 (5 MiB)
   */
  maxFileBytes?: number;
  /** Variables given to the program, on top of the allow-list (PATH, HOME = the working folder, LANG). */
  env?: Readonly<Record<string, string>>;
  /** Names of this process's variables to pass through (e.g. `['PYTHONPATH']`); nothing else is inherited. */
  inheritEnv?: readonly string[];
  /**
   * The languages offered.
   * @default ['python', 'node', 'bash']
   */
  languages?: readonly CodeLanguage[];
}

/** The options with their defaults applied. */
export interface ExecutorSettings {
  root: string;
  timeoutMs: number;
  maxOutputBytes: number;
  maxFileBytes: number;
  env: Record<string, string>;
  inheritEnv: readonly string[];
  languages: readonly CodeLanguage[];
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Checks the options of executor `owner` and applies the defaults. */
export function checkExecutorOptions(owner: string, options: CodeExecutorOptions): ExecutorSettings {
  if (typeof options?.root !== 'string' || options.root.trim() === '') {
    throw new ConfigurationError(
      `${owner} option 'root' must be a folder path; got ${JSON.stringify(options?.root)}. Pass the folder that holds the working folders, e.g. { root: '.troupe/code' }.`,
    );
  }
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (!ENV_NAME.test(name) || typeof value !== 'string') {
      throw new ConfigurationError(
        `${owner} option 'env' has ${JSON.stringify(name)}: ${JSON.stringify(value)}; names are letters, digits and '_' and values are strings. Fix the entry, e.g. { env: { MPLBACKEND: 'Agg' } }.`,
      );
    }
    env[name] = value;
  }
  for (const name of options.inheritEnv ?? []) {
    if (typeof name !== 'string' || !ENV_NAME.test(name)) {
      throw new ConfigurationError(
        `${owner} option 'inheritEnv' has ${JSON.stringify(name)}, which is not a variable name. List names such as ['PYTHONPATH'].`,
      );
    }
  }
  return {
    root: isAbsolute(options.root) ? options.root : resolve(options.root),
    timeoutMs: positiveInteger(owner, 'timeoutMs', options.timeoutMs, 30_000),
    maxOutputBytes: positiveInteger(owner, 'maxOutputBytes', options.maxOutputBytes, 65_536),
    maxFileBytes: positiveInteger(owner, 'maxFileBytes', options.maxFileBytes, 5 * 1024 * 1024, 0),
    env,
    inheritEnv: [...(options.inheritEnv ?? [])],
    languages: checkLanguages(owner, 'languages', options.languages) ?? CODE_LANGUAGES,
  };
}

/** Checks a list of languages (undefined stays undefined). */
export function checkLanguages(
  owner: string,
  option: string,
  languages: readonly CodeLanguage[] | undefined,
): readonly CodeLanguage[] | undefined {
  if (languages === undefined) return undefined;
  if (!Array.isArray(languages) || languages.length === 0) {
    throw new ConfigurationError(
      `${owner} option '${option}' must be a non-empty list of languages; got ${JSON.stringify(languages)}. Use some of ${JSON.stringify(CODE_LANGUAGES)}.`,
    );
  }
  for (const language of languages) {
    if (!CODE_LANGUAGES.includes(language)) {
      throw new ConfigurationError(
        `${owner} option '${option}' has ${JSON.stringify(language)}, which is not a language Troupe runs. Use some of ${JSON.stringify(CODE_LANGUAGES)}.`,
      );
    }
  }
  return Object.freeze([...new Set(languages)]);
}

function positiveInteger(owner: string, option: string, value: unknown, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new ConfigurationError(
      `${owner} option '${option}' must be a whole number of at least ${min}; got ${JSON.stringify(value)}. Omit it for the default of ${fallback}.`,
    );
  }
  return value;
}
