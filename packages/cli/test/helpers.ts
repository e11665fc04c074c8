import { PassThrough, Writable } from 'node:stream';
import type { CliIo } from '../src/index.js';

/** A CliIo backed by buffers, with a way to press Ctrl-C. */
export interface FakeIo extends CliIo {
  readonly stdin: PassThrough;
  out(): string;
  err(): string;
  /** Simulates Ctrl-C: calls the listeners registered with onInterrupt. */
  interrupt(): void;
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
  return {
    stdin: new PassThrough(),
    stdout,
    stderr,
    cwd,
    onInterrupt(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    out: () => chunks.out.join(''),
    err: () => chunks.err.join(''),
    interrupt: () => {
      for (const listener of [...listeners]) listener();
    },
  };
}
