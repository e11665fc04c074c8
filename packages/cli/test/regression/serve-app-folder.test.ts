import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';

// In a project made by `troupe create` (agent.ts at the top of the folder), `troupe run .` ran the
// agent while `troupe api .` and `troupe web .` found no app: they took `.` for a folder of app
// folders. A folder that is itself an app (its own entry file, no app folders inside) is now served
// as that one app, under the folder's name, as `troupe run .` names it.

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const bin = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** A project folder as `troupe create` makes it, inside the repository so that it resolves @troupe/core. */
function createdProject(): string {
  const project = tempDir('my-agents-', join(repo, 'node_modules', '.cache'));
  writeFileSync(
    join(project, 'agent.ts'),
    [
      "import { LlmAgent } from '@troupe/core';",
      "export const rootAgent = new LlmAgent({ name: 'Helper', instruction: 'Help the user.' });",
      '',
    ].join('\n'),
  );
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-agents', type: 'module' }));
  return project;
}

/** Starts the built `troupe <mode> . --port 0 --memory` in `cwd`; resolves once it printed its URL. */
async function serve(
  mode: 'api' | 'web',
  cwd: string,
): Promise<{ url: string; out: () => string; child: ChildProcess }> {
  const child = spawn(process.execPath, [bin, mode, '.', '--port', '0', '--memory'], { cwd });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /Troupe (?:API|dev UI): (http:\/\/[^/\s]+)/.exec(out);
      if (match && out.includes('Press Ctrl-C')) resolve(match[1]!);
    };
    child.stdout.on('data', check);
    void exited.then((code) => reject(new Error(`troupe ${mode} . exited (${code}) before listening: ${out} ${err}`)));
  });
  return { url, out: () => out, child };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGINT');
  await exited;
}

describe('troupe api . and troupe web . inside a created project', () => {
  for (const mode of ['api', 'web'] as const) {
    it(`troupe ${mode} . serves the folder's agent.ts as its one app, named after the folder as troupe run . names it`, async () => {
      if (mode === 'web') expect(existsSync(join(repo, 'packages/server/dist/ui/index.html'))).toBe(true);
      const project = createdProject();
      const appName = basename(project);
      const server = await serve(mode, project);
      try {
        expect(server.out()).toContain(`App ${appName} from .\n`);
        expect(await (await fetch(`${server.url}/list-apps`)).json()).toEqual([appName]);
        const session = (await (
          await fetch(`${server.url}/apps/${appName}/users/u/sessions`, { method: 'POST' })
        ).json()) as { id: string };
        const run = await fetch(`${server.url}/run`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            appName,
            userId: 'u',
            sessionId: session.id,
            newMessage: { role: 'user', parts: [{ text: 'hello' }] },
          }),
        });
        expect(run.status).toBe(200);
        const events = (await run.json()) as { author: string }[];
        expect(events.at(-1)!.author).toBe('Helper');
      } finally {
        await stop(server.child);
      }
    });
  }
});
