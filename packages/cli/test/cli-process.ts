import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built bin: tests of real `troupe` processes run it as users do. */
export const BIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** A `troupe` child process of the built bin, with its output so far. */
export interface TroupeProcess {
  process: ChildProcessWithoutNullStreams;
  pid: number;
  out(): string;
  err(): string;
  exited: Promise<number | null>;
}

/** Spawns `node dist/main.js <args>` in `cwd`. */
export function spawnTroupe(args: string[], cwd: string): TroupeProcess {
  const child = spawn(process.execPath, [BIN, ...args], { cwd });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { process: child, pid: child.pid!, out: () => out, err: () => err, exited };
}

/**
 * Waits (polling, at most `limitMs`) until the child printed a line matching `pattern` on `stream`,
 * and returns the match; fails naming the pattern and the output when it does not come.
 */
export async function printed(
  child: TroupeProcess,
  pattern: RegExp,
  stream: 'out' | 'err' = 'out',
  limitMs = 30_000,
): Promise<RegExpExecArray> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const match = pattern.exec(stream === 'out' ? child.out() : child.err());
    if (match) return match;
    if (child.process.exitCode !== null || child.process.signalCode !== null || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(
    `troupe ${child.process.spawnargs.slice(2).join(' ')} did not print ${pattern} on std${stream} within ${limitMs} ms.\nstdout: ${child.out()}\nstderr: ${child.err()}`,
  );
}

/** Stops a child by its pid: SIGTERM, then SIGKILL if it has not exited within `limitMs`. Resolves with its exit code. */
export async function stopTroupe(child: TroupeProcess, limitMs = 15_000): Promise<number | null> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return child.process.exitCode;
  process.kill(child.pid, 'SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), limitMs);
  try {
    return await child.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Kills a child by its pid at once (SIGKILL), as a crash would, and waits for it to be gone. */
export async function killTroupe(child: TroupeProcess): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  process.kill(child.pid, 'SIGKILL');
  await child.exited;
}

/** Regular-expression source of a literal string. */
export function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
