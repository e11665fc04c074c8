/**
 * The public API, pinned: every export of every package entry point (each "exports" subpath of each
 * packages/*\/package.json), values and types, compared with the committed report public-api.json.
 * A change to the public surface is then a visible diff of that file, made on purpose.
 *
 * After adding, removing or renaming an export on purpose, regenerate the report and commit it:
 *
 *     UPDATE_API_REPORT=1 npx vitest run test/api/public-api.test.ts
 *
 * Names are listed as they are imported; `type X` is a type-only export (an interface or a type alias).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const reportPath = join(import.meta.dirname, 'public-api.json');

interface PackageJson {
  name: string;
  exports: Record<string, { '@troupe/source': string }>;
}

/** Each entry point (`@troupe/core/testing`) with its source file, from the packages' "exports" maps. */
function entryPoints(): Map<string, string> {
  const entries = new Map<string, string>();
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as PackageJson;
    for (const [subpath, conditions] of Object.entries(pkg.exports)) {
      entries.set(
        subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`,
        join(root, 'packages', dir, conditions['@troupe/source']),
      );
    }
  }
  return entries;
}

/** The sort key of a report line: the name, without `type `. */
function byName(line: string): string {
  return line.replace(/^type /, '');
}

/** The sorted export names of each entry point, type-only ones as `type Name`. */
function publicApi(): Record<string, string[]> {
  const entries = entryPoints();
  const program = ts.createProgram([...entries.values()], {
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    customConditions: ['@troupe/source'],
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const api: Record<string, string[]> = {};
  for (const [entry, file] of entries) {
    const source = program.getSourceFile(file);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module)
      throw new Error(
        `Cannot read the entry point ${entry} at ${file}: its package.json "exports" names a file that does not exist.`,
      );
    api[entry] = checker
      .getExportsOfModule(module)
      .map((symbol) => {
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        return target.flags & ts.SymbolFlags.Value ? symbol.name : `type ${symbol.name}`;
      })
      .sort((a, b) => byName(a).localeCompare(byName(b), 'en') || (a < b ? -1 : 1));
  }
  return api;
}

describe('public API', () => {
  it('every entry point exports exactly the names in test/api/public-api.json', { timeout: 120_000 }, () => {
    const api = publicApi();
    if (process.env.UPDATE_API_REPORT === '1') {
      writeFileSync(reportPath, `${JSON.stringify(api, null, 2)}\n`);
      return;
    }
    const report = JSON.parse(readFileSync(reportPath, 'utf8')) as Record<string, string[]>;
    expect(
      api,
      'The public exports changed. If that is intended, run `UPDATE_API_REPORT=1 npx vitest run test/api/public-api.test.ts` and commit test/api/public-api.json with the change; otherwise export only what users need',
    ).toEqual(report);
  });
});
