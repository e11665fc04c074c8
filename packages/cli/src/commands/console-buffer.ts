/**
 * The server console's writes, gathered per turn of the event loop: under load a line per request
 * and per run was a system call each (stderr is synchronous for files and pipes); now the lines of
 * one turn go out in one write, in order, at most one turn late. `flush()` writes what is waiting
 * at once (before the shutdown messages, and at exit).
 */
export interface ConsoleBuffer {
  /** Queues `text` (already ending in a newline). */
  write(this: void, text: string): void;
  /** Queues one line. */
  line(this: void, line: string): void;
  /** Writes what is queued now. */
  flush(this: void): void;
}

export function consoleBuffer(out: { write(text: string): unknown }): ConsoleBuffer {
  let pending = '';
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending === '') return;
    const text = pending;
    pending = '';
    out.write(text);
  };
  const write = (text: string): void => {
    pending += text;
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };
  return { write, line: (line) => write(`${line}\n`), flush };
}
