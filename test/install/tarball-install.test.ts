// Installs Troupe the way a user outside this repository does: `troupe create --local` packs every
// package (npm pack) into a new project under the OS temp folder, `npm install` installs those
// tarballs, and the project's own scripts and the README's first example run there with node.
// One project, packed and installed once, serves every test below.
import { execFile, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode, runCli } from '@troupe/cli';
import { fakeIo } from '../../packages/cli/test/helpers.js';
import { firstTypeScriptExample } from './readme-example.js';
import { userEnv } from './user-env.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'troupe-install-'));
const project = join(scratch, 'demo-agents');
// node_modules holds thousands of files: removed without blocking, with time to finish.
afterAll(() => rm(scratch, { recursive: true, force: true }), 120_000);

const inProject = { cwd: project, env: userEnv(), timeout: 90_000 };

beforeAll(async () => {
  // The tarballs hold dist/: build it when this run has none (npm test builds first anyway).
  const built = ['core', 'cli', 'server', 'sqlite'].every((name) => {
    try {
      return readdirSync(join(repo, 'packages', name, 'dist')).length > 0;
    } catch {
      return false;
    }
  });
  if (!built) await run('npm', ['run', 'build'], { cwd: repo, timeout: 240_000 });

  const io = fakeIo(scratch);
  const code = await runCli(['create', 'demo-agents', '--local'], io);
  expect(io.err()).toBe('');
  expect(code).toBe(ExitCode.ok);
  // Cached third-party packages are used without asking the registry; missing ones are fetched.
  // Install scripts are skipped: the only one the app needs builds better-sqlite3's addon, which
  // takes minutes here and is the same file this checkout already built (see nativeAddons).
  const install = await run(
    'npm',
    ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel', 'warn'],
    {
      ...inProject,
      timeout: 540_000,
    },
  );
  // npm read every tarball of vendor/ where it is: an override of an optional peer used to send it
  // to the depending package's folder, and it warned that the tarball "seems to be corrupted".
  expect(install.stderr).not.toMatch(/tarball|corrupt/i);
  await nativeAddons();
}, 600_000);

/**
 * better-sqlite3's compiled addon in the project: copied from this checkout's install when both
 * hold the same version (same Node, same machine, so the same file a compile would make), else
 * built there with `npm rebuild`. What the test checks is our packaging, not node-gyp.
 */
async function nativeAddons(): Promise<void> {
  const addon = join('node_modules', 'better-sqlite3');
  const version = (dir: string) =>
    (JSON.parse(readFileSync(join(dir, addon, 'package.json'), 'utf8')) as { version: string }).version;
  const built = join(repo, addon, 'build', 'Release', 'better_sqlite3.node');
  if (existsSync(built) && version(repo) === version(project)) {
    mkdirSync(join(project, addon, 'build', 'Release'), { recursive: true });
    copyFileSync(built, join(project, addon, 'build', 'Release', 'better_sqlite3.node'));
  } else {
    await run('npm', ['rebuild', 'better-sqlite3'], { ...inProject, timeout: 540_000 });
  }
}

/** The files of a tarball, without npm's `package/` prefix. */
async function tarballFiles(tarball: string): Promise<Set<string>> {
  const { stdout } = await run('tar', ['-tzf', tarball], { maxBuffer: 16 * 1024 * 1024 });
  return new Set(
    stdout
      .split('\n')
      .filter(Boolean)
      .map((path) => path.replace(/^package\//, '')),
  );
}

/** Every file an exports map or bin names (`./dist/index.js` -> `dist/index.js`). */
function namedFiles(manifest: { exports?: unknown; bin?: Record<string, string> }): string[] {
  const targets: string[] = Object.values(manifest.bin ?? {});
  const visit = (value: unknown): void => {
    if (typeof value === 'string') targets.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(visit);
  };
  visit(manifest.exports);
  return targets.map((target) => target.replace(/^\.\//, ''));
}

describe('the packed packages', () => {
  it('are every workspace package, each with LICENSE, README.md, its exports and bin, and publishing fields', async () => {
    const workspaces = readdirSync(join(repo, 'packages')).sort();
    const manifests = workspaces.map((name) =>
      JSON.parse(readFileSync(join(repo, 'packages', name, 'package.json'), 'utf8')),
    );
    const tarballOf = (name: string, version: string): string => `troupe-${name}-${version}.tgz`;
    const tarballs = readdirSync(join(project, 'vendor')).sort();
    expect(tarballs).toEqual(workspaces.map((name, i) => tarballOf(name, manifests[i].version)));
    for (const [i, name] of workspaces.entries()) {
      const manifest = manifests[i];
      const files = await tarballFiles(join(project, 'vendor', tarballOf(name, manifest.version)));
      const missing = ['LICENSE', 'README.md', 'package.json', ...namedFiles(manifest)].filter((f) => !files.has(f));
      expect({ name, missing }).toEqual({ name, missing: [] });
      expect([...files].filter((f) => /\.test\.|tsbuildinfo|^test\//.test(f))).toEqual([]);
      expect(manifest).toMatchObject({
        license: 'Apache-2.0',
        engines: { node: expect.any(String) },
        publishConfig: { access: 'public' },
        repository: { type: 'git', url: expect.stringMatching(/^git\+https:/), directory: `packages/${name}` },
      });
    }
  });
});

describe('a project installed from the tarballs', () => {
  it('runs the README example with node', async () => {
    writeFileSync(join(project, 'readme-example.ts'), firstTypeScriptExample(join(repo, 'README.md')));
    // tsx (a dependency of @troupe/cli) lets node run the TypeScript example as written.
    const result = await run(process.execPath, ['--import', 'tsx', 'readme-example.ts'], inProject);
    expect(result.stderr).toBe('');
    // The installed @troupe/core's published types check the example too.
    await run('npm', ['run', 'typecheck'], inProject);
    rmSync(join(project, 'readme-example.ts'));
  }, 180_000);

  it('passes its own npm test', async () => {
    const { stdout } = await run('npm', ['test'], inProject);
    expect(stdout).toMatch(/Tests\s+1 passed/);
  }, 120_000);

  let sessionId = '';
  it('answers a message with npm start, keeping the session in .troupe/troupe.db', async () => {
    const { stdout, stderr } = await run('npm', ['start', '--', '--input', 'hi'], inProject);
    expect(stdout).toContain('(offline model, not an LLM)');
    sessionId = /session: (\S+)/.exec(stderr)?.[1] ?? '';
    expect(sessionId).not.toBe('');
  }, 120_000);

  it('lists that session in npm run web', async () => {
    expect(sessionId).not.toBe('');
    // Its own process group, so the test ends npm and the server it started, and nothing else.
    const web = spawn('npm', ['run', 'web', '--', '--port', '0'], { ...inProject, detached: true });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`npm run web printed no URL in 60 s: ${out}`)), 60_000);
        web.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const found = /Troupe dev UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (found) {
            clearTimeout(timer);
            resolve(found[1]!);
          }
        });
        web.on('exit', (code) => reject(new Error(`npm run web exited with ${code}: ${out}`)));
      });
      const response = await fetch(`${url}/apps/demo-agents/users/user/sessions`, {
        signal: AbortSignal.timeout(10_000),
      });
      expect(response.status).toBe(200);
      const sessions = (await response.json()) as { id: string }[];
      expect(sessions.map((session) => session.id)).toContain(sessionId);
    } finally {
      process.kill(-web.pid!, 'SIGTERM');
    }
  }, 90_000);
});
