import type { Part } from '../events/content.js';
import {
  artifactFromBytes,
  artifactToBytes,
  checkArtifactKey,
  checkScope,
  checkVersion,
  isUserArtifact,
  resolveMaxArtifactBytes,
  type ArtifactBytes,
  type ArtifactStoreOptions,
} from './artifact-checks.js';
import type {
  ArtifactKey,
  ArtifactService,
  ListArtifactParams,
  LoadArtifactParams,
  SaveArtifactParams,
} from './artifact-service.js';

/** Options of {@link InMemoryArtifactService}. */
export type InMemoryArtifactServiceOptions = ArtifactStoreOptions;

/**
 * Artifacts kept in this process's memory, for tests and development: they end with the process
 * and are not shared with other services.
 *
 * @example
 * const runner = new Runner({ appName: 'app', agent, sessionService, artifactService: new InMemoryArtifactService() });
 */
export class InMemoryArtifactService implements ArtifactService {
  private readonly maxBytes: number;
  /** Scope (app, user, session or the user's shared files) → filename → versions. */
  private readonly scopes = new Map<string, Map<string, ArtifactBytes[]>>();

  constructor(options: InMemoryArtifactServiceOptions = {}) {
    this.maxBytes = resolveMaxArtifactBytes('InMemoryArtifactService', options.maxArtifactBytes);
  }

  async saveArtifact(params: SaveArtifactParams): Promise<number> {
    checkArtifactKey(params);
    const stored = artifactToBytes(params.filename, params.artifact, this.maxBytes);
    const key = scopeKey(params, params.filename);
    let files = this.scopes.get(key);
    if (!files) this.scopes.set(key, (files = new Map()));
    let versions = files.get(params.filename);
    if (!versions) files.set(params.filename, (versions = []));
    versions.push({ mimeType: stored.mimeType, bytes: Uint8Array.from(stored.bytes) });
    return versions.length - 1;
  }

  async loadArtifact(params: LoadArtifactParams): Promise<Part | undefined> {
    checkArtifactKey(params);
    checkVersion(params.filename, params.version);
    const versions = this.versionsOf(params);
    if (!versions || versions.length === 0) return undefined;
    const stored = versions[params.version ?? versions.length - 1];
    return stored && artifactFromBytes(stored);
  }

  async listArtifactKeys(params: ListArtifactParams): Promise<string[]> {
    checkScope(params);
    const own = this.scopes.get(scopeKey(params, ''))?.keys() ?? [];
    const shared = this.scopes.get(scopeKey(params, 'user:'))?.keys() ?? [];
    return [...own, ...shared].sort();
  }

  async listVersions(params: ArtifactKey): Promise<number[]> {
    checkArtifactKey(params);
    return (this.versionsOf(params) ?? []).map((_, i) => i);
  }

  async deleteArtifact(params: ArtifactKey): Promise<void> {
    checkArtifactKey(params);
    this.scopes.get(scopeKey(params, params.filename))?.delete(params.filename);
  }

  private versionsOf(key: ArtifactKey): ArtifactBytes[] | undefined {
    return this.scopes.get(scopeKey(key, key.filename))?.get(key.filename);
  }
}

/** The scope a filename lives in: the user's shared files for `user:` names, else the session's. */
function scopeKey(scope: ListArtifactParams, filename: string): string {
  return JSON.stringify([scope.appName, scope.userId, isUserArtifact(filename) ? null : scope.sessionId]);
}
