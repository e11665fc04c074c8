import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ConfigurationError } from '../errors.js';
import type { CodeExecutionRequest, CodeExecutionResult, CodeExecutor, CodeLanguage } from './code-executor.js';
import { dockerArgs } from './docker-args.js';
import {
  checkExecutorOptions,
  CODE_LANGUAGES,
  type CodeExecutorOptions,
  type ExecutorSettings,
} from './executor-options.js';
import { allowListedEnv, runInWorkspace } from './run-in-workspace.js';
import { workspaceFolderName } from './workspace-folder.js';

/** Options of {@link ContainerExecutor}. */
export interface ContainerExecutorOptions extends CodeExecutorOptions {
  /**
   * The image each run starts from: one for all languages, or one per language (it must have the
   * language's program: `python3`, `node`, `bash`).
   * @default { python: 'python:3.12-slim', node: 'node:22-slim', bash: 'python:3.12-slim' }
   */
  image?: string | Partial<Record<CodeLanguage, string>>;
  /** The Docker command (a name on the PATH or a path; Podman's `podman` works too). @default 'docker' */
  docker?: string;
  /** Memory limit of a run's container (`docker run --memory`). @default '1g' */
  memory?: string;
  /** CPU limit of a run's container (`docker run --cpus`). @default 1 */
  cpus?: number;
  /** Process limit of a run's container (`docker run --pids-limit`). @default 256 */
  pidsLimit?: number;
}

/** Whether Docker can run containers here, and if not, why. */
export type DockerStatus = { available: true; serverVersion: string } | { available: false; reason: string };

const DEFAULT_IMAGES: Record<CodeLanguage, string> = {
  python: 'python:3.12-slim',
  node: 'node:22-slim',
  bash: 'python:3.12-slim',
};
const INTERPRETERS: Record<CodeLanguage, string> = { python: 'python3', node: 'node', bash: 'bash' };

/**
 * Runs each request in a new Docker container (`docker run --rm --network none`) with only the
 * workspace's working folder mounted, at `/workspace`; otherwise the same as
 * {@link LocalProcessExecutor}: the request's files written jailed, an allow-listed environment,
 * the timeout (the container is `docker kill`ed), output caps and the files written reported.
 *
 * It protects the rest of the machine's files and the network from the code, and limits memory,
 * CPU and processes. It is still not a virtual machine: the container shares this machine's kernel,
 * so a kernel flaw can be used to escape it. The image must be pulled first (`docker pull`), since
 * runs have no network.
 *
 * @example
 * const status = await ContainerExecutor.check();
 * const executor = status.available
 *   ? new ContainerExecutor({ root: '.troupe/code' })
 *   : new LocalProcessExecutor({ root: '.troupe/code' });
 */
export class ContainerExecutor implements CodeExecutor {
  readonly languages: readonly CodeLanguage[];
  private readonly settings: ExecutorSettings;
  private readonly images: Record<CodeLanguage, string>;
  private readonly docker: string;
  private readonly limits: { memory: string; cpus: number; pidsLimit: number };

  constructor(options: ContainerExecutorOptions) {
    const owner = 'ContainerExecutor';
    this.settings = checkExecutorOptions(owner, options);
    this.languages = this.settings.languages;
    if (this.settings.root.includes(':')) {
      throw new ConfigurationError(
        `${owner} option 'root' is '${options.root}', which has a ':' that 'docker run -v' cannot mount. Choose a folder without ':'.`,
      );
    }
    const image = options.image ?? {};
    if (typeof image === 'string') this.images = { python: image, node: image, bash: image };
    else {
      for (const [language, name] of Object.entries(image)) {
        if (!CODE_LANGUAGES.includes(language as CodeLanguage) || typeof name !== 'string' || name === '') {
          throw new ConfigurationError(
            `${owner} option 'image' has ${JSON.stringify(language)}: ${JSON.stringify(name)}; give one image name, or one per language of ${JSON.stringify(CODE_LANGUAGES)}, e.g. { python: 'python:3.12-slim' }.`,
          );
        }
      }
      this.images = { ...DEFAULT_IMAGES, ...image };
    }
    if (options.docker !== undefined && (typeof options.docker !== 'string' || options.docker === '')) {
      throw new ConfigurationError(
        `${owner} option 'docker' must be a command name or path; got ${JSON.stringify(options.docker)}. Omit it for 'docker'.`,
      );
    }
    this.docker = options.docker ?? 'docker';
    if (options.memory !== undefined && !/^\d+[bkmg]?$/i.test(String(options.memory))) {
      throw new ConfigurationError(
        `${owner} option 'memory' must be a size such as '512m' or '2g'; got ${JSON.stringify(options.memory)}.`,
      );
    }
    if (options.cpus !== undefined && !(typeof options.cpus === 'number' && options.cpus > 0)) {
      throw new ConfigurationError(
        `${owner} option 'cpus' must be a number above 0, e.g. 0.5 or 2; got ${JSON.stringify(options.cpus)}.`,
      );
    }
    if (
      options.pidsLimit !== undefined &&
      !(typeof options.pidsLimit === 'number' && Number.isSafeInteger(options.pidsLimit) && options.pidsLimit > 0)
    ) {
      throw new ConfigurationError(
        `${owner} option 'pidsLimit' must be a whole number above 0; got ${JSON.stringify(options.pidsLimit)}.`,
      );
    }
    this.limits = { memory: options.memory ?? '1g', cpus: options.cpus ?? 1, pidsLimit: options.pidsLimit ?? 256 };
  }

  /**
   * Asks Docker whether it can run containers (`docker version`): answers why not when the command
   * is missing or the daemon cannot be reached.
   */
  static check(docker = 'docker', timeoutMs = 10_000): Promise<DockerStatus> {
    return new Promise((resolve) => {
      const child = spawn(docker, ['version', '--format', '{{.Server.Version}}'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: timeoutMs,
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.on('error', (error: NodeJS.ErrnoException) =>
        resolve({
          available: false,
          reason:
            error.code === 'ENOENT'
              ? `'${docker}' was not found on the PATH`
              : `'${docker}' failed to start: ${error.message}`,
        }),
      );
      child.on('close', (code) => {
        const version = out.trim();
        if (code === 0 && version !== '') resolve({ available: true, serverVersion: version });
        else
          resolve({
            available: false,
            reason: `'${docker} version' cannot reach a Docker daemon: ${(err.trim() || `exit code ${code}`).split('\n')[0]}`,
          });
      });
    });
  }

  /** The working folder of a workspace on this machine (mounted at `/workspace` in each run). */
  workspacePath(workspace: string): string {
    return join(this.settings.root, workspaceFolderName(workspace));
  }

  execute(request: CodeExecutionRequest): Promise<CodeExecutionResult> {
    return runInWorkspace('ContainerExecutor', this.settings, request, ({ language, folder, script, args }) => {
      const name = `troupe-run-${randomUUID()}`;
      const runEnv = allowListedEnv(this.settings, { LANG: process.env.LANG ?? 'C.UTF-8' });
      const uid = process.getuid?.();
      const gid = process.getgid?.();
      return {
        command: this.docker,
        args: dockerArgs({
          name,
          image: this.images[language],
          folder,
          interpreter: INTERPRETERS[language],
          script,
          args,
          envNames: Object.keys(runEnv),
          user: uid === undefined || gid === undefined ? undefined : `${uid}:${gid}`,
          ...this.limits,
        }),
        // The docker CLI itself needs this process's environment (DOCKER_HOST, its config); the
        // container gets only the names listed with -e.
        env: { ...stringEnv(process.env), ...runEnv },
        missingCommandFix: `Install Docker, set ContainerExecutor's 'docker' option to its path, or use LocalProcessExecutor.`,
        onKill: () => {
          const kill = spawn(this.docker, ['kill', name], { stdio: 'ignore' });
          // The container may already be gone (it exited, or --rm removed it): nothing to report.
          kill.on('error', () => undefined);
        },
      };
    });
  }

  /** Nothing to release: every container is removed when its run ends (`--rm`). */
  async close(): Promise<void> {}
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}
