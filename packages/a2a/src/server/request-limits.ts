import { MAX_ID_LENGTH, type JsonLimitProblem, type JsonLimits } from '@troupe/core/hosting';

/** The limits of a JSON-RPC request: the HTTP API's (core's `@troupe/core/hosting`), as a2aApp resolved them. */
export interface RequestLimits {
  /** Largest body, in bytes; a larger one is a 413. */
  bodyLimit: number;
  json: Required<JsonLimits>;
}

/** A JSON limit past which a request is refused, worded for an A2A client (the code is -32602). */
export function limitMessage(problem: JsonLimitProblem): string {
  if (problem.kind === 'reserved-key')
    return `Invalid request: field '${problem.field}': the key '${problem.key}' is reserved (it could change object prototypes); rename it.`;
  return `Invalid request: field '${problem.field}' ${problem.what}. Send less, or raise a2aApp's jsonLimits.${problem.option}.`;
}

/** The refusal of a body over the byte limit (answered with HTTP 413). */
export function bodyTooLargeMessage(bodyLimit: number): string {
  return `The request body is larger than the limit of ${bodyLimit} bytes. Send less (a large file by URL rather than inline), or raise a2aApp's bodyLimit.`;
}

/** An id's name in the params and their message: `id`, `messageId`, `contextId`, `referenceTaskIds`... */
const ID_KEY = /^id$|Ids?$/;

/**
 * An id of the params (or of their message) longer than {@link MAX_ID_LENGTH}, worded with the
 * fix; undefined when every id is short enough. Ids are echoed in every answer and stored, so they
 * are held to the HTTP API's id length.
 */
export function idProblem(params: unknown): string | undefined {
  for (const [prefix, holder] of [
    ['params', params],
    ['params.message', isRecord(params) ? params.message : undefined],
  ] as const) {
    if (!isRecord(holder)) continue;
    for (const [key, value] of Object.entries(holder)) {
      if (!ID_KEY.test(key)) continue;
      const ids = Array.isArray(value) ? value : [value];
      for (const [i, id] of ids.entries()) {
        if (typeof id !== 'string' || id.length <= MAX_ID_LENGTH) continue;
        const field = `${prefix}.${key}${Array.isArray(value) ? `[${i}]` : ''}`;
        return `${field} has ${id.length} characters, over the limit of ${MAX_ID_LENGTH} for an id. Use a short unique id, e.g. a UUID.`;
      }
    }
  }
  return undefined;
}

/**
 * The message's parts when they are not a list of objects, worded with the fix; undefined when
 * they are (or there is no message: the SDK names what is missing). The SDK's decoder reads each
 * part's fields, so a `null` part reached it as an internal error.
 */
export function partsProblem(params: unknown): string | undefined {
  const message = isRecord(params) ? params.message : undefined;
  if (!isRecord(message) || !('parts' in message)) return undefined;
  const parts = message.parts;
  if (!Array.isArray(parts))
    return `Invalid request: field 'params.message.parts' is ${describe(parts)}; send a list of parts, e.g. [{ text: 'Hello' }].`;
  for (const [i, part] of parts.entries()) {
    if (!isRecord(part))
      return `Invalid request: field 'params.message.parts[${i}]' is ${describe(part)}; each part is an object, e.g. { text: 'Hello' } (v0.3: { kind: 'text', text: 'Hello' }).`;
    // A v0.3 file part carries its file in `file`; without it the SDK's decoder reads a field of nothing.
    if (part.kind === 'file' && !isRecord(part.file))
      return `Invalid request: field 'params.message.parts[${i}].file' is ${'file' in part ? describe(part.file) : 'missing'}; a file part needs { kind: 'file', file: { uri | bytes, mimeType? } }.`;
  }
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return `${typeof value === 'object' ? 'an' : 'a'} ${typeof value}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
