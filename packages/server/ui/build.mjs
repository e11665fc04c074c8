#!/usr/bin/env node
// Bundles the dev UI (ui/src, TypeScript + Preact) into dist/ui/{index.html, app.js, app.css}, which
// `troupe web` serves with createApp's staticDir. esbuild only strips types; the UI is type-checked
// by `npm run typecheck` (tsc -p packages/server/ui).
import { copyFile, mkdir } from 'node:fs/promises';
import { URL, fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const outdir = here('../dist/ui/');

await mkdir(outdir, { recursive: true });
await Promise.all([
  build({
    entryPoints: [here('./src/main.tsx')],
    // Its `paths` map @troupe/core/progress-words to core's source: the one module of core bundled.
    tsconfig: here('./tsconfig.json'),
    outfile: `${outdir}app.js`,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  }),
  copyFile(here('./index.html'), `${outdir}index.html`),
  copyFile(here('./app.css'), `${outdir}app.css`),
]);
