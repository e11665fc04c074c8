import { randomBytes } from 'node:crypto';

// Ids are <start time><process random><counter>: unique across processes (64 random bits per
// process), cheap to make, short, and one flat string. (randomUUID() strings are kept by V8 as
// trees of pieces, about 480 bytes each, which dominated an idle session's memory.)
const prefix = Date.now().toString(36) + randomBytes(8).readBigUInt64BE().toString(36).padStart(13, '0');
let counter = 0;

/** A new unique id. */
export function newId(): string {
  const id = prefix + (++counter).toString(36);
  id.charCodeAt(0); // flattens the concatenation
  return id;
}
