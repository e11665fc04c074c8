// A module loader hook for import-weight.test.ts: prints each bare package a module imports.
import process from 'node:process';
export async function resolve(specifier, context, next) {
  if (/^[a-z@]/.test(specifier) && !specifier.startsWith('node:')) process.stderr.write(`import ${specifier}\n`);
  return next(specifier, context);
}
