/**
 * What the examples with a page (ag-ui, ai-sdk-chat) share: their page bundled with esbuild into a
 * temporary folder, served beside their app by `createApp` on 127.0.0.1. Nothing built is kept in
 * the repository.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import type { BaseAgent, BaseLlm } from '@troupe/core';
import { createApp, serve } from '@troupe/server';

/** Where an example listens and which model its app uses by default. */
export interface ExampleOptions {
  /** @default 8000 (0 picks a free port) */
  port?: number;
  /** @default 'offline' */
  defaultModel?: BaseLlm | string;
}

/** Options of {@link serveBundledPage}. */
export interface BundledPageOptions extends ExampleOptions {
  /** The page's script, bundled into `main.js`. */
  entryPoint: URL;
  /** The page's HTML, served as `index.html`. */
  html: URL;
  /** Prefix of the temporary folder the page is built into. */
  tempPrefix: string;
  /** More esbuild options (JSX, defines). */
  esbuild?: Pick<BuildOptions, 'jsx' | 'define'>;
  /** The apps served, by name. */
  apps: Record<string, BaseAgent>;
}

/** Builds the page and serves it with the apps; `close` stops both and removes the build. */
export async function serveBundledPage(options: BundledPageOptions): Promise<{ url: string; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), options.tempPrefix));
  await build({
    entryPoints: [fileURLToPath(options.entryPoint)],
    outfile: join(dir, 'main.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    ...options.esbuild,
    minify: true,
    logLevel: 'warning',
  });
  await copyFile(fileURLToPath(options.html), join(dir, 'index.html'));
  const app = createApp({
    apps: options.apps,
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
