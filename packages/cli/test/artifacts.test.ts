import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SqliteArtifactService } from '@troupe/sqlite';
import { tempDir, troupe } from './helpers.js';

const notebook = fileURLToPath(new URL('./fixtures/notebook.ts', import.meta.url));

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
});
