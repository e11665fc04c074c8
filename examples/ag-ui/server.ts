/**
 * Serves the AG-UI example: bundles the page (`page/main.mts`, which uses @ag-ui/client) with
 * esbuild into a temporary folder, and serves it beside the concierge app with `createApp`, whose
 * `POST /ag-ui/concierge` the page talks to. Nothing built is kept in the repository.
 *
 * Try: npx tsx examples/ag-ui/server.ts, then open http://127.0.0.1:8000 and say "Book a table for
 * 2 people" or "Show a note: buy flowers". Without a model configured the app runs on the offline
 * model (not an LLM); `startExample({ defaultModel: 'gemini/gemini-2.5-flash' })` uses a real one.
 */
import { pathToFileURL } from 'node:url';
import { type ExampleOptions, serveBundledPage } from '../bundled-page.js';
import { rootAgent } from './agent.js';

export type { ExampleOptions };

/** Builds the page and serves it with the app on 127.0.0.1; `close` stops both and removes the build. */
export function startExample(options: ExampleOptions = {}): Promise<{ url: string; close(): Promise<void> }> {
  return serveBundledPage({
    entryPoint: new URL('./page/main.mts', import.meta.url),
    html: new URL('./page/index.html', import.meta.url),
    tempPrefix: 'troupe-ag-ui-example-',
    apps: { concierge: rootAgent },
    ...options,
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { url } = await startExample({ port: Number(process.env.PORT ?? 8000) });
  console.log(`Chez Troupe (AG-UI example) is open at ${url}`);
}
