/**
 * Serves the AI SDK chat example: bundles the React page (`page/main.tsx`, which uses `useChat` from
 * @ai-sdk/react) with esbuild into a temporary folder, and serves it beside the box-office app with
 * `createApp`, whose `POST /apps/box-office/users/{user}/sessions/{id}/chat` the page talks to.
 * Nothing built is kept in the repository.
 *
 * Try: npx tsx examples/ai-sdk-chat/server.ts, then open http://127.0.0.1:8000 and say "Hello" or
 * "Reserve 2 tickets". Without a model configured the app runs on the offline model (not an LLM);
 * `startExample({ defaultModel: 'gemini/gemini-2.5-flash' })` uses a real one.
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
  const dir = await mkdtemp(join(tmpdir(), 'troupe-ai-sdk-example-'));
  await build({
    entryPoints: [here('./page/main.tsx')],
    outfile: join(dir, 'main.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    jsx: 'automatic',
    // React reads process.env.NODE_ENV, which a browser does not have.
    define: { 'process.env.NODE_ENV': '"production"' },
    minify: true,
    logLevel: 'warning',
  });
  await copyFile(here('./page/index.html'), join(dir, 'index.html'));
  const app = createApp({
    apps: { 'box-office': rootAgent },
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
  console.log(`The Troupe Theatre box office (AI SDK example) is open at ${url}`);
}
