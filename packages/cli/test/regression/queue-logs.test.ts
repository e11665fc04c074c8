import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeRedis, useRedis } from '../../../queue/test/redis-server.js';
import { ExitCode, runCli } from '../../src/index.js';
import { BIN, killTroupe, literal, printed, spawnTroupe, stopTroupe, type TroupeProcess } from '../cli-process.js';
import { fakeIo } from '../helpers.js';

// Issue #28, item 9: `troupe worker` logged no run, takeover or drain although docs/cli.md says runs
// on workers are logged there, and `troupe api --redis` with no worker left `/run` waiting with
// nothing said. Now the worker logs one line when it starts a run (or takes one over from a worker
// that stopped), one when it ends or drains it; the API says at startup that no worker is seen, logs
// a queued run no worker has taken after --warn-untaken-after, and /health counts the workers seen.
// Real processes of the built bin, a private redis-server and a shared SQLite file.

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const apps = fileURLToPath(new URL('../fixtures/queue-log-apps', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'troupe-queue-logs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const started: TroupeProcess[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((child) => stopTroupe(child)));
});

function troupe(...args: string[]): TroupeProcess {
  const child = spawnTroupe(args, scratch);
  started.push(child);
  return child;
}

async function json(url: string, init?: RequestInit): Promise<[number, unknown]> {
  const res = await fetch(url, init);
  return [res.status, await res.json()];
}

async function enqueue(api: string, sessionId: string, text: string): Promise<string> {
  const [status, body] = await json(`${api}/apps/nap/users/u/sessions/${sessionId}/runs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ newMessage: { role: 'user', parts: [{ text }] } }),
  });
  expect(status).toBe(202);
  return (body as { runId: string }).runId;
}

async function newSession(api: string): Promise<string> {
  const [status, body] = await json(`${api}/apps/nap/users/u/sessions`, { method: 'POST' });
  expect(status).toBe(200);
  return (body as { id: string }).id;
}

describe('--warn-untaken-after', () => {
  it.each([
    [
      ['api', apps, '--warn-untaken-after', '5000'],
      /--warn-untaken-after is about runs queued for workers: it needs --redis <url>/,
    ],
    [
      ['api', apps, '--redis', 'redis://127.0.0.1:1', '--warn-untaken-after', 'soon'],
      /--warn-untaken-after "soon" is not valid; give a whole number of milliseconds, e\.g\. --warn-untaken-after 10000 \(0: never\)/,
    ],
  ])('troupe %j is a usage error', async (argv, message) => {
    const io = fakeIo(scratch);
    expect(await runCli(argv, io)).toBe(ExitCode.usage);
    expect(io.err()).toMatch(message);
  });

  it('is in the usage of troupe api', async () => {
    const io = fakeIo(scratch);
    await runCli(['api', '--help'], io);
    expect(io.out()).toContain('--warn-untaken-after <ms>');
  });
});

describeRedis('troupe api --redis and troupe worker say what happens to runs', () => {
  const redis = useRedis();
  beforeAll(async () => {
    // `npm test` builds first; build here only when running this file on a fresh checkout.
    if (existsSync(BIN) && existsSync(fileURLToPath(new URL('../../../queue/dist/index.js', import.meta.url)))) return;
    await promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], {
      cwd: repo,
    });
  }, 180_000);

  it('the API says no worker is seen and logs a run none has taken; the worker that comes logs its start and end', async () => {
    const db = join(scratch, 'untaken.db');
    const api = troupe('api', apps, '--redis', redis().url, '--db', db, '--port', '0', '--warn-untaken-after', '300');
    const [, url] = await printed(api, /Troupe API: (http:\/\/[^/\s]+)/);
    await printed(
      api,
      /Warning: no worker has been seen on Redis at redis:\/\/127\.0\.0\.1:\d+: runs wait in the queue until one starts \('troupe worker \S+ --redis <url>', with the same session store\)\./,
      'err',
    );
    expect(await json(`${url}/health`)).toEqual([
      200,
      { status: 'ok', store: 'ok', queue: { redis: 'ok', workers: 0 } },
    ]);

    const sessionId = await newSession(url!);
    const runId = await enqueue(url!, sessionId, 'nap 0');
    await printed(
      api,
      new RegExp(
        literal(
          `run nap session ${sessionId} user u not taken by a worker after 300ms (run ${runId}; no worker seen): start one with 'troupe worker`,
        ),
      ),
      'err',
    );

    const worker = troupe('worker', apps, '--redis', redis().url, '--db', db);
    await printed(
      worker,
      new RegExp(literal(`run nap session ${sessionId} user u started (run ${runId}, attempt 1)`)),
      'err',
    );
    await printed(
      worker,
      new RegExp(`${literal(`run nap session ${sessionId} user u completed `)}\\d+ms ${literal(`(run ${runId})`)}`),
      'err',
    );
    expect(await json(`${url}/health`)).toEqual([
      200,
      { status: 'ok', store: 'ok', queue: { redis: 'ok', workers: 1 } },
    ]);
    // One line per waiting run, not one per look.
    expect(api.err().match(/not taken by a worker/g)).toHaveLength(1);
    expect(await stopTroupe(worker)).toBe(0);
    expect(await stopTroupe(api)).toBe(0);
  }, 120_000);

  it('a worker logs the run it takes over from a worker that was killed, and the run it drains when stopped', async () => {
    const db = join(scratch, 'takeover.db');
    const api = troupe('api', apps, '--redis', redis().url, '--db', db, '--port', '0');
    const [, url] = await printed(api, /Troupe API: (http:\/\/[^/\s]+)/);
    const workerArgs = ['worker', apps, '--redis', redis().url, '--db', db, '--lock-duration', '2000'];
    const workers = [troupe(...workerArgs, '--grace-period', '300'), troupe(...workerArgs, '--grace-period', '300')];
    for (const worker of workers) await printed(worker, /Troupe worker ready: apps nap/);

    const sessionId = await newSession(url!);
    const runId = await enqueue(url!, sessionId, 'nap 60000');
    const startedLine = new RegExp(literal(`run nap session ${sessionId} user u started (run ${runId}, attempt 1)`));
    let holder: TroupeProcess | undefined;
    const deadline = Date.now() + 30_000;
    while (!holder && Date.now() < deadline) {
      holder = workers.find((worker) => startedLine.test(worker.err()));
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(holder, 'a worker to log that it started the run').toBeDefined();
    const other = workers.find((worker) => worker !== holder)!;

    await killTroupe(holder!);
    await printed(
      other,
      new RegExp(
        literal(
          `run nap session ${sessionId} user u taken over (run ${runId}, attempt 2): the worker that held it stopped`,
        ),
      ),
      'err',
    );

    expect(await stopTroupe(other)).toBe(0);
    expect(other.err()).toMatch(
      new RegExp(
        `${literal(`run nap session ${sessionId} user u drained after `)}\\d+ms: ${literal(`back on the queue for another worker (run ${runId})`)}`,
      ),
    );
    const [, run] = await json(`${url}/apps/nap/users/u/sessions/${sessionId}/runs/${runId}`);
    expect(run).toMatchObject({ status: 'pending' });
  }, 120_000);
});
