import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SqliteArtifactService } from '@troupe/sqlite';
import { tempDir, troupe } from './helpers.js';

const notebook = fileURLToPath(new URL('./fixtures/notebook.ts', import.meta.url));
const uploadReader = fileURLToPath(new URL('./fixtures/upload-reader.ts', import.meta.url));

describe('troupe run: artifacts', () => {
  it('keeps artifacts in the SQLite file of the sessions, across runs of one session', async () => {
    const cwd = tempDir('troupe-cli-artifacts-');
    const first = await troupe(cwd, 'run', notebook, '--session', 'n1', '--input', 'buy milk');
    // The session did not exist: the CLI says it starts a new one rather than creating it silently.
    expect(first.err).toMatch(/^troupe: new session n1: app 'notebook' has no session 'n1' for user 'user'/);
    expect(first.out).toContain('saved notes.txt version 0; artifacts: notes.txt');
    const second = await troupe(cwd, 'run', notebook, '--session', 'n1', '--input', 'buy bread');
    expect(second.out).toContain('saved notes.txt version 1');
    expect(second.err).toBe('');

    const artifacts = new SqliteArtifactService({ path: join(cwd, '.troupe/troupe.db') });
    const key = { appName: 'notebook', userId: 'user', sessionId: 'n1', filename: 'notes.txt' };
    expect(await artifacts.listVersions(key)).toEqual([0, 1]);
    expect(await artifacts.loadArtifact({ ...key, version: 0 })).toEqual({ text: 'buy milk' });
    expect(await artifacts.loadArtifact(key)).toEqual({ text: 'buy bread' });
    await artifacts.close();
  });

  it('keeps them in memory with --memory', async () => {
    const cwd = tempDir('troupe-cli-artifacts-');
    const result = await troupe(cwd, 'run', notebook, '--memory', '--input', 'scratch');
    expect(result.out).toContain('saved notes.txt version 0');
  });

  it('--attach sends files with the message: saved as artifacts by name, the stored message keeps a reference', async () => {
    const cwd = tempDir('troupe-cli-attach-');
    mkdirSync(join(cwd, 'data'));
    writeFileSync(join(cwd, 'data/sales.csv'), 'region,units\nNorth,120\n');
    writeFileSync(join(cwd, 'notes.md'), '# Q3');
    const result = await troupe(
      cwd,
      'run',
      uploadReader,
      '--attach',
      'data/sales.csv',
      '--attach',
      'notes.md',
      '--input',
      'Summarise these',
    );
    expect(result.code).toBe(0);
    expect(result.out).toContain(
      'message: Summarise these[Uploaded file "sales.csv" (text/csv), saved as artifact "sales.csv" version 0][Uploaded file "notes.md" (text/markdown), saved as artifact "notes.md" version 0]',
    );
    expect(result.out).toContain('notes.md (text/markdown): # Q3');
    expect(result.out).toContain('sales.csv (text/csv): region,units');
  });

  it('--attach: a missing file, or no message to send it with, is a usage error naming it', async () => {
    const cwd = tempDir('troupe-cli-attach-');
    const missing = await troupe(cwd, 'run', uploadReader, '--attach', 'nope.csv', '--input', 'Read it');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(`--attach nope.csv: no such file (looked at ${join(cwd, 'nope.csv')})`);
    const alone = await troupe(cwd, 'run', uploadReader, '--attach', 'nope.csv');
    expect(alone.code).toBe(2);
    expect(alone.err).toContain(
      '--attach sends files with a one-shot text message, and there is none. Give the message with --input',
    );
  });
});
