import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURE = fileURLToPath(new URL('../fixtures/a2a-server.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../../../dist/index.js', import.meta.url));

/** What the fixture server is started with (see fixtures/a2a-server.mjs). */
export interface ServerConfig {
  db: string;
  port: number;
  toolLog: string;
  tokens?: Record<string, string>;
  allowRemoteApprovals?: boolean;
  leaseTtlMs?: number;
  /** Keep sessions in PostgreSQL (this schema) instead of the SQLite file `db`. */
  pg?: { url: string; schema: string };
}

/** A running fixture server: a real `node` process on 127.0.0.1. */
export interface ServerProcess {
  /** Where the app is served, e.g. `http://127.0.0.1:4321/a2a/bank`. */
  baseUrl: string;
  /** The HTTP API's root, e.g. `http://127.0.0.1:4321`. */
  apiUrl: string;
  pid: number;
  /** Kills the process (SIGKILL: no graceful anything) and waits for it to be gone. */
  kill(): Promise<void>;
}

/** Fails with the reason when the packages are not built: the child process imports dist/. */
export function requireBuilt(): void {
  if (!existsSync(BUILT))
    throw new Error(`The A2A server tests run the built packages and ${BUILT} is missing. Run npm run build first.`);
}

/** A scratch directory, and the paths of a store and a tool log in it. */
export function scratch(): { dir: string; db: string; toolLog: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-a2a-'));
  return {
    dir,
    db: join(dir, 'a2a.db'),
    toolLog: join(dir, 'tool.log'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The processes started by one test file, to kill (by pid) after each test. */
export class ServerProcesses {
  private readonly running = new Set<ChildProcessWithoutNullStreams>();

  /** Starts the fixture server and resolves once it listens (at most 20 s). */
  start(config: ServerConfig): Promise<ServerProcess> {
    const child = spawn(process.execPath, [FIXTURE, JSON.stringify(config)], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.running.add(child);
    const kill = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
      this.running.delete(child);
    };
    return new Promise((resolve, reject) => {
      let out = '';
      let err = '';
      const timer = setTimeout(() => {
        void kill();
        reject(new Error(`The A2A fixture server did not start within 20 s: ${err}`));
      }, 20_000);
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening (\S+)/.exec(out);
        if (!match) return;
        clearTimeout(timer);
        resolve({ baseUrl: `${match[1]}/a2a/bank`, apiUrl: match[1]!, pid: child.pid!, kill });
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`The A2A fixture server exited with ${code} before listening: ${err}`));
      });
    });
  }

  /** Kills every process still running. */
  async killAll(): Promise<void> {
    await Promise.all(
      [...this.running].map(async (child) => {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGKILL');
          await exited;
        }
      }),
    );
    this.running.clear();
  }
}
