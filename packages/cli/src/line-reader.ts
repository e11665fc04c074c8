import { createInterface } from 'node:readline';
import type { CliIo, TextOutput } from './io.js';

/** Reads the lines a person types (or a script pipes) at the prompt. */
export interface LineReader {
  /** True when a person types at a terminal: prompts are shown and readline echoes the input. */
  readonly terminal: boolean;
  /**
   * Reads one line. `prompt` is shown at a terminal; with `always`, it is also written for piped
   * input, followed by the line read, so a transcript shows the question and its answer.
   * Resolves with undefined at the end of input (Ctrl-D, or the reader was closed).
   */
  read(prompt: string, options?: { always?: boolean }): Promise<string | undefined>;
  /** Writes text where the prompts go. */
  write(text: string): void;
  /** Stops reading: pending and later reads resolve with undefined. */
  close(): void;
}

/**
 * A line reader over `io.stdin` that shows prompts on `output`. `onInterrupt` is called on Ctrl-C
 * (at the prompt or while a turn runs) until the reader is closed.
 */
export function createLineReader(io: CliIo, output: TextOutput, onInterrupt: () => void): LineReader {
  const terminal = io.stdin.isTTY === true && output.isTTY === true;
  const rl = createInterface({ input: io.stdin, output, terminal });
  rl.on('SIGINT', onInterrupt);
  const stopListening = io.onInterrupt(onInterrupt);
  // Lines that arrived before the input ended are still read after readline closes.
  const lines = rl[Symbol.asyncIterator]();
  let stopped = false;
  rl.on('close', stopListening);
  return {
    terminal,
    async read(prompt, options = {}) {
      if (stopped) return undefined;
      if (terminal) {
        rl.setPrompt(prompt);
        rl.prompt();
      } else if (options.always) {
        output.write(prompt);
      }
      const next = await lines.next();
      if (next.done) {
        if (terminal || options.always) output.write('\n');
        return undefined;
      }
      if (!terminal && options.always) output.write(`${next.value}\n`);
      return next.value;
    },
    write(text) {
      output.write(text);
    },
    close() {
      stopped = true;
      rl.close();
    },
  };
}
