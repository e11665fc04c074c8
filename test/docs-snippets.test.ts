import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// Every ```ts block in docs/*.md and README.md is a runnable example: it is written to a file
// and imported, so a snippet that stops compiling or whose assertions fail breaks the build.
// Blocks fenced as ```ts nocheck are shown only (e.g. ones that need an API key).
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'test', '.snippets');
const sources = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
];

function snippets(markdown: string): { line: number; code: string }[] {
  const found: { line: number; code: string }[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```ts') continue;
    const start = i + 1;
    const body: string[] = [];
    for (i = start; i < lines.length && lines[i]!.trim() !== '```'; i++) body.push(lines[i]!);
    found.push({ line: start + 1, code: body.join('\n') });
  }
  return found;
}

mkdirSync(outDir, { recursive: true });
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

// Pages without runnable blocks (command-line docs, say) have nothing to run.
const pages = sources
  .map((source) => ({ source, blocks: snippets(readFileSync(join(root, source), 'utf8')) }))
  .filter((page) => page.blocks.length > 0);

describe.each(pages)('$source snippets', ({ source, blocks }) => {
  it.each(blocks.map((b) => [b.line, b.code] as const))('block at line %i runs', async (line, code) => {
    const file = join(outDir, `${source.replace(/[/.]/g, '_')}_${line}.ts`);
    writeFileSync(file, code);
    await expect(import(file)).resolves.toBeDefined();
  });
});
