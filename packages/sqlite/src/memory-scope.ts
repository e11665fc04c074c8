import { createHash } from 'node:crypto';

/**
 * One token for an app and user: `s` and 32 hex digits of the SHA-256 of both names (letters and
 * digits only, so FTS5's tokenizer keeps it whole). It scopes a user's entries in the full-text
 * index and partitions the sqlite-vec table; the exact names are checked too, on the join.
 */
export function scopeToken(appName: string, userId: string): string {
  return `s${createHash('sha256')
    .update(JSON.stringify([appName, userId]))
    .digest('hex')
    .slice(0, 32)}`;
}
