import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/**
 * Real `node` processes for the queue's multi-process tests: workers (queue-worker.mjs) and API
 * replicas (queue-api.mjs) over one PostgreSQL schema and one private Redis. Every child is ours,
 * killed by pid (a stopped one is continued first so it can die), and every wait is bounded.
 */
export const WORKER = fileURLToPath(new URL('./queue-worker.mjs', import.meta.url));
export const API = fileURLToPath(new URL('./queue-api.mjs', import.meta.url));
const BUILT = [
  fileURLToPath(new URL('../../packages/queue/dist/index.js', import.meta.url)),
  fileURLToPath(new URL('../../packages/server/dist/index.js', import.meta.url)),
  fileURLToPath(new URL('../../packages/postgres/dist/index.js', import.meta.url)),
];

export function requireBuilt(): void {
  for (const file of BUILT) {
    if (!existsSync(file))
      throw new Error(
        `The worker and API processes run the built packages and ${file} is missing. Run npm run build first.`,
      );
  }
}

export interface Child {
  process: ChildProcessWithoutNullStreams;
  pid: number;
  /** What the process printed on its first line after starting (e.g. its URL). */
  banner: string;
  output: () => string;
}

export class Children {
  private readonly all: ChildProcessWithoutNullStreams[] = [];

  /** Spawns `node <script> <json>` and waits (at most 20 s) for its first line starting with `ready` or `listening`. */
  async start(script: string, options: Record<string, unknown>): Promise<Child> {
    const child = spawn(process.execPath, [script, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.all.push(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 20_000;
    for (;;) {
      const line = output.split('\n').find((l) => l.startsWith('ready ') || l.startsWith('listening '));
      if (line)
        return {
          process: child,
          pid: child.pid!,
          banner: line.slice(line.indexOf(' ') + 1).trim(),
          output: () => output,
        };
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`${script} exited before it was ready:\n${output}`);
      if (Date.now() > deadline) throw new Error(`${script} was not ready within 20 s:\n${output}`);
      await sleep(25);
    }
  }

  /** Kills every child still running (SIGCONT first, for a stopped one). */
  killAll(): void {
    for (const child of this.all.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }
    }
  }
}

/** Resolves when the child has exited (at most `limitMs`). */
export async function exited(child: Child, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (child.process.exitCode === null && child.process.signalCode === null) {
    if (Date.now() > deadline)
      throw new Error(`process ${child.pid} did not exit within ${limitMs} ms:\n${child.output()}`);
    await sleep(20);
  }
}

/** Polls `check` every 20 ms until it holds; fails after `limitMs` naming what it waited for. */
export async function until(check: () => boolean | Promise<boolean>, what: string, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${limitMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

/** The steps log the worker script writes: one `<step> <runId> <pid>` line per finished step. */
export class StepLog {
  readonly path = join(
    tmpdir(),
    `troupe-queue-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.log`,
  );

  constructor() {
    writeFileSync(this.path, '');
  }

  lines(runId?: string): { step: string; runId: string; pid: number }[] {
    return readFileSync(this.path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [step, id, pid] = line.split(' ');
        return { step: step!, runId: id!, pid: Number(pid) };
      })
      .filter((l) => runId === undefined || l.runId === runId);
  }
}
