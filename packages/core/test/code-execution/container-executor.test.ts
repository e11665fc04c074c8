import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, ContainerExecutor, dockerArgs } from '@troupe/core';
import { tempDir } from '../temp-dir.js';
import { waitFor } from '../wait.js';

const IMAGE = 'python:3.12-slim';

/** Why the Docker suite cannot run here, or undefined when it can (Docker answers and the image is pulled). */
async function dockerUnusable(): Promise<string | undefined> {
  const status = await ContainerExecutor.check();
  if (!status.available) return status.reason;
  try {
    execFileSync('docker', ['image', 'inspect', IMAGE], { stdio: 'ignore' });
    return undefined;
  } catch {
    return `the image ${IMAGE} is not pulled (docker pull ${IMAGE}); runs have no network to pull it`;
  }
}

const unusable = await dockerUnusable();
if (unusable) console.warn(`[troupe tests] ContainerExecutor suite skipped: ${unusable}`);

describe('dockerArgs', () => {
  it('builds a run with no network, only the working folder mounted, limits, and variables passed by name', () => {
    expect(
      dockerArgs({
        name: 'troupe-run-1',
        image: 'python:3.12-slim',
        folder: '/srv/code/app_u_s-abc',
        interpreter: 'python3',
        script: '.troupe-run-1.py',
        args: ['data.csv', '--top', '3'],
        envNames: ['LANG', 'API_TOKEN'],
        user: '1000:1000',
        memory: '1g',
        cpus: 1,
        pidsLimit: 256,
      }),
    ).toEqual([
      'run',
      '--rm',
      '--name',
      'troupe-run-1',
      '--network',
      'none',
      '-v',
      '/srv/code/app_u_s-abc:/workspace',
      '-w',
      '/workspace',
      '--security-opt',
      'no-new-privileges',
      '--cap-drop',
      'ALL',
      '--user',
      '1000:1000',
      '--memory',
      '1g',
      '--cpus',
      '1',
      '--pids-limit',
      '256',
      '-e',
      'HOME=/workspace',
      '-e',
      'LANG',
      '-e',
      'API_TOKEN',
      'python:3.12-slim',
      'python3',
      '.troupe-run-1.py',
      'data.csv',
      '--top',
      '3',
    ]);
  });

  it('leaves out the limits it is not given', () => {
    const args = dockerArgs({
      name: 'n',
      image: 'node:22-slim',
      folder: '/f',
      interpreter: 'node',
      script: 's.mjs',
      args: [],
      envNames: [],
    });
    expect(args).not.toContain('--user');
    expect(args).not.toContain('--memory');
    expect(args.slice(-3)).toEqual(['node:22-slim', 'node', 's.mjs']);
  });
});

describe('ContainerExecutor options', () => {
  it('checks its options, naming the option, the value and the fix', () => {
    const root = tempDir('troupe-docker-');
    expect(() => new ContainerExecutor({ root, memory: 'lots' })).toThrow(/option 'memory' must be a size.*"lots"/);
    expect(() => new ContainerExecutor({ root, cpus: 0 })).toThrow(/option 'cpus' must be a number above 0/);
    expect(() => new ContainerExecutor({ root, image: { ruby: 'ruby:3' } as never })).toThrow(
      /option 'image' has "ruby"/,
    );
    expect(() => new ContainerExecutor({ root: join(root, 'a:b') })).toThrow(ConfigurationError);
  });

  it('check() says why Docker cannot be used when the command is missing', async () => {
    expect(await ContainerExecutor.check('docker-that-does-not-exist')).toEqual({
      available: false,
      reason: "'docker-that-does-not-exist' was not found on the PATH",
    });
  });
});

/**
 * A stand-in `docker` (injected through the `docker` option) that logs each call and runs the
 * command after the image on this machine, so the executor's own steps are tested without Docker.
 */
function fakeDocker(dir: string): { docker: string; log: string } {
  const docker = join(dir, 'fake-docker');
  const log = join(dir, 'docker.log');
  writeFileSync(
    docker,
    [
      '#!/bin/bash',
      `log=${JSON.stringify(log)}`,
      'if [ "$1" = kill ]; then echo "kill $2" >> "$log"; exit 0; fi',
      'shift',
      'name=""; names=""',
      'while [ $# -gt 0 ]; do case "$1" in',
      '  --name) name=$2; shift 2;;',
      '  -e) names="$names $2"; shift 2;;',
      '  -v|-w|--network|--security-opt|--cap-drop|--user|--memory|--cpus|--pids-limit) shift 2;;',
      '  --rm) shift;;',
      '  *) break;;',
      'esac; done',
      'echo "run $name image=$1 env=$names" >> "$log"',
      'shift',
      'exec "$@"',
    ].join('\n'),
  );
  chmodSync(docker, 0o755);
  return { docker, log };
}

describe('ContainerExecutor steps (with a stand-in docker command)', () => {
  it('runs the script through docker run with the image and the variables by name, and reports written files', async () => {
    const dir = tempDir('troupe-docker-');
    const { docker, log } = fakeDocker(dir);
    const executor = new ContainerExecutor({ root: join(dir, 'runs'), docker, env: { TOKEN: 's3cret' } });
    const result = await executor.execute({
      language: 'python',
      code: 'import os, sys\nopen("out.txt", "w").write(os.environ["TOKEN"])\nprint(sys.argv[1])',
      args: ['hello'],
      workspace: 'w',
    });
    expect(result).toMatchObject({ exitCode: 0, stdout: 'hello\n', timedOut: false });
    expect(result.files.map((f) => [f.path, Buffer.from(f.content!).toString()])).toEqual([['out.txt', 's3cret']]);
    expect(readFileSync(log, 'utf8')).toMatch(
      /^run troupe-run-[0-9a-f-]+ image=python:3\.12-slim env=\s*HOME=\/workspace LANG TOKEN\n$/,
    );
  });

  it('at the timeout kills the run and docker-kills its container by name', async () => {
    const dir = tempDir('troupe-docker-');
    const { docker, log } = fakeDocker(dir);
    const executor = new ContainerExecutor({ root: join(dir, 'runs'), docker, timeoutMs: 500 });
    const result = await executor.execute({ language: 'bash', code: 'sleep 1000', workspace: 'w' });
    expect(result).toMatchObject({ exitCode: null, timedOut: true });
    await waitFor(() => readFileSync(log, 'utf8').includes('kill '), 'docker kill to be called');
    const [run, kill] = readFileSync(log, 'utf8').trim().split('\n');
    expect(kill).toBe(`kill ${run!.split(' ')[1]}`);
  });
});

describe.skipIf(unusable !== undefined)('ContainerExecutor with Docker', () => {
  it('runs code in a container with the working folder mounted and no network', async () => {
    const executor = new ContainerExecutor({ root: tempDir('troupe-docker-'), image: IMAGE });
    const result = await executor.execute({
      language: 'python',
      code: [
        'import os, socket',
        'open("out.txt", "w").write(os.getcwd())',
        'try:',
        '    socket.create_connection(("1.1.1.1", 53), timeout=2); print("network")',
        'except OSError:',
        '    print("no network")',
      ].join('\n'),
      workspace: 'w',
    });
    expect(result).toMatchObject({ exitCode: 0, stdout: 'no network\n', timedOut: false });
    expect(result.files.map((f) => f.path)).toEqual(['out.txt']);
    expect(readFileSync(join(executor.workspacePath('w'), 'out.txt'), 'utf8')).toBe('/workspace');
  });

  it('kills the container at the timeout', async () => {
    const executor = new ContainerExecutor({ root: tempDir('troupe-docker-'), image: IMAGE, timeoutMs: 3000 });
    const result = await executor.execute({ language: 'bash', code: 'sleep 1000', workspace: 'w' });
    expect(result).toMatchObject({ exitCode: null, timedOut: true });
  });
});
