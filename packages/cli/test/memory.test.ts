import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SqliteMemoryService } from '@troupe/sqlite';
import { tempDir, troupe } from './helpers.js';

const example = fileURLToPath(new URL('../../../examples/memory', import.meta.url));

describe('troupe run: memory', () => {
  it('adds each session to memory in the SQLite file after the turn, so a new session recalls it (offline model)', async () => {
    const cwd = tempDir('troupe-cli-memory-');
    const first = await troupe(cwd, 'run', example, '--input', 'Remember this: my favourite city is Lisbon.');
    expect(first.code).toBe(0);
    expect(first.out).not.toContain('load_memory');

    const memory = new SqliteMemoryService({ path: join(cwd, '.troupe/troupe.db') });
    const { memories } = await memory.searchMemory({ appName: 'memory', userId: 'user', query: 'Lisbon' });
    await memory.close();
    expect(memories.map((m) => m.author)).toEqual(expect.arrayContaining(['user', 'Assistant']));

    // A new session (no --session): its history is empty, so the city can only come from memory.
    const second = await troupe(
      cwd,
      'run',
      example,
      '--input',
      'Check your memory: what is my favourite city?',
      '--json',
    );
    expect(second.code).toBe(0);
    const events = second.out
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            content?: {
              parts: { functionCall?: { name: string }; functionResponse?: { name: string; response: unknown } }[];
            };
          },
      );
    const calls = events.flatMap(
      (e) => e.content?.parts.flatMap((p) => (p.functionCall ? [p.functionCall.name] : [])) ?? [],
    );
    expect(calls).toEqual(['load_memory']);
    const response = events.flatMap(
      (e) => e.content?.parts.flatMap((p) => (p.functionResponse ? [p.functionResponse.response] : [])) ?? [],
    )[0];
    expect(JSON.stringify(response)).toContain('Remember this: my favourite city is Lisbon.');
    // The user of another --user never sees it.
    const stranger = await troupe(
      cwd,
      'run',
      example,
      '--user',
      'stranger',
      '--input',
      'Check your memory: what is my favourite city?',
      '--json',
    );
    expect(stranger.out).not.toContain('Lisbon');
  });

  it('--memory keeps memory in the process: runs work and store nothing on disk', async () => {
    const cwd = tempDir('troupe-cli-memory-');
    const result = await troupe(
      cwd,
      'run',
      example,
      '--memory',
      '--input',
      'Check your memory: what is my favourite city?',
    );
    expect(result.code).toBe(0);
    expect(result.out).toContain('load_memory');
    expect(result.err).not.toContain('Warning');
  });
});
