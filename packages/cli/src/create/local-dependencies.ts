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
 * tarballs too, so npm never asks the registry for a package that is not published. npm accepts
 * an override of a direct dependency only when both specs are equal, which they are here.
 */
export function pointAtTarballs(manifest: ProjectManifest, packed: readonly PackedPackage[]): ProjectManifest {
  const spec = new Map(packed.map((p) => [p.name, `file:${VENDOR_FOLDER}/${p.filename}`]));
  const retarget = (deps: Record<string, string> | undefined): Record<string, string> | undefined =>
    deps && Object.fromEntries(Object.entries(deps).map(([name, range]) => [name, spec.get(name) ?? range]));
  const result: ProjectManifest = { ...manifest };
  const dependencies = retarget(manifest.dependencies);
  const devDependencies = retarget(manifest.devDependencies);
  if (dependencies) result.dependencies = dependencies;
  if (devDependencies) result.devDependencies = devDependencies;
  result.overrides = { ...manifest.overrides, ...Object.fromEntries(spec) };
  return result;
}
