import { describe, expect, it } from 'vitest';
import { consoleBuffer } from '../src/commands/console-buffer.js';

// The server console gathers a turn's lines into one write (a write per line was a system call per
// request under load), in order, at most one turn late.
describe('consoleBuffer', () => {
  it('writes the lines of one turn in one write, in order, on the next turn', async () => {
    const writes: string[] = [];
    const out = consoleBuffer({ write: (text: string) => writes.push(text) });
    out.line('GET /list-apps 200 3ms');
    out.write('a failure\n  at its stack\n');
    out.line('POST /run 200 12ms');
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['GET /list-apps 200 3ms\na failure\n  at its stack\nPOST /run 200 12ms\n']);
    out.line('next turn');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(2);
  });

  it('flush() writes what is waiting at once, and nothing twice', async () => {
    const writes: string[] = [];
    const out = consoleBuffer({ write: (text: string) => writes.push(text) });
    out.line('run weather session s1 user u completed 5ms');
    out.flush();
    expect(writes).toEqual(['run weather session s1 user u completed 5ms\n']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
  });
});
