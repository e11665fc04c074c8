import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, LocalProcessExecutor } from '@troupe/core';
import { tempDir } from '../temp-dir.js';
import { waitFor } from '../wait.js';

function executor(options: Partial<ConstructorParameters<typeof LocalProcessExecutor>[0]> = {}) {
  return new LocalProcessExecutor({ root: join(tempDir('troupe-code-'), 'runs'), ...options });
}

/** True once no live process has this pid (a zombie waiting to be reaped counts as gone). */
function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

describe('LocalProcessExecutor', () => {
  it('runs python, node and bash in the workspace folder, with arguments after the script', async () => {
    const code = executor();
    const python = await code.execute({
      language: 'python',
      code: 'import sys, os\nprint(6 * 7, sys.argv[1:], os.getcwd() == os.environ["HOME"])',
      args: ['a', 'b c'],
      workspace: 'app/u/s1',
    });
    expect(python).toMatchObject({ exitCode: 0, stdout: "42 ['a', 'b c'] True\n", timedOut: false, truncated: false });
    const node = await code.execute({
      language: 'node',
      code: 'console.log(process.argv.slice(2).join("|")); process.exit(3);',
      args: ['x', 'y'],
      workspace: 'app/u/s1',
    });
    expect(node).toMatchObject({ exitCode: 3, stdout: 'x|y\n' });
    const bash = await code.execute({
      language: 'bash',
      code: 'echo "$1" >&2; pwd',
      args: ['oops'],
      workspace: 'app/u/s1',
    });
    expect(bash.stderr).toBe('oops\n');
    expect(bash.stdout.trim()).toBe(code.workspacePath('app/u/s1'));
    expect(bash.files).toEqual([]);
  });

  it('gives each workspace its own safely named folder under root, which later runs of it share', async () => {
    const code = executor();
    await code.execute({ language: 'bash', code: 'echo one > note.txt', workspace: '../../etc/passwd' });
    const again = await code.execute({ language: 'bash', code: 'cat note.txt', workspace: '../../etc/passwd' });
    expect(again.stdout).toBe('one\n');
    const other = await code.execute({ language: 'bash', code: 'ls', workspace: '.._.._etc_passwd' });
    expect(other.stdout).toBe('');
    expect(code.workspacePath('../../etc/passwd')).toMatch(/\/runs\/__\.\._etc_passwd-[0-9a-f]{10}$/);
  });

  it('reports the files a run created or changed, with their bytes, but not the files it was given or its own script', async () => {
    const code = executor();
    const result = await code.execute({
      language: 'python',
      code: [
        'import os',
        'os.makedirs("out/deep", exist_ok=True)',
        'open("out/deep/b.txt", "w").write("bee")',
        'open("a.csv", "w").write("x,y\\n1,2\\n")',
        'os.symlink("/etc/hostname", "link.txt")',
      ].join('\n'),
      files: [{ path: 'input/data.txt', content: 'given' }],
      workspace: 'w',
    });
    expect(result.exitCode).toBe(0);
    expect(result.files.map((f) => [f.path, f.size, Buffer.from(f.content!).toString()])).toEqual([
      ['a.csv', 8, 'x,y\n1,2\n'],
      ['out/deep/b.txt', 3, 'bee'],
    ]);
    const rewrite = await code.execute({
      language: 'bash',
      code: 'echo changed > input/data.txt',
      files: [{ path: 'input/data.txt', content: 'given' }],
      workspace: 'w',
    });
    expect(rewrite.files.map((f) => f.path)).toEqual(['input/data.txt']);
  });

  it('runs of one workspace take turns, so two at once each report only the file they wrote', async () => {
    const code = executor();
    const [a, b] = await Promise.all([
      code.execute({ language: 'bash', code: 'echo a > a.txt; sleep 0.2', workspace: 'shared' }),
      code.execute({ language: 'bash', code: 'echo b > b.txt; sleep 0.2', workspace: 'shared' }),
    ]);
    expect(a.files.map((f) => f.path)).toEqual(['a.txt']);
    expect(b.files.map((f) => f.path)).toEqual(['b.txt']);
  });

  it('lists files bigger than maxFileBytes without reading them back', async () => {
    const result = await executor({ maxFileBytes: 10 }).execute({
      language: 'bash',
      code: 'printf 0123456789ABC > big.bin; printf ok > small.txt',
      workspace: 'w',
    });
    expect(result.files).toEqual([
      { path: 'big.bin', size: 13 },
      { path: 'small.txt', size: 2, content: new Uint8Array(Buffer.from('ok')) },
    ]);
  });

  it('kills the whole process tree at the timeout: a grandchild started in the background is gone too', async () => {
    const code = executor({ timeoutMs: 1500 });
    const result = await code.execute({
      language: 'bash',
      code: 'sleep 1000 &\necho $! > grandchild.pid\necho started\nwait',
      workspace: 'tree',
    });
    expect(result).toMatchObject({ exitCode: null, timedOut: true, stdout: 'started\n' });
    const pid = Number(readFileSync(join(code.workspacePath('tree'), 'grandchild.pid'), 'utf8'));
    expect(pid).toBeGreaterThan(0);
    await waitFor(() => processGone(pid), `grandchild ${pid} to be killed`, 5000);
  });

  it('kills background processes a run leaves behind when it exits on its own', async () => {
    const code = executor();
    const result = await code.execute({ language: 'bash', code: 'sleep 1000 &\necho $! > bg.pid', workspace: 'bg' });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    const pid = Number(readFileSync(join(code.workspacePath('bg'), 'bg.pid'), 'utf8'));
    await waitFor(() => processGone(pid), `background process ${pid} to be killed`, 5000);
  });

  it('cancels through the request signal: the tree is killed and the run rejects with the reason', async () => {
    const code = executor();
    const controller = new AbortController();
    const folder = code.workspacePath('cancel');
    const run = code.execute({
      language: 'bash',
      code: 'sleep 1000 &\necho $! > child.pid\nwait',
      workspace: 'cancel',
      signal: controller.signal,
    });
    await waitFor(
      () => existsSync(join(folder, 'child.pid')) && readFileSync(join(folder, 'child.pid'), 'utf8').trim() !== '',
      'the run to start',
    );
    controller.abort(new Error('user cancelled'));
    await expect(run).rejects.toThrow('user cancelled');
    const pid = Number(readFileSync(join(folder, 'child.pid'), 'utf8'));
    await waitFor(() => processGone(pid), `cancelled child ${pid} to be killed`, 5000);
  });

  it('cuts stdout and stderr at maxOutputBytes each, with a marker', async () => {
    const result = await executor({ maxOutputBytes: 100 }).execute({
      language: 'python',
      code: 'import sys\nprint("x" * 5000)\nsys.stderr.write("e" * 50)',
      workspace: 'w',
    });
    expect(result.stdout).toBe(`${'x'.repeat(100)}\n[output truncated at 100 bytes]`);
    expect(result.stderr).toBe('e'.repeat(50));
    expect(result.truncated).toBe(true);
    expect(result.exitCode).toBe(0);
  });

  it('passes only the allow-listed environment: a secret of this process is not visible', async () => {
    process.env.TROUPE_TEST_SECRET = 'hunter2';
    process.env.TROUPE_TEST_SHARED = 'shared';
    try {
      const code = executor({ env: { GREETING: 'hi' }, inheritEnv: ['TROUPE_TEST_SHARED'] });
      const result = await code.execute({
        language: 'node',
        code: 'console.log(JSON.stringify(process.env))',
        workspace: 'env',
      });
      const env = JSON.parse(result.stdout) as Record<string, string>;
      expect(env.TROUPE_TEST_SECRET).toBeUndefined();
      expect(env).toMatchObject({ GREETING: 'hi', TROUPE_TEST_SHARED: 'shared', HOME: code.workspacePath('env') });
      expect(Object.keys(env).sort()).toEqual(['GREETING', 'HOME', 'LANG', 'PATH', 'TROUPE_TEST_SHARED']);
    } finally {
      delete process.env.TROUPE_TEST_SECRET;
      delete process.env.TROUPE_TEST_SHARED;
    }
  });

  it('refuses files with ../ or an absolute path, naming the path, before anything runs', async () => {
    const root = tempDir('troupe-code-');
    const code = new LocalProcessExecutor({ root });
    for (const path of ['../escape.txt', 'a/../../escape.txt', '/tmp/escape.txt']) {
      const run = code.execute({
        language: 'bash',
        code: 'touch ran.txt',
        files: [{ path, content: 'x' }],
        workspace: 'j',
      });
      await expect(run).rejects.toBeInstanceOf(ConfigurationError);
      await expect(run).rejects.toThrow(`'${path}'`);
    }
    expect(existsSync(join(root, 'escape.txt'))).toBe(false);
    expect(existsSync(join(code.workspacePath('j'), 'ran.txt'))).toBe(false);
  });

  it('refuses to write through a symbolic link that leads out of the folder', async () => {
    const outside = tempDir('troupe-outside-');
    const code = executor();
    const folder = code.workspacePath('s');
    mkdirSync(folder, { recursive: true });
    symlinkSync(outside, join(folder, 'out'));
    writeFileSync(join(outside, 'target.txt'), 'original');
    symlinkSync(join(outside, 'target.txt'), join(folder, 'file-link.txt'));

    await expect(
      code.execute({
        language: 'bash',
        code: 'true',
        files: [{ path: 'out/sub/x.txt', content: 'x' }],
        workspace: 's',
      }),
    ).rejects.toThrow(/'out\/sub\/x.txt' goes through 'out', a symbolic link to .* outside the working folder/);
    expect(existsSync(join(outside, 'sub'))).toBe(false);
    await expect(
      code.execute({
        language: 'bash',
        code: 'true',
        files: [{ path: 'file-link.txt', content: 'x' }],
        workspace: 's',
      }),
    ).rejects.toThrow(/'file-link.txt' is a symbolic link/);
    expect(readFileSync(join(outside, 'target.txt'), 'utf8')).toBe('original');
  });

  it('checks its options and the request, naming the option, the value and the fix', async () => {
    expect(() => new LocalProcessExecutor({ root: '' })).toThrow(/option 'root' must be a folder path; got ""/);
    expect(() => executor({ timeoutMs: 0 })).toThrow(/option 'timeoutMs' must be a whole number of at least 1; got 0/);
    expect(() => executor({ languages: ['ruby' as never] })).toThrow(/option 'languages' has "ruby"/);
    expect(() => executor({ env: { 'BAD-NAME': 'x' } })).toThrow(/option 'env' has "BAD-NAME"/);
    const code = executor({ languages: ['python'] });
    expect(code.languages).toEqual(['python']);
    await expect(code.execute({ language: 'bash', code: 'true', workspace: 'w' })).rejects.toThrow(
      /does not run "bash"; it runs \["python"\]/,
    );
    await expect(code.execute({ language: 'python', code: 'pass', workspace: ' ' })).rejects.toThrow(
      /needs a 'workspace'/,
    );
  });

  it('fails with a ConfigurationError naming an interpreter that is not installed', async () => {
    const code = executor({ interpreters: { python: 'python-that-does-not-exist' } });
    const run = code.execute({ language: 'python', code: 'print(1)', workspace: 'w' });
    await expect(run).rejects.toBeInstanceOf(ConfigurationError);
    await expect(run).rejects.toThrow(/could not start 'python-that-does-not-exist'.*interpreters\.python/);
  });
});
