import type { Readable, Writable } from 'node:stream';

/** An output stream: `process.stdout`, or a `PassThrough` in tests. `isTTY` is true for a terminal. */
export type TextOutput = Writable & { readonly isTTY?: boolean };

/** An input stream: `process.stdin`, or a `PassThrough` in tests. */
export type TextInput = Readable & { readonly isTTY?: boolean };

/**
 * The outside world of the CLI: its streams, working directory and Ctrl-C. Commands receive it
 * instead of touching `process`, so they can run in tests with buffers.
 */
export interface CliIo {
  readonly stdin: TextInput;
  readonly stdout: TextOutput;
  readonly stderr: TextOutput;
  /** Relative agent paths resolve against this directory. */
  readonly cwd: string;
  /** Calls `listener` on Ctrl-C (SIGINT) instead of exiting; returns a function that stops listening. */
  onInterrupt(listener: () => void): () => void;
  /** The environment (`NO_COLOR`, `FORCE_COLOR`). @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Ends the process at once with `code` (a second Ctrl-C). Without it, the command sets `process.exitCode` and returns. */
  exit?(code: number): void;
}

/** The real process: its stdio, `process.cwd()` and SIGINT. */
export function processIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    cwd: process.cwd(),
    onInterrupt(listener) {
      process.on('SIGINT', listener);
      return () => process.off('SIGINT', listener);
    },
    env: process.env,
    exit(code) {
      process.exit(code);
    },
  };
}
