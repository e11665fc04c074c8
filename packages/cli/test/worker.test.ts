import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Event } from '@troupe/core';
import { Redis } from 'ioredis';
import { describeRedis, useRedis } from '../../queue/test/redis-server.js';
import { ExitCode, runCli } from '../src/index.js';
import { fakeIo } from './helpers.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const bin = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const apps = fileURLToPath(new URL('./fixtures/worker-apps', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'troupe-worker-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs a command in process that fails (or prints) before doing anything lasting. */
async function troupe(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = fakeIo(scratch);
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('troupe worker and --redis: arguments', () => {
  it('refuses to start without --redis, naming the flag and giving an example', async () => {
    const result = await troupe('worker', apps);
    expect(result.code).toBe(ExitCode.usage);
    expect(result.err).toBe(
      "troupe: 'troupe worker' needs --redis <url>: the Redis through which the API hands it runs, the same as 'troupe api --redis' was given, e.g. --redis redis://127.0.0.1:6379.\n",
    );
  });

  it.each([
    [
      ['worker', apps, '--redis', 'redis://127.0.0.1:1', '--memory'],
      /cannot keep sessions in memory \(--memory\).*--db <path>.*--pg <url>/,
    ],
    [['api', apps, '--redis', 'redis://127.0.0.1:1', '--memory'], /troupe api --redis cannot keep sessions in memory/],
    [
      ['worker', apps, '--redis', '127.0.0.1:6379'],
      /--redis "127.0.0.1:6379" is not a Redis URL; give one such as --redis redis:\/\/127.0.0.1:6379/,
    ],
    [['api', apps, '--redis', 'localhost'], /--redis "localhost" is not a Redis URL/],
    [
      ['worker', apps, '--redis', 'redis://127.0.0.1:1', '--concurrency', '0'],
      /--concurrency "0" is not valid; give a whole number of runs at once/,
    ],
    [
      ['worker', apps, '--redis', 'redis://127.0.0.1:1', '--lock-duration', '500'],
      /--lock-duration "500" is not valid; give a whole number of milliseconds, at least 1000/,
    ],
    [
      ['worker', apps, '--redis', 'redis://127.0.0.1:1', '--stream-ttl', '10'],
      /--stream-ttl "10" is not valid; give a whole number of milliseconds, at least 1000/,
    ],
    [
      ['worker', apps, '--redis', 'redis://127.0.0.1:1', '--db', 'a.db', '--pg', 'postgres://x'],
      /--db and --pg both choose where sessions live/,
    ],
    [['worker', '--redis', 'redis://127.0.0.1:1'], /'troupe worker' takes one agents directory .* got none/],
    [['worker', join(scratch, 'missing'), '--redis', 'redis://127.0.0.1:1'], /is not a directory or an agent file/],
  ])('troupe %j is a usage error', async (argv, message) => {
    const result = await troupe(...argv);
    expect(result.code).toBe(ExitCode.usage);
    expect(result.err).toMatch(message);
  });

  it('prints its usage, and the main usage lists it', async () => {
    const help = await troupe('worker', '--help');
    expect(help.code).toBe(ExitCode.ok);
    for (const flag of [
      '--redis',
      '--pg',
      '--db',
      '--concurrency',
      '--lock-duration',
      '--grace-period',
      '--stream-ttl',
      '--model',
    ])
      expect(help.out).toContain(flag);
    expect((await troupe('help', 'worker')).out).toBe(help.out);
    expect((await troupe('--help')).out).toContain('worker <agents dir>');
    expect((await troupe('api', '--help')).out).toContain('--redis <url>');
  });

  it('fails at once with the fix when Redis does not answer, for the worker and the API', async () => {
    // Port 1 refuses connections.
    for (const command of ['worker', 'api']) {
      const result = await troupe(
        command,
        apps,
        '--redis',
        'redis://127.0.0.1:1',
        '--db',
        join(scratch, 'unreachable.db'),
        ...(command === 'api' ? ['--port', '0'] : []),
      );
      expect(result.code).toBe(ExitCode.usage);
      expect(result.err).toMatch(
        /Redis at redis:\/\/127\.0\.0\.1:1 did not answer \(.*ECONNREFUSED.*\)\. Check that it runs and that --redis names it/,
      );
    }
  });
});

/** A `troupe` child process of the built bin, with its output so far. */
interface Child {
  process: ChildProcessWithoutNullStreams;
  out(): string;
  err(): string;
  exited: Promise<number | null>;
}

function spawnTroupe(args: string[]): Child {
  const child = spawn(process.execPath, [bin, ...args], { cwd: scratch });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { process: child, out: () => out, err: () => err, exited };
}

/** Waits (at most 20 s) until the child printed a line matching `pattern`. */
async function printed(child: Child, pattern: RegExp): Promise<RegExpExecArray> {
  for (let waited = 0; waited < 20_000; waited += 25) {
    const match = pattern.exec(child.out());
    if (match) return match;
    if (child.process.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(
    `troupe ${child.process.spawnargs.slice(2).join(' ')} did not print ${pattern}: ${child.out()} ${child.err()}`,
  );
}

/** Stops a child by its pid: SIGTERM, then SIGKILL if it has not exited within 10 s. */
async function stop(child: Child): Promise<number | null> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return child.process.exitCode;
  process.kill(child.process.pid!, 'SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), 10_000);
  try {
    return await child.exited;
  } finally {
    clearTimeout(timer);
  }
}

describeRedis('troupe api --redis and troupe worker (built bin, real processes)', () => {
  const redis = useRedis();
  beforeAll(async () => {
    // `npm test` builds first; build here only when running this file on a fresh checkout.
    if (existsSync(bin) && existsSync(fileURLToPath(new URL('../../queue/dist/index.js', import.meta.url)))) return;
    await promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], {
      cwd: repo,
    });
  }, 120_000);

  it('the API hands one turn to the worker over Redis, both sharing .troupe/troupe.db; SIGTERM stops both cleanly', async () => {
    const api = spawnTroupe(['api', apps, '--redis', redis().url, '--port', '0']);
    const worker = spawnTroupe([
      'worker',
      apps,
      '--redis',
      redis().url,
      '--grace-period',
      '1000',
      '--stream-ttl',
      '5000',
    ]);
    try {
      const [, url] = await printed(api, /Troupe API: (http:\/\/[^/\s]+)/);
      await printed(api, /Runs: on workers, through Redis at redis:\/\/127\.0\.0\.1:\d+/);
      await printed(
        worker,
        /Troupe worker ready: apps shout from \S+; runs from redis:\/\/127\.0\.0\.1:\d+; sessions: SQLite .*troupe\.db; concurrency 10\./,
      );

      const session = (await (await fetch(`${url}/apps/shout/users/u/sessions`, { method: 'POST' })).json()) as {
        id: string;
      };
      const res = await fetch(`${url}/run`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          appName: 'shout',
          userId: 'u',
          sessionId: session.id,
          newMessage: { role: 'user', parts: [{ text: 'hello' }] },
        }),
      });
      expect(res.status).toBe(200);
      const events = (await res.json()) as Event[];
      expect(events.at(-1)!.content!.parts).toEqual([{ text: `HELLO (pid ${worker.process.pid})` }]);
      // The run's live stream stays --stream-ttl after the run ended (10 minutes without it).
      const admin = new Redis(redis().url);
      try {
        const [stream] = await admin.keys('*:run:*:events');
        const ttl = await admin.pttl(stream!);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(5_000);
      } finally {
        admin.disconnect();
      }

      expect(await stop(worker)).toBe(0);
      expect(worker.err()).toContain('Stopping: runs in progress get up to 1000 ms to finish');
      expect(await stop(api)).toBe(0);
    } finally {
      await Promise.all([stop(api), stop(worker)]);
    }
  }, 60_000);
});
