import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteMemoryService } from '@troupe/sqlite';
import { runCli } from '../src/index.js';
import { fakeIo } from './helpers.js';

const example = fileURLToPath(new URL('../../../examples/memory', import.meta.url));

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function troupe(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = fakeIo(cwd);
  io.stdin.end();
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('troupe run: memory', () => {
  it('adds each session to memory in the SQLite file after the turn, so a new session recalls it (offline model)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'troupe-cli-memory-'));
    dirs.push(cwd);
    const first = await troupe(cwd, 'run', example, '--input', 'Remember this: my favourite city is Lisbon.');
    expect(first.code).toBe(0);
    expect(first.out).not.toContain('load_memory');

    const memory = new SqliteMemoryService({ path: join(cwd, '.troupe/troupe.db') });
    const { memories } = await memory.searchMemory({ appName: 'memory', userId: 'user', query: 'Lisbon' });
    await memory.close();
    expect(memories.map((m) => m.author)).toEqual(expect.arrayContaining(['user', 'Assistant']));

    // A new session (no --session): its history is empty, so the city can only come from memory.
    const second = await troupe(cwd, 'run', example, '--input', 'Check your memory: what is my favourite city?', '--json');
    expect(second.code).toBe(0);
    const events = second.out.trim().split('\n').map((line) => JSON.parse(line) as { content?: { parts: { functionCall?: { name: string }; functionResponse?: { name: string; response: unknown } }[] } });
    const calls = events.flatMap((e) => e.content?.parts.flatMap((p) => (p.functionCall ? [p.functionCall.name] : [])) ?? []);
    expect(calls).toEqual(['load_memory']);
    const response = events.flatMap((e) => e.content?.parts.flatMap((p) => (p.functionResponse ? [p.functionResponse.response] : [])) ?? [])[0];
    expect(JSON.stringify(response)).toContain('Remember this: my favourite city is Lisbon.');
    // The user of another --user never sees it.
    const stranger = await troupe(cwd, 'run', example, '--user', 'stranger', '--input', 'Check your memory: what is my favourite city?', '--json');
    expect(stranger.out).not.toContain('Lisbon');
  });

  it('--memory keeps memory in the process: runs work and store nothing on disk', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'troupe-cli-memory-'));
    dirs.push(cwd);
    const result = await troupe(cwd, 'run', example, '--memory', '--input', 'Check your memory: what is my favourite city?');
    expect(result.code).toBe(0);
    expect(result.out).toContain('load_memory');
    expect(result.err).not.toContain('Warning');
  });
});
