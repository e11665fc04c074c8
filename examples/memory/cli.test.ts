/**
 * The README's two commands as two `troupe run` processes over one SQLite file, with the offline
 * model (no network, no key): the first tells the assistant a fact, the CLI adds that session to
 * memory when the turn ends, and the second process, in a new session, finds the fact through
 * `load_memory`. They run the built CLI (npm run build).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TROUPE = fileURLToPath(new URL('../../packages/cli/bin/troupe.js', import.meta.url));
const BUILT = fileURLToPath(new URL('../../packages/cli/dist/main.js', import.meta.url));
const run = promisify(execFile);

interface StoredEvent {
  author: string;
  content?: {
    parts: {
      text?: string;
      functionCall?: { name: string; args: Record<string, unknown> };
      functionResponse?: { name: string; response: { memories?: { content: string; author: string }[] } };
    }[];
  };
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function troupeRun(db: string, message: string): Promise<StoredEvent[]> {
  if (!existsSync(BUILT))
    throw new Error(`This test runs the built CLI and ${BUILT} is missing. Run npm run build first.`);
  const { stdout } = await run(
    process.execPath,
    [TROUPE, 'run', 'examples/memory', '--db', db, '--input', message, '--json'],
    { cwd: ROOT, timeout: 60_000 },
  );
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as StoredEvent);
}

describe('examples/memory: two troupe run processes over one SQLite file', () => {
  it('the second process, in a new session, recalls what the first was told', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-memory-example-'));
    dirs.push(dir);
    const db = join(dir, 'troupe.db');

    const first = await troupeRun(db, 'Remember this: my favourite city is Lisbon.');
    expect(first.flatMap((e) => e.content?.parts ?? []).some((p) => p.functionCall)).toBe(false);

    const second = await troupeRun(db, 'Check your memory: what is my favourite city?');
    const parts = second.flatMap((e) => e.content?.parts ?? []);
    expect(parts.flatMap((p) => (p.functionCall ? [p.functionCall.name] : []))).toEqual(['load_memory']);
    const memories = parts.find((p) => p.functionResponse)!.functionResponse!.response.memories!;
    expect(memories).toContainEqual(
      expect.objectContaining({ author: 'user', content: 'Remember this: my favourite city is Lisbon.' }),
    );
    // The offline model's answer summarises what load_memory returned.
    expect(second.at(-1)!.content!.parts[0]!.text).toMatch(
      /^Here is what I found: load_memory returned .*my favourite city is Lisbon/,
    );
  });
});
