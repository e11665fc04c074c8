import { execFile } from 'node:child_process';
import { access, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CliUsageError } from '../errors.js';

const run = promisify(execFile);

/** One tarball made by {@link packWorkspaces}: the package's name and version, and the file's name. */
export interface PackedPackage {
  readonly name: string;
  readonly version: string;
  readonly filename: string;
  /** The names of its `dependencies` (what npm installs with it; peers are not among them). */
  readonly dependencies: readonly string[];
}

/** How long packing every package may take before `troupe create` gives up. */
const PACK_TIMEOUT_MS = 120_000;

/**
 * Packs every package of the checkout at `root` into `destination` with one `npm pack
 * --workspaces` (one npm process; no package has a build step in its pack lifecycle, so nothing
 * is rebuilt). The tarballs hold the built `dist/`, so a checkout that was not built is refused
 * with the command that builds it.
 */
export async function packWorkspaces(root: string, destination: string): Promise<PackedPackage[]> {
  await requireBuilt(root);
  await mkdir(destination, { recursive: true });
  let stdout: string;
  try {
    ({ stdout } = await run(
      'npm',
      ['pack', '--workspaces', '--json', '--pack-destination', destination, '--loglevel', 'error'],
      { cwd: root, timeout: PACK_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 },
    ));
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    throw new CliUsageError(`'npm pack --workspaces' failed in ${root}: ${detail}`);
  }
  const dependencies = await dependenciesByName(root);
  return (JSON.parse(stdout) as PackedPackage[]).map(({ name, version, filename }) => ({
    name,
    version,
    filename,
    dependencies: dependencies.get(name) ?? [],
  }));
}

/** The `dependencies` of each package of the checkout, by package name. */
async function dependenciesByName(root: string): Promise<Map<string, string[]>> {
  const byName = new Map<string, string[]>();
  for (const dir of await readdir(join(root, 'packages'))) {
    let manifest: { name?: string; dependencies?: Record<string, string> };
    try {
      manifest = JSON.parse(await readFile(join(root, 'packages', dir, 'package.json'), 'utf8')) as typeof manifest;
    } catch {
      continue; // not a package folder
    }
    if (manifest.name) byName.set(manifest.name, Object.keys(manifest.dependencies ?? {}));
  }
  return byName;
}

/** Refuses a checkout whose packages have no `dist/` yet: their tarballs would not run. */
async function requireBuilt(root: string): Promise<void> {
  for (const name of ['core', 'cli', 'server']) {
    const manifest = JSON.parse(await readFile(join(root, 'packages', name, 'package.json'), 'utf8')) as {
      exports: Record<string, { default: string }>;
    };
    const entry = join(root, 'packages', name, manifest.exports['.']!.default);
    try {
      await access(entry);
    } catch {
      throw new CliUsageError(
        `The packages of ${root} are not built (${entry} is missing), so their tarballs would not run. Run 'npm run build' there first.`,
      );
    }
  }
}
