import { fileURLToPath } from 'node:url';
import { createEvent, type Event } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { ExitCode, runCli, transcriptSink } from '../src/index.js';
import { fakeIo, troupe } from './helpers.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

const chunk = (author: string, branch: string, text: string): Event =>
  createEvent({ author, branch, partial: true, content: { role: 'model', parts: [{ text }] } });
const whole = (author: string, branch: string, text: string): Event =>
  createEvent({ author, branch, content: { role: 'model', parts: [{ text }] } });

/** What the transcript sink prints for these events, as one turn. */
function transcriptOf(events: Event[]): string {
  const io = fakeIo(repo);
  const sink = transcriptSink(io);
  for (const event of events) sink.write(event);
  sink.endTurn();
  return io.out();
}

describe('troupe run: parallel branches take turns', () => {
  it('streams the fan-out example one agent at a time, each answer once, under its name', async () => {
    const result = await troupe(repo, 'run', 'examples/fan-out', 'Plan a weekend in Lisbon', '--memory');
    expect(result.code).toBe(ExitCode.ok);
    const said = (api: number) =>
      `(offline model, not an LLM) My task: Fetch data from API ${api} for the user's request. You said: "Plan a weekend in Lisbon".`;
    const lines = result.out.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines.slice(0, 2).sort()).toEqual([`API1Fetcher: ${said(1)}`, `API2Fetcher: ${said(2)}`]);
    // The ParallelAgent's progress record, in words.
    expect(lines[2]).toBe('ConcurrentFetch: · Parallel branches finished: API1Fetcher, API2Fetcher');
    expect(lines[3]).toMatch(/^Synthesizer: /);
    // Piped output has no escape sequences.
    expect(result.out).not.toContain('\u001b');
  });

  it('holds back a second branch while the first streams, then shows it whole', () => {
    const a = 'Par.A';
    const b = 'Par.B';
    const out = transcriptOf([
      chunk('A', a, 'one '),
      chunk('B', b, 'uno '),
      chunk('A', a, 'two'),
      chunk('B', b, 'dos'),
      whole('B', b, 'uno dos'),
      whole('A', a, 'one two'),
    ]);
    expect(out).toBe('A: one two\nB: uno dos\n');
  });

  it('gives the floor to a held branch still streaming: what it said so far, then the rest live', () => {
    const io = fakeIo(repo);
    const sink = transcriptSink(io);
    for (const event of [chunk('A', 'P.A', 'one '), chunk('B', 'P.B', 'uno '), whole('A', 'P.A', 'one ')])
      sink.write(event);
    expect(io.out()).toBe('A: one \nB: uno ');
    sink.write(chunk('B', 'P.B', 'dos'));
    expect(io.out()).toBe('A: one \nB: uno dos');
    sink.write(whole('B', 'P.B', 'uno dos'));
    sink.endTurn();
    expect(io.out()).toBe('A: one \nB: uno dos\n');
  });

  it("labels a team's items by number and never repeats a text", () => {
    const out = transcriptOf([
      chunk('chat', 'team.chat[0]', 'first '),
      chunk('chat', 'team.chat[1]', 'second '),
      chunk('chat', 'team.chat[0]', 'item'),
      chunk('chat', 'team.chat[1]', 'item'),
      whole('chat', 'team.chat[0]', 'first item'),
      whole('chat', 'team.chat[1]', 'second item'),
    ]);
    expect(out).toBe('chat[0]: first item\nchat[1]: second item\n');
  });
});

describe('troupe run: colour', () => {
  const hello = fileURLToPath(new URL('./fixtures/hello.ts', import.meta.url));
  const runWith = async (env: Record<string, string | undefined>) => {
    const io = Object.assign(fakeIo(repo), { env });
    io.stdin.end();
    const code = await runCli(['run', hello, '--memory', '--input', 'hi'], io);
    return { code, out: io.out() };
  };

  it('colours agent names when FORCE_COLOR asks for it, even through a pipe', async () => {
    const { code, out } = await runWith({ FORCE_COLOR: '1' });
    expect(code).toBe(ExitCode.ok);
    // eslint-disable-next-line no-control-regex -- terminal escape sequences are what is checked
    expect(out).toMatch(/^\u001b\[[\d;]+mGreeter:\u001b\[0m /);
  });

  it('adds no escapes with NO_COLOR (which wins over FORCE_COLOR) or FORCE_COLOR=0', async () => {
    for (const env of [{ NO_COLOR: '1', FORCE_COLOR: '1' }, { FORCE_COLOR: '0' }, {}]) {
      const { out } = await runWith(env);
      expect(out).toMatch(/^Greeter: /);
      expect(out).not.toContain('\u001b');
    }
  });
});
