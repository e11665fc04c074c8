import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

/** A fresh folder per test, removed after it; returns a database path inside it. */
export function useTempDb(): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-sqlite-'));
    dirs.push(dir);
    return join(dir, 'sessions.db');
  };
}

/** A `node` child process running a test worker script against the built package. */
export interface WorkerProcess {
  child: ChildProcessWithoutNullStreams;
  /** Resolves with the worker's last stdout line, parsed as JSON; rejects when it exits non-zero. */
  result: Promise<unknown>;
  /** Resolves when the worker printed `line`. */
  printed(line: string): Promise<void>;
  send(text: string): void;
}

const builtEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** Starts `worker` (a fixture .mjs) with `args`; it imports the built dist, so that must exist. */
export function startWorker(worker: string, args: string[]): WorkerProcess {
  if (!existsSync(builtEntry)) throw new Error(`The worker imports the built package, and ${builtEntry} is missing. Run npm run build first.`);
  const child = spawn(process.execPath, [worker, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters: { line: string; resolve: () => void }[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const w of waiters.splice(0)) {
      if (out.split('\n').includes(w.line)) w.resolve();
      else waiters.push(w);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const result = new Promise<unknown>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code !== 0) return reject(new Error(`worker ended with ${signal ?? code}: ${err}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)!));
    });
  });
  return {
    child,
    result,
    printed: (line) => new Promise((resolve) => (out.split('\n').includes(line) ? resolve() : waiters.push({ line, resolve }))),
    send: (text) => child.stdin.write(text),
  };
}
