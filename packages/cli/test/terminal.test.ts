/**
 * `troupe run` at a real terminal: the built bin runs under util-linux `script`, which gives it a
 * pseudo-terminal (stdin, stdout and stderr are a TTY) and passes what we write on to it, so a
 * `\x03` byte is a Ctrl-C the terminal turns into SIGINT.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const bin = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const hasScript = existsSync('/usr/bin/script');

interface Terminal {
  /** Everything the terminal showed so far (stdout and stderr together, as on a screen). */
  screen(): string;
  /** Types bytes at the terminal. */
  type(bytes: string): void;
  /** Resolves once the screen shows `text` (at most `ms`). */
  waitFor(text: string, ms?: number): Promise<void>;
  /** Resolves with the command's exit code. */
  exit: Promise<number | null>;
}

/** Runs `troupe <argv>` on a pseudo-terminal of its own. */
function atTerminal(argv: string[], env: Record<string, string> = {}): Terminal {
  const command = [process.execPath, bin, ...argv].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
  // The test runner's own colour settings are not the terminal's.
  const cleanEnv: NodeJS.ProcessEnv = { ...process.env };
  delete cleanEnv.NO_COLOR;
  delete cleanEnv.FORCE_COLOR;
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
    cwd: tempDir('troupe-tty-'),
    env: { ...cleanEnv, TERM: 'xterm', ...env },
  });
  let screen = '';
  child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  void exit.finally(() => clearTimeout(timer));
  return {
    screen: () => screen,
    type: (bytes) => child.stdin.write(bytes),
    async waitFor(text, ms = 15_000) {
      for (let waited = 0; !screen.includes(text); waited += 20) {
        if (waited > ms)
          throw new Error(`The terminal never showed ${JSON.stringify(text)}: ${JSON.stringify(screen)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    exit,
  };
}

describe.skipIf(!hasScript)('troupe run at a terminal (pseudo-terminal via script)', () => {
  beforeAll(async () => {
    if (existsSync(bin)) return;
    await promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], {
      cwd: repo,
    });
  }, 120_000);

  it('colours the agent name, shows a spinner with the agent and the time, and clears it before the answer', async () => {
    const terminal = atTerminal(['run', fixture('hello.ts'), '--memory', '--input', 'hi']);
    expect(await terminal.exit).toBe(0);
    const screen = terminal.screen();
    // eslint-disable-next-line no-control-regex -- terminal escape sequences are what is checked
    expect(screen).toMatch(/\u001b\[[\d;]+mGreeter:\u001b\[0m \(offline model, not an LLM\)/);
    // The spinner: a frame, what runs, the seconds; erased (CR + erase line) before the answer prints,
    // and before the offline model's note, which comes once the run has started.
    expect(screen).toMatch(
      // eslint-disable-next-line no-control-regex -- terminal escape sequences are what is checked
      /\r\u001b\[K\u001b\[2m[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] [^\n]*\d+\.\ds\u001b\[0m\r\u001b\[K(?:Note: [^\n]*\n)?\u001b\[[\d;]+mGreeter:/,
    );
  }, 40_000);

  it('keeps colours off with NO_COLOR (the spinner still erases itself)', async () => {
    const terminal = atTerminal(['run', fixture('hello.ts'), '--memory', '--input', 'hi'], { NO_COLOR: '1' });
    expect(await terminal.exit).toBe(0);
    expect(terminal.screen()).toContain('Greeter: (offline model, not an LLM)');
    // eslint-disable-next-line no-control-regex -- terminal escape sequences are what is checked
    expect(terminal.screen()).not.toMatch(/\u001b\[[\d;]*m/);
  }, 40_000);

  it('Ctrl-C says "Cancelling… (Ctrl-C again to quit)" at once, cancels the run and exits with 130', async () => {
    const terminal = atTerminal(['run', fixture('slow.ts'), '--memory', '--input', 'take your time']);
    await terminal.waitFor('Sleeper');
    terminal.type('\u0003');
    await terminal.waitFor('Cancelling… (Ctrl-C again to quit)', 2_000);
    expect(await terminal.exit).toBe(130);
    expect(terminal.screen()).toContain('(CANCELLED)');
  }, 40_000);

  it('ends a cancelled run at once, even when the agent ignores the cancellation', async () => {
    const terminal = atTerminal(['run', fixture('stubborn.ts'), '--memory', '--input', 'go']);
    await terminal.waitFor('Stubborn');
    const pressed = Date.now();
    terminal.type('\u0003');
    expect(await terminal.exit).toBe(130);
    expect(Date.now() - pressed).toBeLessThan(5_000);
    expect(terminal.screen()).toContain('Cancelling… (Ctrl-C again to quit)');
    expect(terminal.screen()).not.toContain('done at last');
  }, 40_000);
});
