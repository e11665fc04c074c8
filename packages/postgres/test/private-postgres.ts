import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { requirePostgres } from './pg-test-env.js';

/**
 * A PostgreSQL server of the test's own, in a temporary directory on a free loopback port, for
 * faults that would disturb everyone else on the shared server (stopping it mid-load). It is started
 * with fsync off (its data is thrown away) and stopped with `pg_ctl stop -m immediate`, as a crash
 * or a killed container would stop it. PostgreSQL refuses to run as root: under root the binaries
 * run as the `postgres` OS user (`runuser`), in a directory that user owns.
 */
export interface PrivatePostgres {
  /** Connection string for the `postgres` database, as the `postgres` role (trust authentication). */
  url: string;
  port: number;
  /** Stops the server at once, without a checkpoint (`-m immediate`). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data (crash recovery runs). */
  start(): Promise<void>;
  /** Stops it if it runs and removes its directory. Safe to call twice. */
  destroy(): Promise<void>;
}

/** Where the server binaries are: `TROUPE_TEST_PG_BIN`, or the newest /usr/lib/postgresql/<major>/bin. */
export function postgresBinaries(): string {
  const fromEnv = process.env.TROUPE_TEST_PG_BIN;
  if (fromEnv) return fromEnv;
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root).filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'initdb')))
    : [];
  majors.sort((a, b) => Number(b) - Number(a));
  if (majors.length === 0) {
    throw new Error(
      `No PostgreSQL server binaries (initdb, pg_ctl) found under ${root}. Install the server package (apt-get install postgresql), or set TROUPE_TEST_PG_BIN to the directory holding initdb and pg_ctl.`,
    );
  }
  return join(root, majors[0]!, 'bin');
}

/**
 * A private server for the tests of one file: started before them (after checking the shared
 * server's settings, as every PostgreSQL suite does), destroyed after them. Call it inside the
 * file's describe; the returned function gives the server.
 */
export function usePrivatePostgres(): () => PrivatePostgres {
  let server: PrivatePostgres | undefined;
  beforeAll(async () => {
    await requirePostgres();
    server = await startPrivatePostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.destroy();
  }, 30_000);
  return () => {
    if (!server)
      throw new Error('The private PostgreSQL server is not running: usePrivatePostgres() starts it in beforeAll.');
    return server;
  };
}

/** Creates, starts and returns a private server. Every step has a time limit. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinaries();
  const asRoot = process.getuid?.() === 0;
  const dir = await mkdtemp(join(tmpdir(), 'troupe-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const exec = (tool: string, args: string[], timeoutMs: number) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], timeoutMs, dir)
      : run(join(bin, tool), args, timeoutMs, dir);
  let port = 0;
  let running = false;
  let destroyed = false;
  const pgCtl = (args: string[]) => exec('pg_ctl', ['-D', data, '-w', '-t', '10', ...args], 15_000);
  const start = async (): Promise<void> => {
    // -k: the Unix socket goes in our directory, not /var/run/postgresql (which may not be writable).
    // fsync=off only skips flushing to disk; an immediate stop kills processes, not the machine, so
    // every acknowledged commit survives. (synchronous_commit=off would lose some: not here.)
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
    await pgCtl(['-l', log, '-o', options, 'start']).catch(async (error: unknown) => {
      throw new Error(
        `pg_ctl start failed: ${String(error)}\n${await readFile(log, 'utf8').catch(() => '(no server log)')}`,
      );
    });
    running = true;
  };
  try {
    if (asRoot) {
      const uid = Number(await run('id', ['-u', 'postgres'], 5000));
      const gid = Number(await run('id', ['-g', 'postgres'], 5000));
      await chown(dir, uid, gid);
    }
    await exec(
      'initdb',
      ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'],
      60_000,
    );
    // A free port can be taken between looking and binding; a second try gets another one.
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        await start();
        break;
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop: async () => {
      await pgCtl(['-m', 'immediate', 'stop']);
      running = false;
    },
    destroy: async () => {
      if (destroyed) return;
      destroyed = true;
      try {
        if (running) await pgCtl(['-m', 'immediate', 'stop']);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Runs a program with a time limit; resolves with its trimmed stdout. `cwd` must be readable by the postgres user. */
function run(file: string, args: string[], timeoutMs: number, cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs, killSignal: 'SIGKILL', cwd }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')} failed: ${error.message}${stderr ? `\n${stderr}` : ''}`));
      else resolve(stdout.trim());
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
