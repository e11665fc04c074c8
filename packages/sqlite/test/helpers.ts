import { type ChildProcessWithoutNullStreams, type SpawnOptions, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { afterEach } from 'vitest';
import type { SqliteSessionService } from '../src/index.js';

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

/** A store holding a SQLite connection. */
interface Closable {
  close(): Promise<void>;
}

/** Runs `body` with the path of `file` in a new temporary folder (`prefix` names it), then removes the folder. */
export async function withTempFile<T>(prefix: string, file: string, body: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    return await body(join(dir, file));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A contract suite's `openFresh`: opens a service on `file` in a new temporary folder; `close`
 * closes it and removes the folder. `path` reaches {@link reopenOnPath}.
 */
export async function openOnFreshFile<S extends Closable>(
  prefix: string,
  file: string,
  open: (path: string) => S,
): Promise<{ service: S; path: string; close: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const path = join(dir, file);
  const service = open(path);
  return {
    service,
    path,
    close: async () => {
      await service.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A contract suite's `openSecond`: a second service on the first one's file, through its own connection. */
export function reopenOnPath<S extends Closable>(
  open: (path: string) => S,
): (first: { path: string }) => Promise<{ service: S; close: () => Promise<void> }> {
  return async ({ path }) => {
    const service = open(path);
    return { service, close: () => service.close() };
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

/** How to start a worker beyond its script and arguments. */
export interface WorkerOptions {
  /** Run it as this user and group (only root may ask; see {@link unprivileged}). */
  uid?: number;
  gid?: number;
  /** Limit the size of any file it writes, in the blocks of `ulimit -f` (512 or 1024 bytes, by shell). */
  fileSizeBlocks?: number;
}

/** Starts `worker` (a fixture .mjs) with `args`; it imports the built dist, so that must exist. */
export function startWorker(worker: string, args: string[], options: WorkerOptions = {}): WorkerProcess {
  if (!existsSync(builtEntry))
    throw new Error(`The worker imports the built package, and ${builtEntry} is missing. Run npm run build first.`);
  const spawnOptions: SpawnOptions = { stdio: ['pipe', 'pipe', 'pipe'] };
  if (options.uid !== undefined) spawnOptions.uid = options.uid;
  if (options.gid !== undefined) spawnOptions.gid = options.gid;
  const node = options.uid === undefined ? process.execPath : nodeAnyoneMayRun();
  // Node.js ignores SIGXFSZ, so a write past the limit fails with EFBIG instead of killing the worker.
  const child = (
    options.fileSizeBlocks === undefined
      ? spawn(node, [worker, ...args], spawnOptions)
      : spawn(
          '/bin/sh',
          ['-c', `ulimit -f ${options.fileSizeBlocks} && exec "$0" "$@"`, node, worker, ...args],
          spawnOptions,
        )
  ) as ChildProcessWithoutNullStreams;
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
    printed: (line) =>
      new Promise((resolve) => (out.split('\n').includes(line) ? resolve() : waiters.push({ line, resolve }))),
    send: (text) => child.stdin.write(text),
  };
}

let nodeCopy: string | undefined;

/**
 * A path to this Node.js binary that another user may run. Node installed under a home folder
 * (nvm, or CI's pinned Node 22/24 under /root/.cache) sits behind a mode-700 folder, so `nobody`
 * gets EACCES on it; then the binary is copied once into a fresh temporary folder.
 */
function nodeAnyoneMayRun(): string {
  const path = process.execPath;
  const reachable = (dir: string): boolean => {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    const parent = dirname(dir);
    return parent === dir || reachable(parent);
  };
  if ((statSync(path).mode & 0o001) !== 0 && reachable(dirname(path))) return path;
  if (nodeCopy === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-node-'));
    chmodSync(dir, 0o755);
    nodeCopy = join(dir, 'node');
    copyFileSync(path, nodeCopy);
    chmodSync(nodeCopy, 0o755);
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return nodeCopy;
}

/**
 * Spawn options that make a worker an ordinary user, whom file permissions bind. Tests may run as
 * root, whom `chmod 444` does not stop; then the worker runs as `nobody` (65534). Otherwise it
 * already is an ordinary user and needs nothing.
 */
export function unprivileged(): { uid?: number; gid?: number } {
  return process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
}

/**
 * The service's own SQLite connection. Only the fault tests use it, to set `PRAGMA
 * max_page_count`: SQLite then refuses to grow the file with `SQLITE_FULL`, exactly what a full
 * disk gives, without filling a real disk (a size-limited mount needs privileges tests lack).
 */
export function connectionOf(service: SqliteSessionService): Database.Database {
  return (service as unknown as { db: Database.Database }).db;
}
