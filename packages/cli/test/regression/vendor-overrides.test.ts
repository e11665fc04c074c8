import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ExitCode, runCli } from '../../src/index.js';
import { fakeIo, tempDir } from '../helpers.js';

// `npm install` in an app made by `troupe create --local` warned "tarball data for
// @troupe/postgres@file:vendor/troupe-postgres-0.1.0.tgz (null) seems to be corrupted. Trying again."
// twice. @troupe/postgres is an optional peer dependency of @troupe/cli, and npm resolves the
// `file:` spec of an override of a peer dependency against the depending package's folder
// (node_modules/@troupe/cli/vendor/..., which does not exist), not against the project: the read
// fails with ENOENT, which npm reports as a corrupted tarball. The tarballs themselves are fine.
// Overrides now send only the packages npm installs (those reached through `dependencies`) to
// vendor/; an optional peer that nothing installs gets no override.

const repo = fileURLToPath(new URL('../../../../', import.meta.url));

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  overrides?: Record<string, string>;
}

const workspaceManifests = (): Map<string, Manifest> =>
  new Map(
    readdirSync(join(repo, 'packages')).map((dir) => {
      const manifest = JSON.parse(readFileSync(join(repo, 'packages', dir, 'package.json'), 'utf8')) as Manifest;
      return [manifest.name, manifest];
    }),
  );

/** The @troupe packages npm installs for these: them and what they need through `dependencies`. */
function installed(roots: readonly string[], manifests: Map<string, Manifest>): string[] {
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name) || !manifests.has(name)) return;
    seen.add(name);
    for (const dependency of Object.keys(manifests.get(name)!.dependencies ?? {})) visit(dependency);
  };
  roots.forEach(visit);
  return [...seen].sort();
}

describe('troupe create --local: overrides', () => {
  it('name the @troupe packages npm installs, and no optional peer (npm would read its tarball from the wrong folder)', async () => {
    const parent = tempDir('troupe-vendor-overrides-');
    const io = fakeIo(parent);
    expect(await runCli(['create', 'app', '--local'], io)).toBe(ExitCode.ok);
    const project = join(parent, 'app');
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as Manifest;
    const manifests = workspaceManifests();
    const expected = installed(
      Object.keys(manifest.dependencies ?? {}).filter((name) => name.startsWith('@troupe/')),
      manifests,
    );
    expect(Object.keys(manifest.overrides ?? {}).sort()).toEqual(expected);
    // @troupe/cli's optional peer is not installed, so it has no override; its tarball stays in vendor/.
    expect(Object.keys(manifests.get('@troupe/cli')!.peerDependencies ?? {})).toContain('@troupe/postgres');
    expect(manifest.overrides).not.toHaveProperty('@troupe/postgres');
    expect(readdirSync(join(project, 'vendor')).some((file) => file.startsWith('troupe-postgres-'))).toBe(true);
  }, 120_000);
});
