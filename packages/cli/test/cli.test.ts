import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Event } from '@troupe/core';
import { ExitCode, runCli } from '../src/index.js';
import { fakeIo } from './helpers.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

async function troupe(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = fakeIo(fixtures);
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('troupe (in process)', () => {
  it('prints the usage for --help and for run --help', async () => {
    const main = await troupe('--help');
    expect(main.code).toBe(ExitCode.ok);
    expect(main.out).toContain('Usage: troupe <command>');
    const run = await troupe('run', '--help');
    expect(run.code).toBe(ExitCode.ok);
    for (const flag of ['--model', '--input', '--json', '--session', '--user', '--db', '--memory'])
      expect(run.out).toContain(flag);
  });

  it('shows the usage on stderr with exit code 2 when no command is given', async () => {
    const result = await troupe();
    expect(result.code).toBe(ExitCode.usage);
    expect(result.out).toBe('');
    expect(result.err).toContain('Usage: troupe <command>');
  });

  it.each([
    [['deploy'], "Unknown command 'deploy'. The commands are: run, api, web, mcp, worker, eval, create."],
    [
      ['run', 'hello.ts', '--modle', 'x'],
      "Unknown option '--modle' for 'troupe run' (it takes --model, --input, --input-json, --attach, --json, --session, --user, --db, --memory, --compact-every, --compact-overlap, --help)",
    ],
    [['run', 'hello.ts', '--model'], "Option '--model <value>' argument missing."],
    [['run'], "'troupe run' needs an agent file or directory"],
    [['run', 'hello.ts', 'hi', 'there'], "got 'hello.ts', 'hi', 'there'. Quote a message that has spaces"],
    [['run', 'hello.ts', '--input', ' '], '--input is empty'],
    [['run', 'hello.ts', '--memory', '--db', 'x.db'], '--memory and --db "x.db" contradict each other'],
    [['run', 'missing-agent.ts'], "No agent file or directory at 'missing-agent.ts'"],
    [['run', 'not-an-agent.ts'], "'not-an-agent.ts' exports no agent"],
    [
      ['run', 'hello.ts', '--model', 'nowhere/model-x', '--input', 'hi'],
      `--model "nowhere/model-x" is not a model name troupe knows. Model names start with their provider: openai/<model>,`,
    ],
  ])('exits with 2 and names the problem for %j', async (argv, message) => {
    const result = await troupe(...argv);
    expect(result.code).toBe(ExitCode.usage);
    expect(result.err).toContain(message);
    expect(result.out).toBe('');
  });

  it("exits with 1 and shows the module's stack when the agent file throws while loading", async () => {
    const result = await troupe('run', 'throws-on-load.js', '--memory', '--input', 'hi');
    expect(result.code).toBe(ExitCode.failed);
    expect(result.err).toContain(
      "troupe: Loading agent module 'throws-on-load.js' failed: agent module exploded while loading",
    );
    expect(result.err).toContain('throws-on-load.js:');
  });

  it('answers one message with the offline model and says it is not an LLM', async () => {
    const result = await troupe('run', 'hello.ts', '--memory', '--input', 'good morning');
    expect(result.code).toBe(ExitCode.ok);
    expect(result.out).toBe(
      'Greeter: (offline model, not an LLM) My task: Greet the user warmly. You said: "good morning".\n',
    );
    expect(result.err).toContain('offline demo model, which is not an LLM');
    expect(result.err).toContain('--model');
    expect(result.err.trim().split('\n')).toHaveLength(1);
  });

  it('runs a YAML agent directory with its TypeScript tool, giving it the default model', async () => {
    const result = await troupe('run', 'yaml-agent', '--memory', '--input', 'what is the weather forecast in Paris');
    expect(result.code).toBe(ExitCode.ok);
    expect(result.out.split('\n').slice(0, 2)).toEqual([
      'Forecaster: → get_forecast {"city":"what is the weather forecast in Paris"}',
      '            ← get_forecast: {"city":"what is the weather forecast in Paris","forecast":"sunny","celsius":21}',
    ]);
    expect(result.err).toContain('Forecaster will answer with the offline demo model, which is not an LLM');
  });

  it('exits with 2 and names the file, line and key of an invalid definition', async () => {
    const result = await troupe('run', 'broken-definition.yaml', '--memory', '--input', 'hi');
    expect(result.code).toBe(ExitCode.usage);
    expect(result.err).toContain("broken-definition.yaml:3: 'max_iterations' must be a whole number of at least 1");
  });

  it('prints only JSON events on stdout with --json', async () => {
    const result = await troupe('run', 'team', '--memory', '--input', 'what is the weather forecast in Oslo', '--json');
    expect(result.code).toBe(ExitCode.ok);
    const events = result.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Event);
    expect(events.some((e) => e.partial)).toBe(false);
    // The user's own message comes first, as in the stored session.
    expect(events.map((e) => e.author)).toEqual([
      'user',
      'Coordinator',
      'Coordinator',
      'Forecaster',
      'Forecaster',
      'Forecaster',
    ]);
    expect(events[0]!.content).toEqual({ role: 'user', parts: [{ text: 'what is the weather forecast in Oslo' }] });
    expect(events[2]!.actions.transferToAgent).toBe('Forecaster');
    expect(events.at(-1)!.path).toBe('Coordinator/Forecaster');
  });

  it('chats turn by turn in one session until exit, continuing with the agent that spoke last', async () => {
    const io = fakeIo(fixtures);
    io.stdin.end('hello\nwhat is the weather forecast in Rome\n\nthanks\nexit\nnot read\n');
    const code = await runCli(['run', 'team', '--memory', '--session', 'chat-1', '--user', 'ann'], io);
    expect(code).toBe(ExitCode.ok);
    const lines = io.out().trim().split('\n');
    expect(lines[0]).toBe(
      'Coordinator: (offline model, not an LLM) My task: Route each request to the agent that handles it. You said: "hello".',
    );
    expect(lines[1]).toBe('Coordinator: ⇢ transferred to Forecaster');
    expect(lines[2]).toBe('Forecaster: → get_forecast {"city":"what is the weather forecast in Rome"}');
    // The third turn starts at Forecaster, the agent the session's last answer came from.
    expect(lines.at(-1)).toBe(
      'Forecaster: (offline model, not an LLM) My task: Answer weather questions with the get_forecast tool. You said: "thanks".',
    );
    expect(io.out()).not.toContain('not read');
    expect(io.err()).toContain("Chatting with Coordinator (app 'team', session 'chat-1', user 'ann')");
  });

  it('ends the chat at the end of input', async () => {
    const io = fakeIo(fixtures);
    io.stdin.end('hi\n');
    expect(await runCli(['run', 'hello.ts', '--memory'], io)).toBe(ExitCode.ok);
    expect(io.out()).toContain('You said: "hi"');
  });

  it('keeps chatting after a failed turn', async () => {
    const io = fakeIo(fixtures);
    io.stdin.end('first\nsecond\n');
    expect(await runCli(['run', 'failing-model.ts', '--memory'], io)).toBe(ExitCode.ok);
    expect(io.err().match(/✖ Fragile: Model 'unreachable\/model-1'/g)).toHaveLength(2);
  });

  it('fails a one-shot run with exit code 1 and the error on stderr', async () => {
    const result = await troupe('run', 'failing-model.ts', '--memory', '--input', 'hi');
    expect(result.code).toBe(ExitCode.failed);
    expect(result.err).toContain(
      "✖ Fragile: Model 'unreachable/model-1' answered agent 'Fragile' with error UNAVAILABLE",
    );
    expect(result.err).not.toContain('offline demo model');
  });

  it('blocks a one-shot run tripped by a guardrail with exit code 5 and a clear line on stderr', async () => {
    const result = await troupe('run', 'guarded.ts', '--memory', '--input', 'do my homework');
    expect(result.code).toBe(ExitCode.blocked);
    expect(result.code).toBe(5);
    expect(result.err).toContain(
      "⛔ Tutor: blocked by a guardrail. Guardrail 'no_homework' tripped on the input of agent 'Tutor'.",
    );
    expect(result.err).toContain('Reason: asks for homework');
    expect(result.out).not.toContain('Happy to help');
  });

  it('cancels a one-shot run on Ctrl-C with exit code 130, saying so at once', async () => {
    const io = fakeIo(fixtures);
    const exit = runCli(['run', 'slow.ts', '--memory', '--input', 'take your time'], io);
    // Listening for Ctrl-C starts the run in the same step, so the interrupt lands mid-run.
    await io.listening();
    io.interrupt();
    expect(io.err()).toContain('Cancelling… (Ctrl-C again to quit)\n');
    expect(await exit).toBe(ExitCode.cancelled);
    expect(io.err()).toContain('(CANCELLED)');
  });

  it('quits on a second Ctrl-C before the cancelled run has stopped (exit code 130)', async () => {
    const codes: number[] = [];
    const io = Object.assign(fakeIo(fixtures), { exit: (code: number) => void codes.push(code) });
    const exit = runCli(['run', 'slow.ts', '--memory', '--input', 'take your time'], io);
    // Listening for Ctrl-C starts the run in the same step, so the interrupt lands mid-run.
    await io.listening();
    io.interrupt();
    io.interrupt();
    expect(codes).toEqual([ExitCode.cancelled]);
    expect(io.err()).toContain('Cancelling… (Ctrl-C again to quit)\nQuit.\n');
    expect(await exit).toBe(ExitCode.cancelled);
  });
});
