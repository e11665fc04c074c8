import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode, runCli } from '../src/index.js';
import { fakeIo } from './helpers.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'troupe-create-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const run = promisify(execFile);

async function troupe(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = fakeIo(cwd);
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
}

const manifest = (
  path: string,
): { version: string; dependencies: Record<string, string>; devDependencies: Record<string, string> } =>
  JSON.parse(readFileSync(path, 'utf8'));

describe('troupe create', () => {
  it('scaffolds package.json, tsconfig.json, agent.ts, agent.test.ts, README.md and .gitignore', async () => {
    const result = await troupe(scratch, 'create', 'weather-app', '--dir', 'apps', '--published');
    expect(result.err).toBe('');
    expect(result.code).toBe(ExitCode.ok);
    expect(result.out).toContain(
      'Created weather-app (template: single) in ./apps/weather-app: .gitignore, README.md, agent.test.ts, agent.ts, package.json, tsconfig.json',
    );
    expect(result.out).toContain('cd apps/weather-app');
    const project = join(scratch, 'apps', 'weather-app');
    expect(readdirSync(project).sort()).toEqual([
      '.gitignore',
      'README.md',
      'agent.test.ts',
      'agent.ts',
      'package.json',
      'tsconfig.json',
    ]);

    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      name: string;
      type: string;
      scripts: Record<string, string>;
    } & ReturnType<typeof manifest>;
    const cli = manifest(join(repo, 'packages/cli/package.json'));
    const core = manifest(join(repo, 'packages/core/package.json'));
    const root = manifest(join(repo, 'package.json'));
    expect(pkg).toMatchObject({
      name: 'weather-app',
      type: 'module',
      scripts: {
        start: 'troupe run .',
        web: 'troupe web agent.ts --db .troupe/troupe.db',
        test: 'vitest run',
        typecheck: 'tsc --noEmit',
      },
    });
    // The ranges follow this repository's versions, so a scaffolded app installs the published packages that match the CLI.
    expect(pkg.dependencies).toEqual({
      '@troupe/cli': `^${cli.version}`,
      '@troupe/core': `^${core.version}`,
      zod: core.dependencies.zod,
    });
    expect(pkg.devDependencies).toEqual({
      '@types/node': root.devDependencies['@types/node'],
      typescript: root.devDependencies.typescript,
      vitest: root.devDependencies.vitest,
    });
    expect(readFileSync(join(project, 'README.md'), 'utf8')).toContain('# weather-app');
    expect(readFileSync(join(project, 'agent.ts'), 'utf8')).toContain("name: 'get_weather'");
  });

  it('refuses to write into a folder that is not empty, and leaves it alone', async () => {
    const taken = join(scratch, 'taken');
    mkdirSync(taken);
    writeFileSync(join(taken, 'agent.ts'), '// mine');
    const result = await troupe(scratch, 'create', 'taken', '--template', 'team');
    expect(result.code).toBe(ExitCode.usage);
    expect(result.err).toContain(
      "troupe: Folder 'taken' is not empty (it has agent.ts); troupe create never overwrites files.",
    );
    expect(readdirSync(taken)).toEqual(['agent.ts']);
    expect(readFileSync(join(taken, 'agent.ts'), 'utf8')).toBe('// mine');

    mkdirSync(join(scratch, 'empty'));
    expect((await troupe(scratch, 'create', 'empty', '--published')).code).toBe(ExitCode.ok);
  });

  it.each([
    [['create'], "'troupe create' needs one project name"],
    [
      ['create', 'My Agents'],
      "'My Agents' cannot be a package name: use lowercase letters, digits, '-', '.' and '_', starting with a letter or digit, e.g. 'my-agents'.",
    ],
    [['create', 'x', '--template', 'swarm'], "Unknown template 'swarm'. The templates are: single, pipeline, team."],
    [['create', 'x', '--force'], "Unknown option '--force' for 'troupe create'"],
    [['create', 'x', '--local', '--published'], '--local and --published contradict each other'],
  ])('exits 2 for %j', async (argv, message) => {
    const result = await troupe(scratch, ...argv);
    expect(result.code).toBe(ExitCode.usage);
    expect(result.err).toContain(message);
  });

  it('publishes every template file with @troupe/cli', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: join(repo, 'packages/cli'),
      env: userEnv(),
    });
    const packed = new Set((JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path));
    const templates = readdirSync(join(repo, 'packages/cli/templates'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(join(repo, 'packages/cli'), join(entry.parentPath, entry.name)).split(sep).join('/'));
    expect(templates.length).toBeGreaterThan(10);
    expect(templates.filter((file) => !packed.has(file))).toEqual([]);
  });

  it('prints its help', async () => {
    const result = await troupe(scratch, 'help', 'create');
    expect(result.code).toBe(ExitCode.ok);
    expect(result.out).toContain(
      'Usage: troupe create <name> [--template single|pipeline|team] [--dir parent] [--local | --published]',
    );
  });
});

/**
 * Makes a scaffolded project's dependencies resolve to this repository without a registry: its
 * node_modules links @troupe/core and @troupe/cli to the packages here (built), and vitest,
 * typescript, zod and @types/node to the repository's copies, with the bins npm would link.
 */
function linkDependencies(project: string): void {
  const links: [string, string][] = [
    ['@troupe/core', join(repo, 'packages/core')],
    ['@troupe/cli', join(repo, 'packages/cli')],
    ['zod', join(repo, 'node_modules/zod')],
    ['vitest', join(repo, 'node_modules/vitest')],
    ['typescript', join(repo, 'node_modules/typescript')],
    ['@types/node', join(repo, 'node_modules/@types/node')],
  ];
  for (const [name, target] of links) {
    mkdirSync(dirname(join(project, 'node_modules', name)), { recursive: true });
    symlinkSync(target, join(project, 'node_modules', name), 'dir');
  }
  const bin = join(project, 'node_modules/.bin');
  mkdirSync(bin);
  symlinkSync('../@troupe/cli/bin/troupe.js', join(bin, 'troupe'));
  symlinkSync('../vitest/vitest.mjs', join(bin, 'vitest'));
  symlinkSync('../typescript/bin/tsc', join(bin, 'tsc'));
}

/** The environment of a user's shell: none of this test run's vitest or npm variables. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(VITEST|npm_|TEST$|NODE_ENV$)/.test(key)) env[key] = value;
  }
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', NO_COLOR: '1' };
}

describe('a scaffolded project', () => {
  beforeAll(async () => {
    // The project runs the built packages, as an installed one would.
    const built = [
      'packages/core/dist/testing/index.js',
      'packages/cli/dist/main.js',
      'packages/eval/dist/index.js',
    ].every((file) => existsSync(join(repo, file)));
    if (!built)
      await run(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], { cwd: repo });
  }, 120_000);

  it.each(['single', 'pipeline', 'team'])(
    'template %s: its own npm test and typecheck pass, and npm start answers a message',
    async (template) => {
      const name = `app-${template}`;
      expect((await troupe(scratch, 'create', name, '--template', template, '--published')).code).toBe(ExitCode.ok);
      const project = join(scratch, name);
      linkDependencies(project);
      const options = { cwd: project, env: userEnv(), timeout: 60_000 };

      const test = await run('npm', ['test'], options);
      expect(test.stdout).toMatch(/Tests\s+1 passed/);

      await run('npm', ['run', 'typecheck'], options);

      const start = await run('npm', ['start', '--', '--input', 'hi', '--memory'], options);
      expect(start.stderr).toContain('will answer with the offline demo model');
      expect(start.stdout).toContain('(offline model, not an LLM)');
    },
    90_000,
  );
});
