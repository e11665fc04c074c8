import { ConfigurationError, SchemaVersionError } from '../errors.js';

/** Serialises a value for storage; `what` names it in the error when it is not JSON data. */
export function encodeJson(value: unknown, what: () => string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new ConfigurationError(
      `${what()} cannot be stored: ${error instanceof Error ? error.message : String(error)}. Store plain JSON data (strings, numbers, booleans, null, arrays, objects); convert BigInt, class instances and cycles first.`,
    );
  }
  if (text === undefined) {
    throw new ConfigurationError(
      `${what()} cannot be stored: ${typeof value} is not JSON data. Store plain JSON data instead.`,
    );
  }
  return text;
}

/** Throws {@link SchemaVersionError} when a stored value's format is newer than `supported`. */
export function checkValueFormat(format: number, supported: number, what: () => string, packageName: string): void {
  if (format === supported) return;
  throw new SchemaVersionError(
    `${what()} is stored in value format ${format}, but this ${packageName} reads only format ${supported}. It was written by a newer release: upgrade ${packageName} to read it.`,
    format,
    supported,
  );
}
