import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Event } from '@troupe/core';
import { SqliteSessionService } from '@troupe/sqlite';
import { ExitCode, runCli } from '../src/index.js';
import { fakeIo } from './helpers.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const bin = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const recall = fileURLToPath(new URL('./fixtures/recall.ts', import.meta.url));

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
/** A fresh working directory for one test. */
function tempCwd(): string {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-cli-sessions-'));
  dirs.push(dir);
  return dir;
}

/** `troupe` in process, in `cwd`. */
async function troupe(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = fakeIo(cwd);
  io.stdin.end();
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
}

/** The built `troupe` bin as a child process, in `cwd`. */
function troupeProcess(cwd: string, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end();
  });
}

async function storedEvents(path: string, sessionId: string): Promise<Event[]> {
  const service = new SqliteSessionService({ path });
  try {
    return (await service.getSession({ appName: 'recall', userId: 'user', sessionId }))?.events ?? [];
  } finally {
    await service.close();
  }
}

const sessionIdIn = (stderr: string): string => /^session: (\S+)$/m.exec(stderr)![1]!;

describe('troupe run sessions', () => {
  it('keeps sessions in .troupe/troupe.db under the current directory and prints the new session id', async () => {
    const cwd = tempCwd();
    const first = await troupe(cwd, 'run', recall, '--input', 'first');
    expect(first.code).toBe(ExitCode.ok);
    expect(first.out).toBe('Recall: heard so far: first\n');
    const db = join(cwd, '.troupe', 'troupe.db');
    expect(existsSync(db)).toBe(true);
    const sessionId = sessionIdIn(first.err);

    const second = await troupe(cwd, 'run', recall, '--session', sessionId, '--input', 'second');
    expect(second.out).toBe('Recall: heard so far: first | second\n');
    // A session named on the command line is not announced again.
    expect(second.err).not.toContain('session:');
    expect((await storedEvents(db, sessionId)).filter((e) => e.author === 'user')).toHaveLength(2);
  });

  it('--session with a new id creates that session', async () => {
    const cwd = tempCwd();
    const result = await troupe(cwd, 'run', recall, '--session', 'my-notes', '--input', 'hello');
    expect(result.code).toBe(ExitCode.ok);
    expect(await storedEvents(join(cwd, '.troupe', 'troupe.db'), 'my-notes')).toHaveLength(2);
  });

  it('--db chooses the file, relative to the current directory, and creates its folder', async () => {
    const cwd = tempCwd();
    const first = await troupe(cwd, 'run', recall, '--db', 'state/chat.db', '--input', 'one');
    const sessionId = sessionIdIn(first.err);
    const db = join(cwd, 'state', 'chat.db');
    expect(existsSync(db)).toBe(true);
    expect(existsSync(join(cwd, '.troupe'))).toBe(false);
    const second = await troupe(cwd, 'run', recall, '--db', db, '--session', sessionId, '--input', 'two');
    expect(second.out).toBe('Recall: heard so far: one | two\n');
  });

  it('--memory writes nothing and forgets the session when the command ends', async () => {
    const cwd = tempCwd();
    const first = await troupe(cwd, 'run', recall, '--memory', '--session', 's', '--input', 'one');
    expect(first.code).toBe(ExitCode.ok);
    expect(first.err).not.toContain('session:');
    const second = await troupe(cwd, 'run', recall, '--memory', '--session', 's', '--input', 'two');
    expect(second.out).toBe('Recall: heard so far: two\n');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('a chat continued with --session sees the earlier turns', async () => {
    const cwd = tempCwd();
    await troupe(cwd, 'run', recall, '--session', 'c', '--input', 'before');
    const io = fakeIo(cwd);
    io.stdin.end('after\n');
    expect(await runCli(['run', recall, '--session', 'c'], io)).toBe(ExitCode.ok);
    expect(io.out()).toBe('Recall: heard so far: before | after\n');
  });
});

describe('troupe run sessions across processes (built bin)', () => {
  beforeAll(async () => {
    if (existsSync(bin) && existsSync(fileURLToPath(new URL('../../sqlite/dist/index.js', import.meta.url)))) return;
    await promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], {
      cwd: repo,
    });
  }, 120_000);

  it('a second process continues the session of the first from .troupe/troupe.db', async () => {
    const cwd = tempCwd();
    const first = await troupeProcess(cwd, ['run', recall, '--input', 'first turn', '--json']);
    expect(first.code).toBe(0);
    const sessionId = sessionIdIn(first.err);
    const [, firstEvent] = first.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Event);
    expect(firstEvent!.output).toBe('heard so far: first turn');

    const second = await troupeProcess(cwd, [
      'run',
      recall,
      '--session',
      sessionId,
      '--input',
      'second turn',
      '--json',
    ]);
    expect(second.code).toBe(0);
    const events = second.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Event);
    expect(events.map((e) => e.output)).toEqual([undefined, 'heard so far: first turn | second turn']);

    const stored = await storedEvents(join(cwd, '.troupe', 'troupe.db'), sessionId);
    expect(stored.map((e) => e.author)).toEqual(['user', 'Recall', 'user', 'Recall']);
    expect(stored[1]!.id).toBe(firstEvent!.id);
    expect(stored[2]!.id).toBe(events[0]!.id);
    expect(stored[3]!.id).toBe(events[1]!.id);
  });
});
