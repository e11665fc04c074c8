import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ExitCode, runCli } from '../src/index.js';
import { fakeIo, tempDir, type FakeIo } from './helpers.js';

// Graph workflows in the terminal (SPEC §17 "Seen everywhere"): each node's output on a line of its
// own, `[node] output`; a RequestInput asked at the prompt, its answer resuming the run.

const fixtures = fileURLToPath(new URL('./fixtures/workflow/', import.meta.url));

/** Runs `troupe` in process in the workflow fixtures, with `stdin` typed at a terminal (or piped with `tty: false`). */
async function troupe(
  argv: string[],
  stdin: string,
  options: { tty?: boolean } = {},
): Promise<{ code: number; io: FakeIo }> {
  const io = fakeIo(fixtures);
  if (options.tty !== false) Object.defineProperty(io.stdin, 'isTTY', { value: true });
  io.stdin.end(stdin);
  const code = await runCli(argv, io);
  return { code, io };
}

describe('troupe run on a graph workflow', () => {
  it("prints each node's output by its path in the workflow, and an LLM node's answer once, streamed", async () => {
    const io = fakeIo(fixtures);
    // Each write to stdout, to see the LLM node's chunks printed as they came.
    const writes: string[] = [];
    Object.defineProperty(io, 'stdout', {
      value: new Writable({
        write(chunk: Buffer, _encoding, callback) {
          writes.push(chunk.toString());
          callback();
        },
      }),
    });
    io.stdin.end();
    const code = await runCli(['run', 'triage.ts', '--memory', '--input', 'what is the capital?'], io);
    expect(code, io.err()).toBe(ExitCode.ok);
    const out = writes.join('');
    const lines = out.trimEnd().split('\n');
    expect(lines).toContain('[classify] what is the capital?');
    expect(lines).toContain('[tally.count] 4');
    expect(lines).toContain('[tally] 4');
    expect(lines).toContain('answer: It is Paris.');
    // The join's output is the workflow's output: shown once, as compact JSON, not again as the result.
    expect(lines.at(-1)).toBe('[merge] {"answer":"It is Paris.","tally":4}');
    expect(out).not.toContain('[answer]');
    expect(out.match(/It is Paris\./g)).toHaveLength(2); // its answer, and the merge's output
    expect(writes).toContain('answer: It is ');
    expect(writes).toContain('Paris.');
    // Nodes print in the order they ended; the classifier's before everything after it.
    expect(lines.indexOf('[classify] what is the capital?')).toBeLessThan(lines.indexOf('answer: It is Paris.'));
    expect(lines.indexOf('[tally.count] 4')).toBeLessThan(lines.indexOf('[tally] 4'));
  });

  it('asks a RequestInput at the prompt in the name of its node; the text answer resumes the run', async () => {
    const { code, io } = await troupe(['run', 'triage.ts', '--memory', '--input', 'buy milk'], 'yes\n');
    expect(code, io.err()).toBe(ExitCode.ok);
    const lines = io.out().trimEnd().split('\n');
    // classify's branch and tally run side by side: their lines interleave in the order their
    // nodes ended, each branch in its own order; the prompt comes once the run has paused.
    const classifyBranch = [
      '[classify] buy milk',
      '[confirm] ⏸ waits for input: File "buy milk" as a note?',
      'confirm asks: File "buy milk" as a note?',
      'answer> yes',
      '[confirm] yes',
      '[record] {"filed":true}',
    ];
    const tallyBranch = ['[tally.count] 2', '[tally] 2'];
    expect([...lines].sort()).toEqual([...classifyBranch, ...tallyBranch].sort());
    expect(lines.filter((l) => classifyBranch.includes(l))).toEqual(classifyBranch);
    expect(lines.filter((l) => tallyBranch.includes(l))).toEqual(tallyBranch);
    expect(lines.indexOf('[tally] 2')).toBeLessThan(lines.indexOf('confirm asks: File "buy milk" as a note?'));
  });

  it('takes an object answer against the responseSchema, and asks again after one that does not match', async () => {
    const { code, io } = await troupe(
      ['run', 'booking.ts', '--memory', '--input', 'book'],
      '{"nights":2}\n{"from":"June 1","nights":2}\n',
    );
    expect(code, io.err()).toBe(ExitCode.ok);
    expect(io.out()).toContain(
      'dates asks: Which nights?\n(answer with text, or JSON: { from: string, nights?: integer })\nanswer> {"nights":2}\n',
    );
    expect(io.out().match(/dates asks:/g)).toHaveLength(2);
    expect(io.err()).toMatch(
      /The answer to input request 'booking\.dates@1' does not match its responseSchema: .*from.* Answer again\./,
    );
    expect(io.out().trimEnd().split('\n').slice(-2)).toEqual([
      '[dates] {"from":"June 1","nights":2}',
      '[book] Booked 2 night(s) from June 1',
    ]);
  });

  it('an answer that is not a JSON object is passed as text, even to a request with a schema', async () => {
    const { code, io } = await troupe(['run', 'booking.ts', '--memory', '--input', 'book'], '42\n');
    expect(code, io.err()).toBe(ExitCode.ok);
    expect(io.out().trimEnd().split('\n').slice(-2)).toEqual(['[dates] 42', '[book] Booked: 42']);
  });

  it('a paused workflow left by a piped run is asked by its node when the session continues', async () => {
    const db = join(tempDir('troupe-cli-workflow-'), 'sessions.db');
    const first = await troupe(['run', 'triage.ts', '--db', db, '--input', 'buy milk'], '', { tty: false });
    expect(first.code).toBe(ExitCode.interrupted);
    expect(first.io.err()).toContain('waiting for a human answer to triage.confirm@1 (input for triage).');
    const sessionId = /^session: (.+)$/m.exec(first.io.err())![1]!;

    const second = await troupe(['run', 'triage.ts', '--db', db, '--session', sessionId], 'no\n');
    expect(second.code, second.io.err()).toBe(ExitCode.ok);
    expect(second.io.out().split('\n')).toEqual([
      'confirm asks: File "buy milk" as a note?',
      'answer> no',
      '[confirm] no',
      '[record] {"filed":false}',
      '',
    ]);
  });
});
