import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ConfigurationError, FileArtifactService } from '@troupe/core';
import { expect, it } from 'vitest';
import { artifactServiceContract } from '@troupe/core/testing/contracts';

async function openFresh(options: { maxArtifactBytes?: number }) {
  // The store's folder sits one level inside a parent we own, so an escape would land in `parent`.
  const parent = await mkdtemp(join(tmpdir(), 'troupe-artifacts-'));
  const dir = join(parent, 'store');
  const service = new FileArtifactService({ dir, ...options });
  return { service, dir, parent, close: () => rm(parent, { recursive: true, force: true }) };
}

artifactServiceContract('FileArtifactService', openFresh, {
  openSecond: async ({ dir }) => ({ service: new FileArtifactService({ dir }) }),
  extra: (get) => {
    it('keeps every file inside dir, whatever the names (../, absolute paths, backslashes)', async () => {
      const { fixture, scope } = get();
      const { service } = fixture;
      const hostile = { appName: '../../app', userId: '/etc', sessionId: '..' };
      for (const filename of [
        '../../../escaped.txt',
        '/tmp/absolute.txt',
        '..\\..\\win.txt',
        'user:../../up.txt',
        '.',
      ]) {
        await service.saveArtifact({ ...scope, filename, artifact: { text: 'x' } });
        await service.saveArtifact({ ...hostile, filename, artifact: { text: 'y' } });
      }
      expect(await readdir(fixture.parent)).toEqual(['store']);
      for (const path of await walk(fixture.dir)) expect(relative(fixture.dir, path).startsWith('..')).toBe(false);
      expect(await service.listArtifactKeys(hostile)).toEqual([
        '.',
        '../../../escaped.txt',
        '..\\..\\win.txt',
        '/tmp/absolute.txt',
        'user:../../up.txt',
      ]);
      await expect(stat(join(fixture.parent, 'escaped.txt'))).rejects.toThrow(/ENOENT/);
    });
  },
});

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    out.push(path);
    if (entry.isDirectory()) out.push(...(await walk(path)));
  }
  return out;
}

it('FileArtifactService needs a dir', () => {
  expect(() => new FileArtifactService({ dir: '' })).toThrow(ConfigurationError);
  expect(() => new FileArtifactService({ dir: '' })).toThrow(/option 'dir' must be a non-empty folder path/);
});
