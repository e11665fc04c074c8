import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverApps, findAppEntry } from '../src/index.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An agents directory with these folders and files. */
function agentsDir(folders: Record<string, Record<string, string>>): string {
  dir = mkdtempSync(join(tmpdir(), 'troupe-discovery-'));
  for (const [folder, files] of Object.entries(folders)) {
    mkdirSync(join(dir, folder));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, folder, name), text);
  }
  return dir;
}

const importModule = () => Promise.reject(new Error('discovery must not import anything'));

describe('app folders whose root is a YAML definition under another name', () => {
  it('finds the one definition no other definition of the folder names, and only that', async () => {
    const root = agentsDir({
      team: {
        'team.yaml': 'type: team\nname: writers\nskills:\n  - chat.yaml\n  - ./review.yml\n',
        'chat.yaml': 'name: chat\ninstruction: Write.\n',
        'review.yml': 'name: review\ninstruction: Review.\n',
      },
      // Two roots: which one is the app would be a guess.
      twins: { 'a.yaml': 'name: a\n', 'b.yaml': 'name: b\n' },
      // YAML that is not an agent definition (no top-level name) does not make an app.
      config: { 'compose.yaml': 'services:\n  db:\n    image: postgres\n' },
      // agent.* entries come first, as before.
      plain: { 'agent.yaml': 'name: plain\n', 'helper.yaml': 'name: helper\n' },
    });
    expect(await findAppEntry(join(root, 'team'))).toBe(join(root, 'team', 'team.yaml'));
    expect(await findAppEntry(join(root, 'twins'))).toBeUndefined();
    expect(await findAppEntry(join(root, 'config'))).toBeUndefined();
    expect(await findAppEntry(join(root, 'plain'))).toBe(join(root, 'plain', 'agent.yaml'));
    const apps = await discoverApps(root, { importModule });
    expect(apps.map(({ name, file }) => [name, file.slice(root.length + 1)])).toEqual([
      ['plain', join('plain', 'agent.yaml')],
      ['team', join('team', 'team.yaml')],
    ]);
  });
});
