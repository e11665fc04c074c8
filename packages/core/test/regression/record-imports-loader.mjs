// A module loader hook for import-weight.test.ts: appends each bare package a module imports to
// the file named by TROUPE_RECORD_IMPORTS (written at once: the hooks may run on a thread of their
// own, whose stderr is not flushed before a short-lived process exits).
import { appendFileSync } from 'node:fs';
import process from 'node:process';

export async function resolve(specifier, context, next) {
  if (/^[a-z@]/.test(specifier) && !specifier.startsWith('node:'))
    appendFileSync(process.env.TROUPE_RECORD_IMPORTS, `${specifier}\n`);
  return next(specifier, context);
}
