import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteSessionService } from '@troupe/sqlite';
import { scriptedServer } from './helpers.js';
import { gate, twoHalves } from './scripted-executor.js';

const run = promisify(execFile);
const caller = fileURLToPath(new URL('./fixtures/caller.ts', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Starts the caller's `run` and kills it (SIGKILL) once it printed its first streamed chunk. */
async function runAndKillMidStream(db: string, sessionId: string, url: string): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', caller, 'run', db, sessionId, url], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const firstChunk = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`The caller streamed nothing within 30 s. stderr: ${stderr}`)),
      30_000,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      const line = chunk
        .toString()
        .split('\n')
        .find((l) => l.startsWith('PARTIAL '));
      if (!line) return;
      clearTimeout(timer);
      resolve(JSON.parse(line.slice('PARTIAL '.length)) as string);
    });
    child.on('exit', (code) => reject(new Error(`The caller exited (${code}) before streaming. stderr: ${stderr}`)));
  });
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  return firstChunk;
}

describe('a caller that crashes mid-stream', () => {
  it(
    'is resumed in a new process: the same remote task is followed, nothing is sent again, the answer is stored once',
    { timeout: 60_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'troupe-remote-crash-'));
      dirs.push(dir);
      const db = join(dir, 'app.db');
      const release = gate();
      const server = await scriptedServer(twoHalves(release.promise));
      const store = new SqliteSessionService({ path: db });
      const session = await store.createSession({ appName: 'app', userId: 'u' });
      await store.close();

      expect(await runAndKillMidStream(db, session.id, server.url)).toBe('First half, ');
      // The remote finishes its task while no caller is there.
      release.open();

      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', caller, 'resume', db, session.id, server.url],
        { timeout: 30_000 },
      );
      const resumed = JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; output: unknown; pid: number };
      expect(resumed).toMatchObject({ status: 'completed', output: 'First half, second half.' });

      expect(server.executor.received).toHaveLength(1);
      expect(server.requests.filter((r) => r.method === 'SendStreamingMessage')).toHaveLength(1);
      const reread = new SqliteSessionService({ path: db });
      const events = (await reread.getSession({ appName: 'app', userId: 'u', sessionId: session.id }))!.events;
      await reread.close();
      const answers = events.filter((e) => e.author === 'Writer' && e.content);
      expect(answers.map((e) => e.output)).toEqual(['First half, second half.']);
      expect(
        events
          .filter((e) => e.author === 'Writer')
          .map((e) => (e.actions.agentState?.remoteTask as { state: string }).state),
      ).toEqual(['working', 'completed']);

      // A further resume of the finished invocation stores nothing more.
      const again = await run(process.execPath, ['--import', 'tsx', caller, 'resume', db, session.id, server.url], {
        timeout: 30_000,
      });
      expect(JSON.parse(again.stdout.trim().split('\n').at(-1)!)).toMatchObject({ status: 'completed' });
      const final = new SqliteSessionService({ path: db });
      expect(
        (await final.getSession({ appName: 'app', userId: 'u', sessionId: session.id }))!.events.filter(
          (e) => e.author === 'Writer' && e.content,
        ),
      ).toHaveLength(1);
      await final.close();
      expect(server.executor.received).toHaveLength(1);
    },
  );
});
