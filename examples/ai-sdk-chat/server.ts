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
import { pathToFileURL } from 'node:url';
import { type ExampleOptions, serveBundledPage } from '../bundled-page.js';
import { rootAgent } from './agent.js';

export type { ExampleOptions };

/** Builds the page and serves it with the app on 127.0.0.1; `close` stops both and removes the build. */
export function startExample(options: ExampleOptions = {}): Promise<{ url: string; close(): Promise<void> }> {
  return serveBundledPage({
    entryPoint: new URL('./page/main.tsx', import.meta.url),
    html: new URL('./page/index.html', import.meta.url),
    tempPrefix: 'troupe-ai-sdk-example-',
    esbuild: {
      jsx: 'automatic',
      // React reads process.env.NODE_ENV, which a browser does not have.
      define: { 'process.env.NODE_ENV': '"production"' },
    },
    apps: { 'box-office': rootAgent },
    ...options,
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { url } = await startExample({ port: Number(process.env.PORT ?? 8000) });
  console.log(`The Troupe Theatre box office (AI SDK example) is open at ${url}`);
}
