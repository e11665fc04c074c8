import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      // Tests run against the TypeScript sources; the published packages point at dist/.
      { find: /^@troupe\/core\/stores$/, replacement: src('./packages/core/src/stores/index.ts') },
      { find: /^@troupe\/core\/patterns$/, replacement: src('./packages/core/src/patterns/index.ts') },
      { find: /^@troupe\/core\/testing$/, replacement: src('./packages/core/src/testing/index.ts') },
      { find: /^@troupe\/core$/, replacement: src('./packages/core/src/index.ts') },
      { find: /^@troupe\/models\/(openai|gemini|anthropic|ai-sdk)$/, replacement: src('./packages/models/src/$1/index.ts') },
      { find: /^@troupe\/models$/, replacement: src('./packages/models/src/index.ts') },
      { find: /^@troupe\/server$/, replacement: src('./packages/server/src/index.ts') },
      { find: /^@troupe\/sqlite$/, replacement: src('./packages/sqlite/src/index.ts') },
      { find: /^@troupe\/eval$/, replacement: src('./packages/eval/src/index.ts') },
      { find: /^@troupe\/mcp$/, replacement: src('./packages/mcp/src/index.ts') },
      { find: /^@troupe\/otel$/, replacement: src('./packages/otel/src/index.ts') },
      { find: /^@troupe\/queue$/, replacement: src('./packages/queue/src/index.ts') },
      { find: /^@troupe\/postgres$/, replacement: src('./packages/postgres/src/index.ts') },
      { find: /^@troupe\/a2a$/, replacement: src('./packages/a2a/src/index.ts') },
    ],
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'examples/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    pool: 'threads',
    maxWorkers: 2,
  },
});
