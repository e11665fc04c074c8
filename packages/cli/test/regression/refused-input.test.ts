import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SqliteSessionService } from '@troupe/sqlite';
import { ExitCode } from '../../src/index.js';
import { tempDir, troupe } from '../helpers.js';

// `troupe run` with an --input-json the agent refuses (examples/team-yaml takes { sections: [...] })
// left a new, empty session in .troupe/troupe.db (and said "new session ..." for it), and printed
// the offline model's "Note:" before the usage error, as if the run had started. Now a refused input
// leaves no session, and the note comes only once a run starts.

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const teamYaml = join(repo, 'examples', 'team-yaml');

async function storedSessions(cwd: string): Promise<string[]> {
  const path = join(cwd, '.troupe', 'troupe.db');
  if (!existsSync(path)) return [];
  const store = new SqliteSessionService({ path });
  try {
    return (await store.listSessions({ appName: 'team-yaml', userId: 'user' })).sessions.map((s) => s.id);
  } finally {
    await store.close();
  }
}

describe('troupe run with a structured input that is refused', () => {
  it.each([
    ['the agent refuses it', '{"sections": "intro"}'],
    ['it is not an object', '[1, 2]'],
  ])('when %s: exit 2, the usage error alone on stderr, and no session stored', async (_case, value) => {
    const cwd = tempDir('troupe-refused-input-');
    const result = await troupe(cwd, 'run', teamYaml, '--input-json', value);
    expect(result.code).toBe(ExitCode.usage);
    expect(result.err).toMatch(new RegExp(`^troupe: --input-json '${value.replace(/[[\]{}]/g, '\\$&')}'`));
    expect(result.err.trimEnd().split('\n')).toHaveLength(1);
    expect(result.out).toBe('');
    expect(await storedSessions(cwd)).toEqual([]);
  });

  it('a --session that did not exist is not created by a refused input', async () => {
    const cwd = tempDir('troupe-refused-input-');
    const result = await troupe(cwd, 'run', teamYaml, '--session', 's1', '--input-json', '{"sections": "intro"}');
    expect(result.code).toBe(ExitCode.usage);
    expect(result.err).not.toContain('new session');
    expect(await storedSessions(cwd)).toEqual([]);
  });

  it('a session that existed keeps what it had', async () => {
    const cwd = tempDir('troupe-refused-input-');
    const sections = '{"sections": [{"title": "intro"}]}';
    expect((await troupe(cwd, 'run', teamYaml, '--session', 's1', '--input-json', sections)).code).toBe(ExitCode.ok);
    const refused = await troupe(cwd, 'run', teamYaml, '--session', 's1', '--input-json', '{"sections": "intro"}');
    expect(refused.code).toBe(ExitCode.usage);
    expect(await storedSessions(cwd)).toEqual(['s1']);
  });

  it('an accepted input still gets the offline-model note, before its answer', async () => {
    const cwd = tempDir('troupe-refused-input-');
    const result = await troupe(cwd, 'run', teamYaml, '--input-json', '{"sections": [{"title": "intro"}]}');
    expect(result.code).toBe(ExitCode.ok);
    expect(result.err.match(/^Note: .* will answer with the offline demo model/gm)).toHaveLength(1);
    expect(await storedSessions(cwd)).toHaveLength(1);
  });
});
