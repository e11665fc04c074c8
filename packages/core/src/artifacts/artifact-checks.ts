import { ArtifactTooLargeError, ConfigurationError, InvalidArtifactError } from '../errors.js';
import type { Part } from '../events/content.js';
import { USER_ARTIFACT_PREFIX, type ArtifactKey, type ListArtifactParams } from './artifact-service.js';

/** The default `maxArtifactBytes` of every artifact store: 10 MiB of decoded bytes. */
export const DEFAULT_MAX_ARTIFACT_BYTES = 10 * 1024 * 1024;

/** The longest artifact filename a store takes, in characters. */
export const MAX_ARTIFACT_FILENAME_LENGTH = 1024;

/** An artifact as stores keep it: its bytes, and the MIME type of `inlineData` (none for a text part). */
export interface ArtifactBytes {
  /** `undefined` for a text part (its bytes are the UTF-8 text). */
  mimeType: string | undefined;
  bytes: Uint8Array;
}

/** Options every artifact store takes. */
export interface ArtifactStoreOptions {
  /**
   * The largest artifact a save accepts, in bytes (decoded bytes of `inlineData`, UTF-8 bytes of a
   * text part). A bigger one fails with `ArtifactTooLargeError` and nothing is stored.
   * @default 10485760 (10 MiB)
   */
  maxArtifactBytes?: number;
}

/** True for filenames shared by all of a user's sessions (`user:` prefix). */
export function isUserArtifact(filename: string): boolean {
  return filename.startsWith(USER_ARTIFACT_PREFIX);
}

/** Checks a store's `maxArtifactBytes` option and applies its default. */
export function resolveMaxArtifactBytes(store: string, value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_ARTIFACT_BYTES;
  if (!(typeof value === 'number' && Number.isSafeInteger(value) && value > 0)) {
    throw new ConfigurationError(
      `${store} option 'maxArtifactBytes' must be a positive whole number of bytes; got ${JSON.stringify(value)}. Omit it for the default of ${DEFAULT_MAX_ARTIFACT_BYTES} (10 MiB).`,
    );
  }
  return value;
}

const LONE_SURROGATE = /\p{Cs}/u;

/** Throws {@link InvalidArtifactError} unless the app, user, session and filename can name an artifact. */
export function checkArtifactKey(key: ArtifactKey): void {
  checkScope(key);
  const { filename } = key;
  if (typeof filename !== 'string' || filename.length === 0) {
    throw new InvalidArtifactError(
      `An artifact filename must be a non-empty string; got ${JSON.stringify(filename)}. Name it, e.g. 'report.pdf' or 'user:avatar.png'.`,
    );
  }
  if (filename.length > MAX_ARTIFACT_FILENAME_LENGTH) {
    throw new InvalidArtifactError(
      `Artifact filename '${filename.slice(0, 40)}…' is ${filename.length} characters long; the limit is ${MAX_ARTIFACT_FILENAME_LENGTH}. Use a shorter name.`,
    );
  }
  if (filename.includes('\0')) {
    throw new InvalidArtifactError(
      `Artifact filename ${JSON.stringify(filename)} contains a NUL character, which no store can keep. Remove it from the name.`,
    );
  }
  if (LONE_SURROGATE.test(filename)) {
    throw new InvalidArtifactError(
      `Artifact filename ${JSON.stringify(filename)} contains a lone UTF-16 surrogate (not valid Unicode). Use a well-formed string.`,
    );
  }
  if (filename === '__proto__') {
    // An event's artifactDelta is a plain object: this key could not be recorded there.
    throw new InvalidArtifactError(
      `Artifact filename '__proto__' cannot be used: it cannot be a key of an event's artifactDelta. Choose another name.`,
    );
  }
  if (filename === USER_ARTIFACT_PREFIX) {
    throw new InvalidArtifactError(
      `Artifact filename '${USER_ARTIFACT_PREFIX}' names nothing after its prefix. Write e.g. '${USER_ARTIFACT_PREFIX}avatar.png'.`,
    );
  }
}

/** Throws {@link InvalidArtifactError} unless app, user and session are non-empty strings. */
export function checkScope(scope: ListArtifactParams): void {
  for (const field of ['appName', 'userId', 'sessionId'] as const) {
    const value = scope?.[field];
    if (typeof value !== 'string' || value.length === 0 || value.includes('\0')) {
      throw new InvalidArtifactError(
        `An artifact call needs '${field}' as a non-empty string without NUL; got ${JSON.stringify(value)}. Pass the session's ${field}.`,
      );
    }
  }
}

/** Throws {@link InvalidArtifactError} unless `version` is absent or a whole number ≥ 0. */
export function checkVersion(filename: string, version: number | undefined): void {
  if (version === undefined) return;
  if (!(typeof version === 'number' && Number.isSafeInteger(version) && version >= 0)) {
    throw new InvalidArtifactError(
      `Artifact '${filename}' was asked for version ${JSON.stringify(version)}; versions are whole numbers from 0. Omit it for the latest.`,
    );
  }
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * Checks a part to save and turns it into bytes: an `inlineData` part (base64, standard or URL-safe
 * alphabet, with a MIME type) or a text part; anything bigger than `maxBytes` fails with
 * {@link ArtifactTooLargeError}, anything else with {@link InvalidArtifactError}.
 */
export function artifactToBytes(filename: string, part: Part, maxBytes: number): ArtifactBytes {
  let result: ArtifactBytes;
  if (isObject(part) && isObject((part as { inlineData?: unknown }).inlineData)) {
    const { mimeType, data } = (part as { inlineData: { mimeType?: unknown; data?: unknown } }).inlineData;
    if (typeof mimeType !== 'string' || mimeType.trim().length === 0) {
      throw new InvalidArtifactError(
        `Artifact '${filename}' has inlineData without a mimeType; got ${JSON.stringify(mimeType)}. Set it, e.g. { inlineData: { mimeType: 'image/png', data } }.`,
      );
    }
    if (typeof data !== 'string' || data.length % 4 === 1 || !BASE64.test(data)) {
      const shown =
        typeof data === 'string' ? `'${data.slice(0, 20)}${data.length > 20 ? '…' : ''}'` : JSON.stringify(data);
      throw new InvalidArtifactError(
        `Artifact '${filename}' has inlineData.data that is not base64: ${shown}. Encode the bytes, e.g. Buffer.from(bytes).toString('base64').`,
      );
    }
    result = { mimeType, bytes: Buffer.from(data, 'base64') };
  } else if (isObject(part) && typeof (part as { text?: unknown }).text === 'string') {
    const text = (part as { text: string }).text;
    if (LONE_SURROGATE.test(text)) {
      throw new InvalidArtifactError(
        `Artifact '${filename}' is text with a lone UTF-16 surrogate (not valid Unicode), which cannot be stored as UTF-8. Use a well-formed string, or save the bytes as inlineData.`,
      );
    }
    result = { mimeType: undefined, bytes: Buffer.from(text, 'utf8') };
  } else {
    const kind = isObject(part) ? Object.keys(part).join(', ') || 'an empty object' : JSON.stringify(part);
    throw new InvalidArtifactError(
      `Artifact '${filename}' must be an inlineData part ({ inlineData: { mimeType, data: base64 } }) or a text part ({ text }); got ${kind}. Wrap the content in one of those.`,
    );
  }
  if (result.bytes.byteLength > maxBytes) {
    throw new ArtifactTooLargeError(
      `Artifact '${filename}' is ${result.bytes.byteLength} bytes, over this store's limit of ${maxBytes} bytes (maxArtifactBytes). Nothing was stored. Save a smaller file, or raise maxArtifactBytes when creating the artifact service.`,
      filename,
      result.bytes.byteLength,
      maxBytes,
    );
  }
  return result;
}

/** The part for stored bytes: `inlineData` (canonical base64) when there is a MIME type, else text. */
export function artifactFromBytes(stored: ArtifactBytes): Part {
  const buffer = Buffer.from(stored.bytes.buffer, stored.bytes.byteOffset, stored.bytes.byteLength);
  if (stored.mimeType === undefined) return { text: buffer.toString('utf8') };
  return { inlineData: { mimeType: stored.mimeType, data: buffer.toString('base64') } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
