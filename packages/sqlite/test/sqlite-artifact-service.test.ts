import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { artifactServiceContract } from '../../../test/contracts/artifact-service.contract.js';
import { SqliteArtifactService, SqliteSessionService } from '../src/index.js';

// A fresh file per test; the second instance opens the same file through its own connection.
async function openFresh(options: { maxArtifactBytes?: number }) {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-sqlite-artifacts-'));
  const path = join(dir, 'troupe.db');
  const service = new SqliteArtifactService({ path, ...options });
  return {
    service,
    path,
    close: async () => {
      await service.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

artifactServiceContract('SqliteArtifactService', openFresh, {
  openSecond: async ({ path }) => {
    const service = new SqliteArtifactService({ path });
    return { service, close: () => service.close() };
  },
});

it('shares one file with SqliteSessionService, in either opening order, and survives reopening', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-sqlite-artifacts-'));
  const path = join(dir, 'troupe.db');
  try {
    const artifacts = new SqliteArtifactService({ path });
    const sessions = new SqliteSessionService({ path });
    const session = await sessions.createSession({ appName: 'app', userId: 'u' });
    await artifacts.saveArtifact({ appName: 'app', userId: 'u', sessionId: session.id, filename: 'a.txt', artifact: { text: 'kept' } });
    await artifacts.close();
    await sessions.close();
    const reopened = new SqliteArtifactService({ path, readonly: true });
    expect(await reopened.loadArtifact({ appName: 'app', userId: 'u', sessionId: session.id, filename: 'a.txt' })).toEqual({ text: 'kept' });
    await reopened.close();
    const sessionsAgain = new SqliteSessionService({ path });
    expect((await sessionsAgain.getSession({ appName: 'app', userId: 'u', sessionId: session.id }))?.id).toBe(session.id);
    await sessionsAgain.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it('names SqliteArtifactService in option errors, and fails after close', async () => {
  expect(() => new SqliteArtifactService({ path: '' })).toThrow(/SqliteArtifactService option 'path' must be a non-empty file path/);
  expect(() => new SqliteArtifactService({ path: ':memory:', maxArtifactBytes: -1 })).toThrow(/SqliteArtifactService option 'maxArtifactBytes'/);
  const service = new SqliteArtifactService({ path: ':memory:' });
  await service.close();
  await expect(service.listArtifactKeys({ appName: 'a', userId: 'u', sessionId: 's' })).rejects.toThrow(/is closed/);
});
