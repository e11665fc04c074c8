/**
 * Troupe's error codes are one closed list: `ERROR_CODES` in @troupe/core. The compiler checks
 * every `new TroupeError(code)` and `new HttpError(status, code)` against it; this test checks what
 * the compiler cannot see (codes written on events, run records and A2A tasks, codes compared
 * against), that each code's class exists, and that docs/errors.md documents each code with its class.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES, isErrorCode } from '@troupe/core';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/** Codes that are not Troupe's, read from a caught error's `code`: the OS's (ENOENT), Node's (ERR_..., MODULE_NOT_FOUND), SQLite's. */
const FOREIGN_CODE = /^(?:E[A-Z]+|EAI_AGAIN|ERR_\w+|MODULE_NOT_FOUND|SQLITE_\w+)$/;

/** Where a string literal is an error code: thrown with, stored as, or compared with one. */
const CODE_SITES = [
  /\b(?:TroupeError|HttpError|RemoteA2aError|super)\(\s*(?:\d{3},\s*)?'([A-Z][A-Z0-9_]{2,})'/g,
  /\b(?:errorCode|code)\s*(?::|===|!==|\?\?)\s*'([A-Z][A-Z0-9_]{2,})'/g,
  /\bcase '([A-Z][A-Z0-9_]{2,})':/g,
];

function sourceFiles(dir: string): string[] {
  return (
    readdirSync(dir, { withFileTypes: true, recursive: true })
      // The contract suites under testing/contracts are tests: their codes are made-up values to store.
      .filter(
        (entry) =>
          entry.isFile() &&
          /\.tsx?$/.test(entry.name) &&
          !/\.test\.tsx?$/.test(entry.name) &&
          !entry.parentPath.includes('contracts'),
      )
      .map((entry) => join(entry.parentPath, entry.name))
  );
}

function codesInSources(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const pkg of readdirSync(join(root, 'packages'))) {
    for (const file of sourceFiles(join(root, 'packages', pkg, 'src'))) {
      const text = readFileSync(file, 'utf8');
      for (const site of CODE_SITES) {
        for (const match of text.matchAll(site)) {
          const code = match[1]!;
          found.set(code, [...(found.get(code) ?? []), file.slice(root.length + 1)]);
        }
      }
    }
  }
  return found;
}

describe('error codes', () => {
  it('every code thrown, stored or compared in packages/*/src is in ERROR_CODES', () => {
    const found = codesInSources();
    expect(found.size).toBeGreaterThan(40);
    const unknown = [...found]
      .filter(([code]) => !isErrorCode(code) && !FOREIGN_CODE.test(code))
      .map(([code, files]) => `${code} (${[...new Set(files)].join(', ')})`);
    expect(
      unknown,
      'Add these codes to ERROR_CODES in packages/core/src/error-codes.ts and to docs/errors.md, or use an existing code',
    ).toEqual([]);
  });

  it('every class named in ERROR_CODES is declared in a package, extending TroupeError or another error class', () => {
    const declared = new Set<string>(['TroupeError']);
    for (const pkg of readdirSync(join(root, 'packages'))) {
      for (const file of sourceFiles(join(root, 'packages', pkg, 'src'))) {
        for (const match of readFileSync(file, 'utf8').matchAll(/\bclass (\w+Error) extends \w+Error\b/g))
          declared.add(match[1]!);
      }
    }
    const classes = new Set(Object.values(ERROR_CODES).filter((name) => name !== null));
    expect([...classes].filter((name) => !declared.has(name))).toEqual([]);
  });

  it('docs/errors.md documents every code with its class, and no other code', () => {
    const docs = readFileSync(join(root, 'docs', 'errors.md'), 'utf8');
    const rows = new Map<string, string>();
    for (const match of docs.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| (`\w+`|—) \|/gm)) rows.set(match[1]!, match[2]!);
    const expected = new Map(
      Object.entries(ERROR_CODES).map(([code, name]) => [code, name === null ? '—' : `\`${name}\``]),
    );
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(expected));
  });

  it('isErrorCode accepts the list and nothing else', () => {
    expect(isErrorCode('SESSION_EXISTS')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode('NOT_A_CODE')).toBe(false);
    expect(isErrorCode(42)).toBe(false);
  });
});
