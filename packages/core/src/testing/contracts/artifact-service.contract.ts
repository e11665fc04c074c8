/**
 * The contract every {@link ArtifactService} implementation passes (SPEC §15, §15.1): the in-memory
 * and file stores in core, and the SQLite and PostgreSQL stores, run it from their own tests.
 *
 * @example
 * // packages/sqlite/test/sqlite-artifact-service.test.ts
 * artifactServiceContract('SqliteArtifactService', async (options) => {
 *   const path = join(await mkdtemp(join(tmpdir(), 'troupe-')), 'artifacts.db');
 *   const service = new SqliteArtifactService({ path, ...options });
 *   return { service, path, close: () => service.close() };
 * }, {
 *   openSecond: async ({ path }) => {
 *     const service = new SqliteArtifactService({ path });
 *     return { service, close: () => service.close() };
 *   },
 * });
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ArtifactTooLargeError, InvalidArtifactError, type ArtifactService, type Part } from '../../index.js';

/** A service under test and how to dispose of it. Extra fields (a path, a schema) reach `openSecond`. */
export interface ArtifactServiceFixture {
  service: ArtifactService;
  /** Closes connections and removes the storage. Called after every test. */
  close?: () => Promise<void>;
}

/** What the factory is asked for: the store's `maxArtifactBytes`, when a test sets one. */
export interface ArtifactFactoryOptions {
  maxArtifactBytes?: number;
}

/** Options of {@link artifactServiceContract}. */
export interface ArtifactServiceContractOptions<F extends ArtifactServiceFixture> {
  /** Opens a second instance over the same storage (as a second process would); the "two instances" tests run only then. */
  openSecond?: (first: F) => Promise<ArtifactServiceFixture>;
  /** Extra cases for this store (path escapes for a file store), given the test's fixture and a session. */
  extra?: (get: () => { fixture: F; scope: { appName: string; userId: string; sessionId: string } }) => void;
}

const png = (bytes: number[]): Part => ({
  inlineData: { mimeType: 'image/png', data: Buffer.from(bytes).toString('base64') },
});

/** Registers the ArtifactService contract suite for one implementation. */
export function artifactServiceContract<F extends ArtifactServiceFixture>(
  name: string,
  factory: (options: ArtifactFactoryOptions) => Promise<F>,
  options: ArtifactServiceContractOptions<F> = {},
): void {
  describe(`ArtifactService contract: ${name}`, () => {
    let fixture: F;
    let service: ArtifactService;
    let APP: string;
    let OTHER_APP: string;
    const closers: (() => Promise<void>)[] = [];
    const USER = 'alice';
    const OTHER_USER = 'bob';

    beforeEach(async () => {
      const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      APP = `artifacts-app-${run}`;
      OTHER_APP = `artifacts-other-${run}`;
      fixture = await factory({});
      service = fixture.service;
    });

    afterEach(async () => {
      for (const close of closers.splice(0).reverse()) await close();
      await fixture.close?.();
    });

    const at = (sessionId: string, userId = USER, appName = APP) => ({ appName, userId, sessionId });

    it('numbers versions from 0 and loads the latest unless a version is given', async () => {
      expect(await service.saveArtifact({ ...at('s1'), filename: 'a.txt', artifact: { text: 'one' } })).toBe(0);
      expect(await service.saveArtifact({ ...at('s1'), filename: 'a.txt', artifact: { text: 'two' } })).toBe(1);
      expect(await service.saveArtifact({ ...at('s1'), filename: 'a.txt', artifact: { text: 'three' } })).toBe(2);
      expect(await service.loadArtifact({ ...at('s1'), filename: 'a.txt' })).toEqual({ text: 'three' });
      expect(await service.loadArtifact({ ...at('s1'), filename: 'a.txt', version: 0 })).toEqual({ text: 'one' });
      expect(await service.loadArtifact({ ...at('s1'), filename: 'a.txt', version: 1 })).toEqual({ text: 'two' });
      expect(await service.listVersions({ ...at('s1'), filename: 'a.txt' })).toEqual([0, 1, 2]);
    });

    it('answers undefined for a missing file or version, and [] for its versions', async () => {
      expect(await service.loadArtifact({ ...at('s1'), filename: 'nothing.txt' })).toBeUndefined();
      expect(await service.loadArtifact({ ...at('s1'), filename: 'user:nothing.txt' })).toBeUndefined();
      expect(await service.listVersions({ ...at('s1'), filename: 'nothing.txt' })).toEqual([]);
      await service.saveArtifact({ ...at('s1'), filename: 'a.txt', artifact: { text: 'one' } });
      expect(await service.loadArtifact({ ...at('s1'), filename: 'a.txt', version: 1 })).toBeUndefined();
      expect(await service.loadArtifact({ ...at('s1'), filename: 'a.txt', version: 99 })).toBeUndefined();
    });

    it("lists the session's own names and the user's user: names, sorted", async () => {
      expect(await service.listArtifactKeys(at('s1'))).toEqual([]);
      for (const filename of [
        'zeta.txt',
        'user:profile.json',
        'Alpha.txt',
        'beta.txt',
        'user:avatar.png',
        'beta.txt',
      ]) {
        await service.saveArtifact({ ...at('s1'), filename, artifact: { text: filename } });
      }
      await service.saveArtifact({ ...at('s2'), filename: 'other-session.txt', artifact: { text: 'x' } });
      expect(await service.listArtifactKeys(at('s1'))).toEqual([
        'Alpha.txt',
        'beta.txt',
        'user:avatar.png',
        'user:profile.json',
        'zeta.txt',
      ]);
      expect(await service.listArtifactKeys(at('s2'))).toEqual([
        'other-session.txt',
        'user:avatar.png',
        'user:profile.json',
      ]);
    });

    it("shares user: names across the user's sessions of the app, with one version sequence", async () => {
      expect(
        await service.saveArtifact({ ...at('s1'), filename: 'user:notes.md', artifact: { text: 'from s1' } }),
      ).toBe(0);
      expect(
        await service.saveArtifact({ ...at('s2'), filename: 'user:notes.md', artifact: { text: 'from s2' } }),
      ).toBe(1);
      expect(await service.loadArtifact({ ...at('s3'), filename: 'user:notes.md' })).toEqual({ text: 'from s2' });
      expect(await service.loadArtifact({ ...at('s1'), filename: 'user:notes.md', version: 0 })).toEqual({
        text: 'from s1',
      });
      expect(await service.listVersions({ ...at('s9'), filename: 'user:notes.md' })).toEqual([0, 1]);
    });

    it('keeps users, apps and sessions apart, user: names included', async () => {
      await service.saveArtifact({ ...at('s1'), filename: 'secret.txt', artifact: { text: 'alice' } });
      await service.saveArtifact({ ...at('s1'), filename: 'user:diary.txt', artifact: { text: 'alice diary' } });
      // Same session id, another user or app: nothing of alice's.
      for (const scope of [at('s1', OTHER_USER), at('s1', USER, OTHER_APP)]) {
        expect(await service.listArtifactKeys(scope)).toEqual([]);
        expect(await service.loadArtifact({ ...scope, filename: 'secret.txt' })).toBeUndefined();
        expect(await service.loadArtifact({ ...scope, filename: 'user:diary.txt' })).toBeUndefined();
        expect(await service.listVersions({ ...scope, filename: 'user:diary.txt' })).toEqual([]);
      }
      // Another session of alice: only the user: file.
      expect(await service.loadArtifact({ ...at('s2'), filename: 'secret.txt' })).toBeUndefined();
      expect(await service.listArtifactKeys(at('s2'))).toEqual(['user:diary.txt']);
      // Bob's own file of the same name is his own sequence.
      expect(
        await service.saveArtifact({
          ...at('s1', OTHER_USER),
          filename: 'user:diary.txt',
          artifact: { text: 'bob diary' },
        }),
      ).toBe(0);
      expect(await service.loadArtifact({ ...at('s1'), filename: 'user:diary.txt' })).toEqual({ text: 'alice diary' });
      // Deleting bob's leaves alice's.
      await service.deleteArtifact({ ...at('s1', OTHER_USER), filename: 'user:diary.txt' });
      expect(await service.loadArtifact({ ...at('s5'), filename: 'user:diary.txt' })).toEqual({ text: 'alice diary' });
    });

    it('does not mix names that differ only in case, or ids that look like paths', async () => {
      await service.saveArtifact({ ...at('s1'), filename: 'Report.txt', artifact: { text: 'upper' } });
      await service.saveArtifact({ ...at('s1'), filename: 'report.txt', artifact: { text: 'lower' } });
      expect(await service.loadArtifact({ ...at('s1'), filename: 'Report.txt' })).toEqual({ text: 'upper' });
      expect(await service.listVersions({ ...at('s1'), filename: 'report.txt' })).toEqual([0]);
      await service.saveArtifact({ ...at('a/b'), filename: 'x', artifact: { text: 'a/b' } });
      expect(await service.listArtifactKeys(at('a'))).toEqual([]);
      expect(await service.listArtifactKeys(at('a/b'))).toEqual(['x']);
      await service.saveArtifact({ ...at('s1', 'Alice'), filename: 'x', artifact: { text: 'capital' } });
      expect(await service.loadArtifact({ ...at('s1'), filename: 'x' })).toBeUndefined();
    });

    it('deletes every version of a file, and deleting a missing file is harmless', async () => {
      await service.saveArtifact({ ...at('s1'), filename: 'a.txt', artifact: { text: 'one' } });
      await service.saveArtifact({ ...at('s1'), filename: 'a.txt', artifact: { text: 'two' } });
      await service.saveArtifact({ ...at('s1'), filename: 'b.txt', artifact: { text: 'keep' } });
      await service.deleteArtifact({ ...at('s1'), filename: 'a.txt' });
      expect(await service.loadArtifact({ ...at('s1'), filename: 'a.txt' })).toBeUndefined();
      expect(await service.loadArtifact({ ...at('s1'), filename: 'a.txt', version: 0 })).toBeUndefined();
      expect(await service.listVersions({ ...at('s1'), filename: 'a.txt' })).toEqual([]);
      expect(await service.listArtifactKeys(at('s1'))).toEqual(['b.txt']);
      await service.deleteArtifact({ ...at('s1'), filename: 'a.txt' });
      await service.deleteArtifact({ ...at('s1'), filename: 'user:never.txt' });
      expect(await service.saveArtifact({ ...at('s1'), filename: 'a.txt', artifact: { text: 'again' } })).toBe(0);
    });

    it('round-trips every byte value and the MIME type of inlineData', async () => {
      const all = Array.from({ length: 256 }, (_, i) => i);
      const bytes = [...all, ...all.reverse()];
      await service.saveArtifact({
        ...at('s1'),
        filename: 'bytes.bin',
        artifact: { inlineData: { mimeType: 'application/octet-stream', data: Buffer.from(bytes).toString('base64') } },
      });
      const loaded = await service.loadArtifact({ ...at('s1'), filename: 'bytes.bin' });
      expect(loaded).toEqual({
        inlineData: { mimeType: 'application/octet-stream', data: Buffer.from(bytes).toString('base64') },
      });
      await service.saveArtifact({
        ...at('s1'),
        filename: 'pixel.png',
        artifact: png([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00]),
      });
      const image = await service.loadArtifact({ ...at('s1'), filename: 'pixel.png' });
      expect(image && 'inlineData' in image ? [...Buffer.from(image.inlineData.data, 'base64')] : image).toEqual([
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00,
      ]);
      await service.saveArtifact({
        ...at('s1'),
        filename: 'empty.bin',
        artifact: { inlineData: { mimeType: 'application/x-empty', data: '' } },
      });
      expect(await service.loadArtifact({ ...at('s1'), filename: 'empty.bin' })).toEqual({
        inlineData: { mimeType: 'application/x-empty', data: '' },
      });
      // URL-safe base64 is accepted and comes back in the standard alphabet.
      await service.saveArtifact({
        ...at('s1'),
        filename: 'url-safe.bin',
        artifact: {
          inlineData: { mimeType: 'application/octet-stream', data: Buffer.from([0xfb, 0xff]).toString('base64url') },
        },
      });
      expect(await service.loadArtifact({ ...at('s1'), filename: 'url-safe.bin' })).toEqual({
        inlineData: { mimeType: 'application/octet-stream', data: '+/8=' },
      });
    });

    it('round-trips text parts, including NUL, newlines and non-Latin text', async () => {
      const text = 'line 1\nline 2\r\n\ttab \u0000 nul — ünïcödé 日本語 🎭';
      await service.saveArtifact({ ...at('s1'), filename: 'notes.md', artifact: { text } });
      expect(await service.loadArtifact({ ...at('s1'), filename: 'notes.md' })).toEqual({ text });
      await service.saveArtifact({ ...at('s1'), filename: 'empty.md', artifact: { text: '' } });
      expect(await service.loadArtifact({ ...at('s1'), filename: 'empty.md' })).toEqual({ text: '' });
    });

    it('takes filenames with any characters: slashes, dots, spaces, colons, unicode', async () => {
      const names = [
        '../../etc/passwd',
        '/absolute/path.txt',
        '..',
        '.',
        'a/b/c.txt',
        'with space.txt',
        'C:\\windows\\file',
        'ünï 日本 🎭.txt',
        'user:../../escape',
        '%2e%2e',
        'name\nwith newline',
        'constructor',
        'user:__proto__',
      ];
      for (const filename of names) {
        expect(
          await service.saveArtifact({ ...at('s1'), filename, artifact: { text: `content of ${filename}` } }),
        ).toBe(0);
      }
      for (const filename of names)
        expect(await service.loadArtifact({ ...at('s1'), filename })).toEqual({ text: `content of ${filename}` });
      expect(await service.listArtifactKeys(at('s1'))).toEqual([...names].sort());
    });

    it('refuses an artifact over maxArtifactBytes with ArtifactTooLargeError, storing nothing', async () => {
      const small = await factory({ maxArtifactBytes: 16 });
      closers.push(async () => small.close?.());
      expect(
        await small.service.saveArtifact({ ...at('s1'), filename: 'fits.bin', artifact: png(new Array(16).fill(7)) }),
      ).toBe(0);
      const error = await small.service
        .saveArtifact({ ...at('s1'), filename: 'big.bin', artifact: png(new Array(17).fill(7)) })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ArtifactTooLargeError);
      expect(error).toMatchObject({ code: 'ARTIFACT_TOO_LARGE', filename: 'big.bin', size: 17, limit: 16 });
      expect((error as Error).message).toMatch(/'big\.bin' is 17 bytes.*limit of 16 bytes.*maxArtifactBytes/);
      // Text counts its UTF-8 bytes: 6 characters of 3 bytes each.
      await expect(
        small.service.saveArtifact({ ...at('s1'), filename: 'big.txt', artifact: { text: '日本語日本語' } }),
      ).rejects.toBeInstanceOf(ArtifactTooLargeError);
      expect(await small.service.listArtifactKeys(at('s1'))).toEqual(['fits.bin']);
    });

    it('refuses bad filenames and parts with InvalidArtifactError naming the problem', async () => {
      const bad = async (filename: unknown, match: RegExp) => {
        const error = await service
          .saveArtifact({ ...at('s1'), filename: filename as string, artifact: { text: 'x' } })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InvalidArtifactError);
        expect((error as Error).message).toMatch(match);
      };
      await bad('', /non-empty/);
      await bad(undefined, /non-empty/);
      await bad('a\0b', /NUL/);
      await bad('x'.repeat(1025), /1025 characters.*limit is 1024/);
      await bad('user:', /names nothing/);
      await bad('__proto__', /artifactDelta/);
      await bad('bad\uD800name', /surrogate/);
      expect(
        await service.saveArtifact({ ...at('s1'), filename: 'x'.repeat(1024), artifact: { text: 'long name' } }),
      ).toBe(0);
      const badPart = async (artifact: unknown, match: RegExp) => {
        const error = await service
          .saveArtifact({ ...at('s1'), filename: 'p', artifact: artifact as Part })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InvalidArtifactError);
        expect((error as Error).message).toMatch(match);
      };
      await badPart(
        { functionCall: { id: '1', name: 'f', args: {} } },
        /inlineData part.*or a text part.*got functionCall/,
      );
      await badPart({ inlineData: { data: 'AAAA' } }, /without a mimeType/);
      await badPart({ inlineData: { mimeType: 'image/png', data: 'not base64!' } }, /not base64/);
      await expect(service.loadArtifact({ ...at('s1'), filename: 'p', version: -1 })).rejects.toBeInstanceOf(
        InvalidArtifactError,
      );
      await expect(service.loadArtifact({ ...at('s1'), filename: 'p', version: 1.5 })).rejects.toBeInstanceOf(
        InvalidArtifactError,
      );
      await expect(service.listArtifactKeys({ appName: APP, userId: '', sessionId: 's1' })).rejects.toThrow(/'userId'/);
      expect(await service.listArtifactKeys(at('s1'))).toEqual(['x'.repeat(1024)]);
    });

    it('gives concurrent saves of one file distinct versions', async () => {
      const versions = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          service.saveArtifact({ ...at('s1'), filename: 'busy.txt', artifact: { text: `v${i}` } }),
        ),
      );
      expect([...versions].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      for (const [i, version] of versions.entries())
        expect(await service.loadArtifact({ ...at('s1'), filename: 'busy.txt', version })).toEqual({ text: `v${i}` });
    });

    if (options.openSecond) {
      const openSecond = options.openSecond;
      describe('two service instances on the same storage', () => {
        it('see each other’s artifacts and never hand out one version twice', async () => {
          const second = await openSecond(fixture);
          closers.push(async () => second.close?.());
          await service.saveArtifact({ ...at('s1'), filename: 'shared.txt', artifact: { text: 'from first' } });
          expect(await second.service.loadArtifact({ ...at('s1'), filename: 'shared.txt' })).toEqual({
            text: 'from first',
          });
          const saves = Array.from({ length: 12 }, (_, i) =>
            (i % 2 === 0 ? service : second.service).saveArtifact({
              ...at('s1'),
              filename: 'user:race.txt',
              artifact: { text: `save ${i}` },
            }),
          );
          const versions = await Promise.all(saves);
          expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i));
          expect(await service.listVersions({ ...at('s2'), filename: 'user:race.txt' })).toEqual(
            Array.from({ length: 12 }, (_, i) => i),
          );
          await second.service.deleteArtifact({ ...at('s1'), filename: 'shared.txt' });
          expect(await service.loadArtifact({ ...at('s1'), filename: 'shared.txt' })).toBeUndefined();
        });
      });
    }

    options.extra?.(() => ({ fixture, scope: at('s1') }));
  });
}
