// Which packages `troupe create` points a new app at, when run from this checkout without
// --local or --published: it asks the registry named by npm_config_registry (here a stand-in on
// 127.0.0.1, so no network) and packs the checkout's packages when @troupe/cli is not published.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode, runCli } from '../src/index.js';
import { fakeIo } from './helpers.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const cliVersion = (JSON.parse(readFileSync(join(repo, 'packages/cli/package.json'), 'utf8')) as { version: string })
  .version;
const scratch = mkdtempSync(join(tmpdir(), 'troupe-create-registry-'));

/** The stand-in registry's answer to the next metadata request, and the paths it was asked for. */
let answer: { status: number; versions?: string[] } = { status: 404 };
const asked: string[] = [];
let registry: Server;
let registryUrl = '';
const savedRegistry = process.env.npm_config_registry;

beforeAll(async () => {
  registry = createServer((request, response) => {
    asked.push(request.url ?? '');
    response.writeHead(answer.status, { 'content-type': 'application/json' });
    const versions = Object.fromEntries((answer.versions ?? []).map((v) => [v, { version: v }]));
    response.end(answer.status === 200 ? JSON.stringify({ name: '@troupe/cli', versions }) : '{"error":"Not found"}');
  });
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/`;
  process.env.npm_config_registry = registryUrl;
});
afterEach(() => {
  asked.length = 0;
});
afterAll(async () => {
  if (savedRegistry === undefined) delete process.env.npm_config_registry;
  else process.env.npm_config_registry = savedRegistry;
  await new Promise((resolve) => registry.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

async function create(name: string): Promise<{ code: number; out: string; err: string; project: string }> {
  const io = fakeIo(scratch);
  const code = await runCli(['create', name], io);
  return { code, out: io.out(), err: io.err(), project: join(scratch, name) };
}

const dependenciesOf = (project: string): Record<string, Record<string, string>> =>
  JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;

describe('troupe create from a checkout, without --local or --published', () => {
  it('depends on the registry versions when this version of @troupe/cli is published there', async () => {
    answer = { status: 200, versions: ['0.0.1', cliVersion] };
    const result = await create('published-app');
    expect(result.err).toBe('');
    expect(result.code).toBe(ExitCode.ok);
    expect(asked).toEqual(['/@troupe%2fcli']);
    const manifest = dependenciesOf(result.project);
    expect(manifest.dependencies!['@troupe/cli']).toBe(`^${cliVersion}`);
    expect(manifest.overrides).toBeUndefined();
    expect(readdirSync(result.project)).not.toContain('vendor');
  });

  it('packs the checkout into vendor/ and installs from there when the registry does not have it', async () => {
    answer = { status: 200, versions: ['0.0.1'] };
    const result = await create('unpublished-app');
    expect(result.err).toBe('');
    expect(result.code).toBe(ExitCode.ok);
    expect(result.out).toContain(
      `Troupe packages: @troupe/cli@${cliVersion} is not on ${registryUrl}, so they are packed from`,
    );
    const tarballs = readdirSync(join(result.project, 'vendor'));
    expect(tarballs).toContain(`troupe-cli-${cliVersion}.tgz`);
    expect(tarballs).toContain(`troupe-sqlite-${cliVersion}.tgz`);
    const manifest = dependenciesOf(result.project);
    expect(manifest.dependencies).toMatchObject({
      '@troupe/cli': `file:vendor/troupe-cli-${cliVersion}.tgz`,
      '@troupe/core': `file:vendor/troupe-core-${cliVersion}.tgz`,
    });
    // Packages that @troupe/cli depends on come from vendor/ too, through overrides; an optional
    // peer that nothing installs has none (see regression/vendor-overrides.test.ts).
    const packed = tarballs.map((file) => `@troupe/${file.replace(/^troupe-/, '').replace(/-[\d.]+\.tgz$/, '')}`);
    expect(Object.keys(manifest.overrides!).sort()).toEqual(
      packed.filter((name) => name !== '@troupe/postgres' && name !== '@troupe/otel').sort(),
    );
    expect(manifest.overrides!['@troupe/sqlite']).toBe(`file:vendor/troupe-sqlite-${cliVersion}.tgz`);
  }, 120_000);
});
