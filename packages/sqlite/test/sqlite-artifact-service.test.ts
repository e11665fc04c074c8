import { expect, it } from 'vitest';
import { artifactServiceContract } from '@troupe/core/testing/contracts';
import { SqliteArtifactService, SqliteSessionService } from '../src/index.js';
import { openOnFreshFile, reopenOnPath, withTempFile } from './helpers.js';

// A fresh file per test; the second instance opens the same file through its own connection.
const openFresh = (options: { maxArtifactBytes?: number }) =>
  openOnFreshFile('troupe-sqlite-artifacts-', 'troupe.db', (path) => new SqliteArtifactService({ path, ...options }));

artifactServiceContract('SqliteArtifactService', openFresh, {
  openSecond: reopenOnPath((path) => new SqliteArtifactService({ path })),
});

it('shares one file with SqliteSessionService, in either opening order, and survives reopening', async () => {
  await withTempFile('troupe-sqlite-artifacts-', 'troupe.db', async (path) => {
    const artifacts = new SqliteArtifactService({ path });
    const sessions = new SqliteSessionService({ path });
    const session = await sessions.createSession({ appName: 'app', userId: 'u' });
    await artifacts.saveArtifact({
      appName: 'app',
      userId: 'u',
      sessionId: session.id,
      filename: 'a.txt',
      artifact: { text: 'kept' },
    });
    await artifacts.close();
    await sessions.close();
    const reopened = new SqliteArtifactService({ path, readonly: true });
    expect(
      await reopened.loadArtifact({ appName: 'app', userId: 'u', sessionId: session.id, filename: 'a.txt' }),
    ).toEqual({ text: 'kept' });
    await reopened.close();
    const sessionsAgain = new SqliteSessionService({ path });
    expect((await sessionsAgain.getSession({ appName: 'app', userId: 'u', sessionId: session.id }))?.id).toBe(
      session.id,
    );
    await sessionsAgain.close();
  });
});

it('names SqliteArtifactService in option errors, and fails after close', async () => {
  expect(() => new SqliteArtifactService({ path: '' })).toThrow(
    /SqliteArtifactService option 'path' must be a non-empty file path/,
  );
  expect(() => new SqliteArtifactService({ path: ':memory:', maxArtifactBytes: -1 })).toThrow(
    /SqliteArtifactService option 'maxArtifactBytes'/,
  );
  const service = new SqliteArtifactService({ path: ':memory:' });
  await service.close();
  await expect(service.listArtifactKeys({ appName: 'a', userId: 'u', sessionId: 's' })).rejects.toThrow(/is closed/);
});
