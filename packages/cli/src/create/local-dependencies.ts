import type { PackedPackage } from './pack-workspaces.js';

/** The folder of a created project that holds the packed Troupe packages. */
export const VENDOR_FOLDER = 'vendor';

/** The part of a package.json that {@link pointAtTarballs} rewrites. */
export interface ProjectManifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  overrides?: Record<string, string>;
  [key: string]: unknown;
}

/**
 * Makes the project install every Troupe package from the tarballs in `vendor/`: its own
 * @troupe dependencies name the tarball (`file:vendor/troupe-core-0.1.0.tgz`), and `overrides`
 * sends the Troupe packages those depend on (`@troupe/cli` needs `@troupe/sqlite`, ...) to their
 * tarballs too, so npm never asks the registry for a package it installs that is not published.
 * npm accepts an override of a direct dependency only when both specs are equal, which they are
 * here.
 *
 * Only packages reached through `dependencies` get an override. npm resolves the `file:` spec of an
 * override of a peer dependency (`@troupe/cli`'s optional `@troupe/postgres`) against the folder of
 * the package that has the peer, not the project's: it fails to read the tarball there and warns
 * that it "seems to be corrupted". An optional peer nothing installs needs no override (npm looks
 * its version up in the registry and leaves it out); its tarball stays in `vendor/` for a project
 * that adds it (`npm install ./vendor/troupe-postgres-0.1.0.tgz`).
 */
export function pointAtTarballs(manifest: ProjectManifest, packed: readonly PackedPackage[]): ProjectManifest {
  const byName = new Map(packed.map((p) => [p.name, p]));
  const spec = (name: string): string | undefined => {
    const tarball = byName.get(name);
    return tarball && `file:${VENDOR_FOLDER}/${tarball.filename}`;
  };
  const retarget = (deps: Record<string, string> | undefined): Record<string, string> | undefined =>
    deps && Object.fromEntries(Object.entries(deps).map(([name, range]) => [name, spec(name) ?? range]));
  const result: ProjectManifest = { ...manifest };
  const dependencies = retarget(manifest.dependencies);
  const devDependencies = retarget(manifest.devDependencies);
  if (dependencies) result.dependencies = dependencies;
  if (devDependencies) result.devDependencies = devDependencies;
  const installed = installedWith(
    [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})],
    byName,
  );
  result.overrides = { ...manifest.overrides, ...Object.fromEntries(installed.map((name) => [name, spec(name)!])) };
  return result;
}

/** The packed packages npm installs for `roots`: those of them that were packed, and their `dependencies`, transitively. */
function installedWith(roots: readonly string[], byName: ReadonlyMap<string, PackedPackage>): string[] {
  const found = new Set<string>();
  const visit = (name: string): void => {
    const tarball = byName.get(name);
    if (!tarball || found.has(name)) return;
    found.add(name);
    tarball.dependencies.forEach(visit);
  };
  roots.forEach(visit);
  return [...found].sort();
}
