/**
 * Serves the AG-UI example: bundles the page (`page/main.mts`, which uses @ag-ui/client) with
 * esbuild into a temporary folder, and serves it beside the concierge app with `createApp`, whose
 * `POST /ag-ui/concierge` the page talks to. Nothing built is kept in the repository.
 *
 * Try: npx tsx examples/ag-ui/server.ts, then open http://127.0.0.1:8000 and say "Book a table for
 * 2 people" or "Show a note: buy flowers". Without a model configured the app runs on the offline
 * model (not an LLM); `startExample({ defaultModel: 'gemini/gemini-2.5-flash' })` uses a real one.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { BaseLlm } from '@troupe/core';
import { createApp, serve } from '@troupe/server';
import { rootAgent } from './agent.js';

/** Options of {@link startExample}. */
export interface ExampleOptions {
  /** @default 8000 (0 picks a free port) */
  port?: number;
  /** @default 'offline' */
  defaultModel?: BaseLlm | string;
}

/** Builds the page and serves it with the app on 127.0.0.1; `close` stops both and removes the build. */
export async function startExample(options: ExampleOptions = {}): Promise<{ url: string; close(): Promise<void> }> {
  const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
  const dir = await mkdtemp(join(tmpdir(), 'troupe-ag-ui-example-'));
  await build({
    entryPoints: [here('./page/main.mts')],
    outfile: join(dir, 'main.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    minify: true,
    logLevel: 'warning',
  });
  await copyFile(here('./page/index.html'), join(dir, 'index.html'));
  const app = createApp({
    apps: { concierge: rootAgent },
    defaultModel: options.defaultModel ?? 'offline',
    staticDir: dir,
  });
  const server = await serve(app, { port: options.port ?? 8000 });
  return {
    url: server.url,
    close: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { url } = await startExample({ port: Number(process.env.PORT ?? 8000) });
  console.log(`Chez Troupe (AG-UI example) is open at ${url}`);
}
