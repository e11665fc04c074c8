import { createHash, randomUUID } from 'node:crypto';
import { link, mkdir, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigurationError } from '../errors.js';
import type { Part } from '../events/content.js';
import {
  artifactFromBytes,
  artifactToBytes,
  checkArtifactKey,
  checkScope,
  checkVersion,
  isUserArtifact,
  resolveMaxArtifactBytes,
  type ArtifactStoreOptions,
} from './artifact-checks.js';
import type {
  ArtifactKey,
  ArtifactService,
  ListArtifactParams,
  LoadArtifactParams,
  SaveArtifactParams,
} from './artifact-service.js';

/** Options of {@link FileArtifactService}. */
export interface FileArtifactServiceOptions extends ArtifactStoreOptions {
  /** The folder holding the artifacts; created when missing. Several services and processes may share it. */
  dir: string;
}

/** The file inside a filename's folder that holds the filename itself. */
const NAME_FILE = 'name';
const VERSION_FILE = /^(0|[1-9][0-9]*)$/;

/**
 * Artifacts kept in a local folder. Every name (app, user, session, filename) becomes a folder
 * named by its SHA-256, so any characters are safe (`../`, `/`, absolute paths and names differing
 * only in case never meet or leave `dir`); each filename's folder keeps the name in a `name` file
 * and one file per version (`0`, `1`, ...), holding a one-line JSON header and the bytes.
 *
 * Writes are atomic: a version is written to a temporary file and linked to its number, which
 * fails if that number exists, so two savers (in one process or several) never share a version
 * and a reader never sees half a file. Deleting renames the folder away before removing it.
 *
 * @example
 * const artifactService = new FileArtifactService({ dir: '.troupe/artifacts' });
 * const runner = new Runner({ appName: 'app', agent, sessionService, artifactService });
 */
export class FileArtifactService implements ArtifactService {
  /** The folder, resolved to an absolute path. */
  readonly dir: string;
  private readonly maxBytes: number;

  constructor(options: FileArtifactServiceOptions) {
    if (typeof options?.dir !== 'string' || options.dir.length === 0) {
      throw new ConfigurationError(
        `FileArtifactService option 'dir' must be a non-empty folder path; got ${JSON.stringify(options?.dir)}. Pass e.g. { dir: '.troupe/artifacts' }.`,
      );
    }
    this.dir = resolve(options.dir);
    this.maxBytes = resolveMaxArtifactBytes('FileArtifactService', options.maxArtifactBytes);
  }

  async saveArtifact(params: SaveArtifactParams): Promise<number> {
    checkArtifactKey(params);
    const stored = artifactToBytes(params.filename, params.artifact, this.maxBytes);
    const folder = this.fileFolder(params);
    await mkdir(folder, { recursive: true });
    await writeAtomically(join(folder, NAME_FILE), params.filename);
    const header = Buffer.from(
      `${JSON.stringify(stored.mimeType === undefined ? { kind: 'text' } : { kind: 'inline', mimeType: stored.mimeType })}\n`,
      'utf8',
    );
    const temp = join(folder, `.tmp-${randomUUID()}`);
    await writeFile(temp, Buffer.concat([header, stored.bytes]));
    try {
      let version = nextVersion(await versionsIn(folder));
      for (;;) {
        try {
          // link() never replaces an existing file: the saver that links a number first owns it.
          await link(temp, join(folder, String(version)));
          return version;
        } catch (error) {
          if (codeOf(error) !== 'EEXIST') throw error;
          version = nextVersion(await versionsIn(folder));
        }
      }
    } finally {
      await unlink(temp).catch(() => undefined);
    }
  }

  async loadArtifact(params: LoadArtifactParams): Promise<Part | undefined> {
    checkArtifactKey(params);
    checkVersion(params.filename, params.version);
    const folder = this.fileFolder(params);
    const version = params.version ?? (await versionsIn(folder)).at(-1);
    if (version === undefined) return undefined;
    let content: Buffer;
    try {
      content = await readFile(join(folder, String(version)));
    } catch (error) {
      if (codeOf(error) === 'ENOENT') return undefined;
      throw error;
    }
    const newline = content.indexOf(0x0a);
    const header = JSON.parse(content.subarray(0, newline).toString('utf8')) as
      { kind: 'text' } | { kind: 'inline'; mimeType: string };
    return artifactFromBytes({
      mimeType: header.kind === 'inline' ? header.mimeType : undefined,
      bytes: content.subarray(newline + 1),
    });
  }

  async listArtifactKeys(params: ListArtifactParams): Promise<string[]> {
    checkScope(params);
    const names = [
      ...(await this.namesIn(this.scopeFolder(params, ''))),
      ...(await this.namesIn(this.scopeFolder(params, 'user:'))),
    ];
    return names.sort();
  }

  async listVersions(params: ArtifactKey): Promise<number[]> {
    checkArtifactKey(params);
    return versionsIn(this.fileFolder(params));
  }

  async deleteArtifact(params: ArtifactKey): Promise<void> {
    checkArtifactKey(params);
    const folder = this.fileFolder(params);
    // Renamed first, so a reader sees every version or none.
    const doomed = `${folder}.deleted-${randomUUID()}`;
    try {
      await rename(folder, doomed);
    } catch (error) {
      if (codeOf(error) === 'ENOENT') return;
      throw error;
    }
    await rm(doomed, { recursive: true, force: true });
  }

  /** The filenames (with at least one version) in a scope's folder. */
  private async namesIn(folder: string): Promise<string[]> {
    const entries = await readdir(folder, { withFileTypes: true }).catch((error: unknown) => {
      if (codeOf(error) === 'ENOENT') return [];
      throw error;
    });
    const names: string[] = [];
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.includes('.')) continue;
      const fileFolder = join(folder, entry.name);
      if ((await versionsIn(fileFolder)).length === 0) continue;
      const name = await readFile(join(fileFolder, NAME_FILE), 'utf8').catch(() => undefined);
      if (name !== undefined) names.push(name);
    }
    return names;
  }

  private scopeFolder(scope: ListArtifactParams, filename: string): string {
    const owner = join(this.dir, hashed(scope.appName), hashed(scope.userId));
    return isUserArtifact(filename) ? join(owner, 'user') : join(owner, 'sessions', hashed(scope.sessionId));
  }

  private fileFolder(key: ArtifactKey): string {
    return join(this.scopeFolder(key, key.filename), hashed(key.filename));
  }
}

/** A name as a folder name: its SHA-256 in hex, safe on every file system. */
function hashed(name: string): string {
  return createHash('sha256').update(name, 'utf8').digest('hex');
}

/** The version numbers stored in a filename's folder, ascending; `[]` when it does not exist. */
async function versionsIn(folder: string): Promise<number[]> {
  let entries: string[];
  try {
    entries = await readdir(folder);
  } catch (error) {
    if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR') return [];
    throw error;
  }
  return entries
    .filter((entry) => VERSION_FILE.test(entry))
    .map(Number)
    .sort((a, b) => a - b);
}

function nextVersion(versions: number[]): number {
  return (versions.at(-1) ?? -1) + 1;
}

/** Writes a file through a temporary one and a rename, so readers see the old or the new content. */
async function writeAtomically(path: string, content: string): Promise<void> {
  const temp = `${path}.tmp-${randomUUID()}`;
  await writeFile(temp, content, 'utf8');
  await rename(temp, path);
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | undefined)?.code;
}
