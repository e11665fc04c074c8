import type { Part } from '../events/content.js';

/** Where an artifact lives: a session, or (for `user:` filenames) every session of the user. */
export interface ArtifactKey {
  appName: string;
  userId: string;
  sessionId: string;
  filename: string;
}

export interface SaveArtifactParams extends ArtifactKey {
  /** The content: an `inlineData` part (bytes as base64 with a MIME type) or a text part. */
  artifact: Part;
}

export interface LoadArtifactParams extends ArtifactKey {
  /** @default the latest version */
  version?: number;
}

export interface ListArtifactParams {
  appName: string;
  userId: string;
  sessionId: string;
}

/** The prefix of artifact filenames shared by all of a user's sessions (as in ADK). */
export const USER_ARTIFACT_PREFIX = 'user:';

/**
 * Named, versioned binary parts (ADK's artifacts). Each save of a filename adds a version
 * (0, 1, 2…); filenames starting with `user:` belong to the user rather than one session. Every
 * implementation passes the shared contract suite (`artifactServiceContract` from `@troupe/core/testing/contracts`).
 */
export interface ArtifactService {
  /** Stores a new version and answers its number. */
  saveArtifact(params: SaveArtifactParams): Promise<number>;
  /** The given (or latest) version; `undefined` when the file or that version does not exist. */
  loadArtifact(params: LoadArtifactParams): Promise<Part | undefined>;
  /** Filenames visible from the session (its own and the user's `user:` ones), sorted. */
  listArtifactKeys(params: ListArtifactParams): Promise<string[]>;
  /** Versions of a filename, ascending; `[]` when it does not exist. */
  listVersions(params: ArtifactKey): Promise<number[]>;
  /** Removes every version of a filename. */
  deleteArtifact(params: ArtifactKey): Promise<void>;
}
