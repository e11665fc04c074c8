import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { onTestFinished } from 'vitest';
import { type CliIo, runCli } from '../src/index.js';

/** A CliIo backed by buffers, with a way to press Ctrl-C. */
export interface FakeIo extends CliIo {
  readonly stdin: PassThrough;
  out(): string;
  err(): string;
  /** Simulates Ctrl-C: calls the listeners registered with onInterrupt. */
  interrupt(): void;
  /** Resolves once a command listens for Ctrl-C (registered with onInterrupt), so that interrupt() is heard. */
  listening(): Promise<void>;
}

export function fakeIo(cwd: string): FakeIo {
  const chunks = { out: [] as string[], err: [] as string[] };
  const collect = (into: string[]): Writable =>
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        into.push(chunk.toString());
        callback();
      },
    });
  const stdout = collect(chunks.out);
  const stderr = collect(chunks.err);
  const listeners = new Set<() => void>();
  const waiting: (() => void)[] = [];
  return {
    stdin: new PassThrough(),
    stdout,
    stderr,
    cwd,
    onInterrupt(listener) {
      listeners.add(listener);
      for (const resolve of waiting.splice(0)) resolve();
      return () => listeners.delete(listener);
    },
    out: () => chunks.out.join(''),
    err: () => chunks.err.join(''),
    interrupt: () => {
      for (const listener of [...listeners]) listener();
    },
    listening: () => (listeners.size > 0 ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve))),
  };
}

/** Starts `troupe api`/`troupe web` in process and resolves once it printed its URL (at most 20 s). */
export async function startServing(
  cwd: string,
  ...argv: string[]
): Promise<{ io: FakeIo; url: string; exit: Promise<number> }> {
  const io = fakeIo(cwd);
  const exit = runCli(argv, io);
  let settled = false;
  void exit.finally(() => (settled = true));
  for (let waited = 0; waited < 20_000; waited += 20) {
    const match = /Troupe (?:API|dev UI): (http:\/\/[^/\s]+)/.exec(io.out());
    if (match) return { io, url: match[1]!, exit };
    if (settled) throw new Error(`troupe ${argv.join(' ')} ended before listening (exit ${await exit}): ${io.err()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`troupe ${argv.join(' ')} printed no URL: ${io.out()} ${io.err()}`);
}

/** A new temporary folder (in the system's, or in `parent`), removed when the current test finishes. */
export function tempDir(prefix: string, parent: string = tmpdir()): string {
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs `troupe ...argv` in process in `cwd`, with an empty stdin; resolves with the exit code and what it printed. */
export async function troupe(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = fakeIo(cwd);
  io.stdin.end();
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
}
