import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      // Tests run against the TypeScript sources; the published packages point at dist/.
      { find: /^@troupe\/core\/testing$/, replacement: src('./packages/core/src/testing/index.ts') },
      { find: /^@troupe\/core$/, replacement: src('./packages/core/src/index.ts') },
    ],
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'examples/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    pool: 'threads',
    maxWorkers: 2,
  },
});
