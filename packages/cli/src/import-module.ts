import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';

/** File extensions that are TypeScript and need tsx to load. */
export const TYPESCRIPT_EXTENSIONS: ReadonlySet<string> = new Set(['.ts', '.mts', '.cts']);

/** File extensions Node loads by itself. */
export const JAVASCRIPT_EXTENSIONS: ReadonlySet<string> = new Set(['.js', '.mjs', '.cjs']);

let typescriptEnabled: Promise<void> | undefined;

/**
 * Imports a module file and returns its namespace. TypeScript files are compiled on the fly by tsx,
 * which is loaded only the first time a TypeScript file is imported.
 */
export async function importModule(file: string): Promise<Record<string, unknown>> {
  if (TYPESCRIPT_EXTENSIONS.has(extname(file))) await enableTypeScript();
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}

/**
 * Registers tsx's ESM hooks for the rest of the process (once). Two choices keep one copy of
 * `@troupe/core` shared by the CLI and the agent (the runner relies on `instanceof`, the model
 * registry and module-level maps being the agent's own):
 * - tsx's `tsImport` would load the file in its own namespace, with a second copy of every package
 *   it imports, so the hooks are registered globally instead;
 * - tsconfig `paths` could point `@troupe/core` at other files (this repository maps it to the
 *   sources), so no tsconfig is read unless `TSX_TSCONFIG_PATH` names one.
 */
export async function enableTypeScript(): Promise<void> {
  typescriptEnabled ??= import('tsx/esm/api').then(({ register }) => {
    register({ tsconfig: process.env.TSX_TSCONFIG_PATH ?? false });
  });
  await typescriptEnabled;
}
