import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigurationError } from '../errors.js';
import type { CodeExecutionRequest, CodeExecutionResult, CodeLanguage } from './code-executor.js';
import type { ExecutorSettings } from './executor-options.js';
import { changedFiles, RUN_SCRIPT_PREFIX, snapshotFolder } from './folder-snapshot.js';
import { withFolderLock } from './folder-lock.js';
import { runProcess, type ProcessSpec } from './run-process.js';
import { ensureFolder, workspaceFolderName, writeFilesInFolder } from './workspace-folder.js';

/** The file extension of each language's script. */
const EXTENSIONS: Record<CodeLanguage, string> = { python: 'py', node: 'mjs', bash: 'sh' };

/** How an executor starts a run: the command for a script placed in the working folder. */
export type CommandFor = (run: {
  language: CodeLanguage;
  /** The working folder (resolved). */
  folder: string;
  /** The script's file name, in the working folder. */
  script: string;
  args: readonly string[];
}) => Pick<ProcessSpec, 'command' | 'args' | 'env' | 'missingCommandFix' | 'onKill'>;

/**
 * The steps every executor shares: check the request, make the workspace's folder, write the
 * request's files (jailed), note the folder's files, place the code as a script file, run it, remove
 * the script, and report the files that are new or changed. Runs of one folder take turns.
 */
export async function runInWorkspace(
  owner: string,
  settings: ExecutorSettings,
  request: CodeExecutionRequest,
  commandFor: CommandFor,
): Promise<CodeExecutionResult> {
  checkRequest(owner, settings, request);
  request.signal?.throwIfAborted();
  const started = Date.now();
  await ensureFolder(settings.root);
  const folder = await ensureFolder(join(settings.root, workspaceFolderName(request.workspace)));
  return withFolderLock(folder, () => runInFolder(settings, request, folder, commandFor, started));
}

async function runInFolder(
  settings: ExecutorSettings,
  request: CodeExecutionRequest,
  folder: string,
  commandFor: CommandFor,
  started: number,
): Promise<CodeExecutionResult> {
  request.signal?.throwIfAborted();
  await writeFilesInFolder(folder, request.files ?? []);
  const before = await snapshotFolder(folder);
  const script = `${RUN_SCRIPT_PREFIX}${randomUUID()}.${EXTENSIONS[request.language]}`;
  const handle = await open(
    join(folder, script),
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    await handle.writeFile(request.code);
  } finally {
    await handle.close();
  }
  let outcome;
  try {
    const command = commandFor({ language: request.language, folder, script, args: request.args ?? [] });
    outcome = await runProcess({
      ...command,
      cwd: folder,
      timeoutMs: settings.timeoutMs,
      maxOutputBytes: settings.maxOutputBytes,
      signal: request.signal,
    });
  } finally {
    await rm(join(folder, script), { force: true });
  }
  const after = await snapshotFolder(folder);
  return {
    ...outcome,
    files: await changedFiles(folder, before, after, settings.maxFileBytes),
    durationMs: Date.now() - started,
  };
}

/** The environment a run starts with: the allow-list, the variables passed through, then `env`. */
export function allowListedEnv(settings: ExecutorSettings, base: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { ...base };
  for (const name of settings.inheritEnv) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...settings.env };
}

function checkRequest(owner: string, settings: ExecutorSettings, request: CodeExecutionRequest): void {
  if (!settings.languages.includes(request?.language)) {
    throw new ConfigurationError(
      `${owner} does not run ${JSON.stringify(request?.language)}; it runs ${JSON.stringify(settings.languages)}. Ask for one of those, or add the language to its 'languages' option.`,
    );
  }
  if (typeof request.code !== 'string') {
    throw new ConfigurationError(
      `A code execution request needs 'code' as a string; got ${typeof request.code}. Pass the program's source text.`,
    );
  }
  if (
    request.args !== undefined &&
    !(Array.isArray(request.args) && request.args.every((a) => typeof a === 'string'))
  ) {
    throw new ConfigurationError(
      `A code execution request's 'args' must be a list of strings; got ${JSON.stringify(request.args)}. Pass e.g. ['data.csv'].`,
    );
  }
  if (request.files !== undefined && !Array.isArray(request.files)) {
    throw new ConfigurationError(
      `A code execution request's 'files' must be a list of { path, content }; got ${JSON.stringify(request.files)}.`,
    );
  }
}
