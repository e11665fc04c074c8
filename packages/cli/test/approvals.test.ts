import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteSessionService } from '@troupe/sqlite';
import type { InterruptInfo } from '@troupe/core';
import { ExitCode, confirmationQuestion, describeSchema, parseInputAnswer, runCli } from '../src/index.js';
import { fakeIo, type FakeIo } from './helpers.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-cli-hitl-'));
  dirs.push(dir);
  return join(dir, 'sessions.db');
}

/** Runs `troupe` in process with `stdin` piped in (or typed at a terminal with `tty`). */
async function troupe(
  argv: string[],
  stdin: string,
  options: { tty?: boolean } = {},
): Promise<{ code: number; io: FakeIo }> {
  const io = fakeIo(fixtures);
  if (options.tty) Object.defineProperty(io.stdin, 'isTTY', { value: true });
  io.stdin.end(stdin);
  const code = await runCli(argv, io);
  return { code, io };
}

describe('approvals and input requests at the prompt', () => {
  it('asks a confirmation in chat mode; "y" runs the tool once and the turn goes on', async () => {
    const { code, io } = await troupe(['run', 'approvals.ts', '--memory'], 'send 500\ny\nexit\n');
    expect(code).toBe(ExitCode.ok);
    expect(io.out().split('\n')).toEqual([
      'Desk: → transfer_money {"amount":500}',
      `      ⏸ transfer_money waits for confirmation: Allow tool 'transfer_money' to run with {"amount":500}?`,
      'Allow transfer_money({"amount":500})? [y/N] y',
      'Desk: ← transfer_money: {"status":"sent","amount":500}',
      '      transfer_money said {"status":"sent","amount":500}',
      '',
    ]);
    expect(io.err()).not.toContain('waiting');
  });

  it('a rejection never runs the tool, the model is told, and the chat continues', async () => {
    const { code, io } = await troupe(['run', 'approvals.ts', '--memory'], 'send 900\nn\nhello\n');
    expect(code).toBe(ExitCode.ok);
    const out = io.out();
    expect(out).toContain('Allow transfer_money({"amount":900})? [y/N] n\n');
    expect(out).toContain(
      `← transfer_money: {"error":"The user rejected this call of tool 'transfer_money'; it did not run."}`,
    );
    expect(out).not.toContain('"status":"sent"');
    expect(out.trim().split('\n').at(-1)).toBe('Desk: You said: hello');
  });

  it('anything but y or yes rejects, an empty answer included', async () => {
    const { io } = await troupe(['run', 'approvals.ts', '--memory'], 'send 1\n\nsend 2\nsure\nsend 3\nYES\n');
    const out = io.out();
    expect(out.match(/"status":"sent"/g)).toHaveLength(2); // the call and its report, for send 3 only
    expect(out).toContain('← transfer_money: {"status":"sent","amount":3}');
    expect(out.match(/The user rejected/g)).toHaveLength(4);
  });

  it('asks an input request with the shape of its schema; a bad answer is reported and asked again', async () => {
    const { code, io } = await troupe(
      ['run', 'approvals.ts', '--memory'],
      'book a trip\n{"day":"Monday"}\n\n"June"\n{"date":"2025-06-01","nights":2}\n',
    );
    expect(code).toBe(ExitCode.ok);
    const out = io.out();
    expect(out).toContain(
      'book_trip asks: Which date should I book?\n(answer with JSON: { date: string, nights?: integer })\nanswer> {"day":"Monday"}\n',
    );
    expect(out.match(/book_trip asks:/g)).toHaveLength(3);
    expect(out).toContain('← book_trip: {"booked":"2025-06-01","nights":2}');
    const errors = io
      .err()
      .split('\n')
      .filter((line) => line.startsWith('The answer'));
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(
      /^The answer to input request 'Desk:book-1' does not match its responseSchema: .*date.* Answer again\.$/,
    );
    expect(errors[1]).toMatch(/must be object/);
  });

  it('shows the questions on stderr with --json, keeping stdout to JSON events', async () => {
    const { code, io } = await troupe(['run', 'approvals.ts', '--memory', '--json'], 'send 5\ny\n');
    expect(code).toBe(ExitCode.ok);
    const events = io
      .out()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { interrupt?: unknown });
    expect(events.filter((e) => e.interrupt)).toHaveLength(1);
    expect(io.err()).toContain('Allow transfer_money({"amount":5})? [y/N] y\n');
  });

  it('ends the chat with exit code 4 and says how to continue when the input ends before the answer', async () => {
    const path = tempDb();
    const { code, io } = await troupe(['run', 'approvals.ts', '--db', path, '--session', 'left-open'], 'send 70\n');
    expect(code).toBe(ExitCode.interrupted);
    expect(io.err()).toContain(
      `The run is waiting for a human answer to Desk:send-1 (confirm transfer_money). To answer, continue the session (its questions are asked at the prompt): troupe run approvals.ts --session left-open --db ${path}`,
    );
  });

  it('a one-shot run with piped stdin exits 4 naming the interrupt; the session continued in chat mode asks it first', async () => {
    const path = tempDb();
    const first = await troupe(['run', 'approvals.ts', '--db', path, '--input', 'send 250'], 'y\n');
    expect(first.code).toBe(ExitCode.interrupted);
    const sessionId = /^session: (.+)$/m.exec(first.io.err())![1]!;
    expect(first.io.err()).toContain(
      `waiting for a human answer to Desk:send-1 (confirm transfer_money). To answer, continue the session (its questions are asked at the prompt): troupe run approvals.ts --session ${sessionId} --db ${path}`,
    );
    expect(first.io.out()).not.toContain('[y/N]');

    // Another one-shot run cannot start a turn while the question is open.
    const blocked = await troupe(['run', 'approvals.ts', '--db', path, '--session', sessionId, '--input', 'hello'], '');
    expect(blocked.code).toBe(ExitCode.interrupted);
    expect(blocked.io.err()).toContain('waiting for a human answer to Desk:send-1');

    const second = await troupe(['run', 'approvals.ts', '--db', path, '--session', sessionId], 'y\nhello\n');
    expect(second.code).toBe(ExitCode.ok);
    expect(second.io.err()).toContain(`Session '${sessionId}' is waiting for an answer.`);
    expect(second.io.out().split('\n')).toEqual([
      'Allow transfer_money({"amount":250})? [y/N] y',
      'Desk: ← transfer_money: {"status":"sent","amount":250}',
      '      transfer_money said {"status":"sent","amount":250}',
      'Desk: You said: hello',
      '',
    ]);

    const service = new SqliteSessionService({ path });
    const session = (await service.getSession({ appName: 'approvals', userId: 'user', sessionId }))!;
    await service.close();
    expect(session.events.filter((e) => e.interrupt)).toHaveLength(1);
    // The approval continued the first invocation; "hello" is a new one.
    expect(new Set(session.events.map((e) => e.invocationId)).size).toBe(2);
  });

  it('asks at the prompt in a one-shot run when stdin is a terminal', async () => {
    const { code, io } = await troupe(['run', 'approvals.ts', '--memory', '--input', 'send 42'], 'yes\n', {
      tty: true,
    });
    expect(code).toBe(ExitCode.ok);
    expect(io.out()).toContain('Allow transfer_money({"amount":42})? [y/N] yes\n');
    expect(io.out()).toContain('← transfer_money: {"status":"sent","amount":42}');
  });
});

describe('questions and answers', () => {
  const interrupt = (fields: Partial<InterruptInfo>): InterruptInfo => ({
    id: 'A:c1',
    kind: 'confirmation',
    agentPath: 'A',
    toolCallId: 'c1',
    toolName: 'pay',
    args: { eur: 120 },
    ...fields,
  });

  it('asks a confirmation with the tool, its arguments and the hint; the hint requireConfirmation writes only repeats them', () => {
    expect(confirmationQuestion(interrupt({ hint: 'Pay 120 EUR to Bob?' }))).toBe(
      'Allow pay({"eur":120})? Pay 120 EUR to Bob? [y/N] ',
    );
    expect(confirmationQuestion(interrupt({ hint: `Allow tool 'pay' to run with {"eur":120}?` }))).toBe(
      'Allow pay({"eur":120})? [y/N] ',
    );
    expect(confirmationQuestion(interrupt({}))).toBe('Allow pay({"eur":120})? [y/N] ');
  });

  it('a confirmation to run code shows the code, numbered, and its arguments; a long program is cut', () => {
    const code = interrupt({
      toolName: 'run_skill_script',
      hint: 'Run scripts/summarize.py of skill \'csv-summary\' with ["sales.csv"]?',
      payload: {
        language: 'python',
        code: 'import sys\nprint(sys.argv[1])\n',
        args: ['sales.csv'],
        files: ['skills/x'],
      },
    });
    expect(confirmationQuestion(code)).toBe(
      [
        'Run scripts/summarize.py of skill \'csv-summary\' with ["sales.csv"]?',
        '   1 │ import sys',
        '   2 │ print(sys.argv[1])',
        'with arguments ["sales.csv"]',
        'Allow run_skill_script? [y/N] ',
      ].join('\n'),
    );
    const long = confirmationQuestion(
      interrupt({
        toolName: 'execute_code',
        payload: { language: 'bash', code: Array.from({ length: 45 }, (_, i) => `echo ${i}`).join('\n') },
      }),
    );
    expect(long.split('\n')[0]).toBe('Run this bash code?');
    expect(long).toContain('  40 │ echo 39\n     │ … 5 more lines\nAllow execute_code? [y/N] ');
  });

  it('reads an input answer as JSON when it parses, else as the text', () => {
    expect(parseInputAnswer(' {"date":"2025-06-01"} ')).toEqual({ date: '2025-06-01' });
    expect(parseInputAnswer('42')).toBe(42);
    expect(parseInputAnswer('next Monday')).toBe('next Monday');
  });
});

describe('describeSchema', () => {
  it('summarises JSON Schemas in one line', () => {
    expect(
      describeSchema({
        type: 'object',
        properties: { date: { type: 'string' }, nights: { type: 'integer' } },
        required: ['date'],
      }),
    ).toBe('{ date: string, nights?: integer }');
    expect(describeSchema({ enum: ['economy', 'business'] })).toBe('"economy" | "business"');
    expect(describeSchema({ type: 'array', items: { type: 'number' } })).toBe('number[]');
    expect(describeSchema({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toBe('string | null');
    expect(
      describeSchema({
        type: 'object',
        properties: { a: { type: 'object', properties: { b: { type: 'object', properties: { c: {} } } } } },
      }),
    ).toBe('{ a?: { b?: object } }');
  });
});
