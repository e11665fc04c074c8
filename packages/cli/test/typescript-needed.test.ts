import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { typescriptNeeded } from '../src/typescript-needed.js';
import { tempDir } from './helpers.js';

// `troupe api` registers tsx (a hooks thread of ~35 MB resident) only when an app may need it.
function appsFolder(apps: Record<string, Record<string, string>>): string {
  const root = tempDir('troupe-ts-needed-');
  for (const [app, files] of Object.entries(apps)) {
    mkdirSync(join(root, app));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(root, app, name), text);
  }
  return root;
}

describe('typescriptNeeded', () => {
  it('is false for apps written in JavaScript only', async () => {
    const root = appsFolder({ weather: { 'agent.mjs': 'export const rootAgent = 1;', 'tools.js': '' } });
    expect(await typescriptNeeded(root, 'directory')).toBe(false);
  });

  it('is true when an app folder holds TypeScript (a .js entry may import it)', async () => {
    const root = appsFolder({
      plain: { 'agent.mjs': '' },
      typed: { 'agent.js': '', 'tools.ts': 'export const x = 1;' },
    });
    expect(await typescriptNeeded(root, 'directory')).toBe(true);
  });

  it('is true when an app is a YAML definition (it may name .ts tools)', async () => {
    const root = appsFolder({ team: { 'root_agent.yaml': 'name: Team\nmodel: offline\n' } });
    expect(await typescriptNeeded(root, 'directory')).toBe(true);
  });

  it('ignores folders that are not apps and type declarations', async () => {
    const root = appsFolder({ notes: { 'draft.ts': '' }, lib: { 'agent.mjs': '', 'agent.d.ts': '' } });
    expect(await typescriptNeeded(root, 'directory')).toBe(false);
  });

  it('for one agent file, follows its extension', async () => {
    expect(await typescriptNeeded('/apps/agent.ts', 'file')).toBe(true);
    expect(await typescriptNeeded('/apps/team.yaml', 'file')).toBe(true);
    expect(await typescriptNeeded('/apps/agent.mjs', 'file')).toBe(false);
  });
});
