import { spawn } from 'node:child_process';
import { ConfigurationError } from '../errors.js';
import { CappedOutput } from './capped-output.js';

/** How one process run ended. */
export interface ProcessOutcome {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  truncated: boolean;
}

/** What {@link runProcess} starts, and its limits. */
export interface ProcessSpec {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal | undefined;
  /** Named in the error when the command cannot be found, with the fix. */
  missingCommandFix: string;
  /** An extra step when the run is killed (e.g. `docker kill` of its container). */
  onKill?: () => void;
}

/** After the process exited, how long its inherited pipes may stay open before they are closed. */
const PIPE_GRACE_MS = 1000;

/**
 * Runs a command in its own process group and waits for it. At the timeout, or when `signal`
 * aborts, the whole group is killed (SIGKILL to `-pid`: the process and every descendant that did
 * not leave the group); when the process exits on its own, descendants it left running in the
 * background are killed too, so nothing outlives the run. Aborting rejects with the signal's reason
 * once the process is gone.
 */
export function runProcess(spec: ProcessSpec): Promise<ProcessOutcome> {
  spec.signal?.throwIfAborted();
  return new Promise<ProcessOutcome>((resolve, reject) => {
    const child = spawn(spec.command, [...spec.args], {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout = new CappedOutput(spec.maxOutputBytes);
    const stderr = new CappedOutput(spec.maxOutputBytes);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    let killError: unknown;

    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch (error) {
        // ESRCH: the group is already gone. Anything else is reported when the run settles (it is
        // called from timers and events, where a throw would crash the process).
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') killError ??= error;
      }
    };
    const kill = (): void => {
      killGroup();
      spec.onKill?.();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, spec.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      kill();
    };
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (): void => {
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      spec.signal?.removeEventListener('abort', onAbort);
    };

    child.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      finish();
      reject(
        error.code === 'ENOENT'
          ? new ConfigurationError(
              `Code execution could not start '${spec.command}': it is not installed or not on the PATH. ${spec.missingCommandFix}`,
              { cause: error },
            )
          : error,
      );
    });
    child.on('exit', () => {
      killGroup();
      // A descendant that left the group can hold the pipes open: stop waiting for it.
      graceTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, PIPE_GRACE_MS);
    });
    child.on('close', (code) => {
      if (settled) return;
      finish();
      if (killError !== undefined) {
        reject(killError);
        return;
      }
      if (aborted) {
        reject(spec.signal?.reason ?? new Error('The code execution was cancelled.'));
        return;
      }
      resolve({
        exitCode: timedOut ? null : code,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        truncated: stdout.truncated || stderr.truncated,
      });
    });
  });
}
