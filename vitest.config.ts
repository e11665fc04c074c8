import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

function withoutModule(conditions: readonly string[]): string[] {
  return conditions.filter((condition) => condition !== 'module');
}

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources through the `@troupe/source` export condition
  // (first in every package.json "exports" entry; namespaced, as Zod's `@zod/source`, because other packages
  // publish a plain `source` condition pointing at TypeScript). Without it, as when published, they resolve to dist/.
  // The rest are the conditions Vitest uses by default (Vite's, without `module`).
  resolve: { conditions: ['@troupe/source', ...withoutModule(defaultClientConditions)] },
  ssr: { resolve: { conditions: ['@troupe/source', ...withoutModule(defaultServerConditions)] } },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/*/test/**/*.test.ts',
      'examples/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    // One line per group of suites skipped for a missing service (outside CI only).
    globalSetup: ['test/skipped-services.ts'],
    testTimeout: 20_000,
    pool: 'threads',
    maxWorkers: 2,
  },
});
