import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultImportModule } from '../src/discover-apps.js';
import { createApp, type AgentGraphNode, type WireEvent } from '../src/index.js';
import { call, createSession, runBody } from './helpers.js';

// Regression: `troupe web <dir>` / `troupe api <dir>` imported every top-level module of the
// folder to see whether it exported an agent, so any script lying there ran at startup. Now an
// app is a folder with an agent.* or root_agent.yaml entry, imported on first use, and nothing
// else is imported.

const agentsDir = fileURLToPath(new URL('./fixtures/discovery', import.meta.url));
let marker: string;

beforeEach(() => {
  marker = join(mkdtempSync(join(tmpdir(), 'troupe-discovery-')), 'ran.log');
  process.env.TROUPE_DISCOVERY_MARKER = marker;
});
afterEach(() => {
  delete process.env.TROUPE_DISCOVERY_MARKER;
});

const scriptsThatRan = (): string[] =>
  existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean) : [];

describe('app discovery runs no code but the entries of the apps used', () => {
  it('lists only app folders; scripts beside the apps and inside an app folder never run, also when the apps run', async () => {
    const imported: string[] = [];
    const app = createApp({
      agentsDir,
      importModule: (path) => {
        imported.push(path);
        return defaultImportModule(path);
      },
    });
    expect(await (await app.request('/list-apps')).json()).toEqual(['app_one', 'config_app']);
    expect(imported).toEqual([]); // listing imports nothing

    const session = await createSession(app, 'app_one', 'u');
    const events = (await (await call(app, 'POST', '/run', runBody(session, 'ping'))).json()) as WireEvent[];
    expect(events.at(-1)!.content!.parts).toEqual([{ text: 'one: ping' }]);
    const graph = (await (await app.request('/apps/config_app/graph')).json()) as AgentGraphNode;
    expect(graph).toMatchObject({ name: 'configured', type: 'llm', model: 'offline' });

    expect(imported.map((path) => path.slice(agentsDir.length + 1).replaceAll('\\', '/'))).toEqual([
      'app_one/agent.mjs',
    ]);
    expect(scriptsThatRan()).toEqual([]);
    // The side effects are real: importing a script does write the marker.
    await defaultImportModule(join(agentsDir, 'side-effect.mjs'));
    expect(scriptsThatRan()).toEqual(['side-effect.mjs beside the apps']);
  });

  it('a file beside the apps is not an app, even when it exports rootAgent', async () => {
    const app = createApp({ agentsDir });
    const res = await app.request('/apps/rogue/graph');
    expect(res.status).toBe(404);
    expect(scriptsThatRan()).toEqual([]);
  });
});
