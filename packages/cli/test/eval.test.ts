import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { registerModel } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import type { EvalReport } from '@troupe/eval';
import { ExitCode, runCli } from '../src/index.js';
import { fakeIo } from './helpers.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const agentDir = join(fixtures, 'eval-agent');
const scratch = mkdtempSync(join(tmpdir(), 'troupe-eval-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function troupe(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = fakeIo(cwd);
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('troupe eval', () => {
  it('prints a table of case, metric, score, threshold and result, and exits 0 when every case passes', async () => {
    const result = await troupe(fixtures, 'eval', 'eval-agent', 'eval-agent/weather.evalset.json');
    expect(result.err).toBe('');
    expect(result.code).toBe(ExitCode.ok);
    expect(result.out).toBe(
      [
        'Eval set concierge',
        '',
        'case             metric            score  threshold  result',
        'paris-then-rome  trajectory_exact  1.00   1.00       pass',
        'paris-then-rome  response_match    1.00   0.80       pass',
        '',
        '1 of 1 case passed.',
        '',
      ].join('\n'),
    );
  });

  it('evaluates ADK eval sets, nested AgentTool calls included', async () => {
    const result = await troupe(fixtures, 'eval', 'eval-agent', 'eval-agent/weather-adk.evalset.json', '--json');
    expect(result.code).toBe(ExitCode.ok);
    const report = JSON.parse(result.out) as EvalReport;
    expect(report.evalSetId).toBe('concierge_adk');
    expect(report.cases[0]!.turns[0]!.actualToolCalls).toEqual([
      { name: 'WeatherDesk', args: { request: 'Weather in Oslo, please' }, agent: 'Concierge' },
      { name: 'get_weather', args: { city: 'Oslo' }, agent: 'Concierge/WeatherDesk' },
    ]);
  });

  it('exits 1 when a threshold is missed, showing what was expected and what happened', async () => {
    const result = await troupe(fixtures, 'eval', 'eval-agent', 'eval-agent/strict.evalset.json');
    expect(result.code).toBe(ExitCode.failed);
    expect(result.out).toContain('paris  trajectory_exact  0.00   1.00       FAIL');
    expect(result.out).toContain('paris  response_match    0.55   0.80       FAIL');
    expect(result.out).toContain('rome   trajectory_exact  n/a    1.00       n/a');
    expect(result.out).toContain('rome   response_match    1.00   0.80       pass');
    expect(result.out).toContain(
      [
        'Failures:',
        '  paris',
        '    turn 1 ("What is the weather in Paris?"):',
        '      expected tools: get_weather {"city":"Paris"}',
        '      actual tools:   Concierge: WeatherDesk {"request":"What is the weather in Paris?"}, Concierge/WeatherDesk: get_weather {"city":"Paris"}',
        '      expected response: "Sunny in Paris."',
        '      actual response:   "The desk says: sunny, 21 degrees in Paris."',
      ].join('\n'),
    );
    expect(result.out).toContain('1 of 2 cases passed.');
  });

  it('takes --metrics and --threshold metric=value (ADK names too), and passes with looser marks', async () => {
    const result = await troupe(
      fixtures,
      'eval',
      'eval-agent',
      'eval-agent/strict.evalset.json',
      '--metrics',
      'trajectory_in_order,response_match',
      '--threshold',
      'response_match_score=0.5',
      '--json',
    );
    expect(result.code).toBe(ExitCode.ok);
    const report = JSON.parse(result.out) as EvalReport;
    expect(report.thresholds).toEqual({ trajectory_in_order: 1, response_match: 0.5 });
    expect(report.cases.map((c) => c.passed)).toEqual([true, true]);
  });

  it('gives agents without a model the --model default, or the offline model with a notice', async () => {
    const set = join(scratch, 'greeter.evalset.json');
    const expected = '(offline model, not an LLM) My task: Greet the user warmly. You said: "good morning".';
    writeFileSync(
      set,
      JSON.stringify({
        id: 'greeter',
        cases: [{ id: 'hello', turns: [{ user: 'good morning', response: expected, toolCalls: [] }] }],
      }),
    );
    const offline = await troupe(fixtures, 'eval', 'hello.ts', set);
    expect(offline.code).toBe(ExitCode.ok);
    expect(offline.err).toContain('Greeter will answer with the offline demo model, which is not an LLM');
    const explicit = await troupe(fixtures, 'eval', 'hello.ts', set, '--model', 'offline');
    expect(explicit.code).toBe(ExitCode.ok);
  });

  it('stops on Ctrl-C with exit code 130', async () => {
    const set = join(scratch, 'slow.evalset.json');
    writeFileSync(
      set,
      JSON.stringify({
        id: 'slow',
        cases: [
          { id: 'a', turns: [{ user: 'take your time' }] },
          { id: 'b', turns: [{ user: 'again' }] },
        ],
      }),
    );
    const io = fakeIo(fixtures);
    const exit = runCli(['eval', 'slow.ts', set], io);
    await io.listening();
    io.interrupt();
    expect(await exit).toBe(ExitCode.cancelled);
    expect(io.err()).toBe('troupe: evaluation cancelled.\n');
    expect(io.out()).toBe('');
  });

  it('scores llm_judge with --judge-model', async () => {
    const verdict = '{"score": 0.25, "reason": "Says more than asked."}';
    registerModel('eval-test-judge/', () => new ScriptedModel([verdict, verdict]));
    const result = await troupe(
      fixtures,
      'eval',
      'eval-agent',
      'eval-agent/strict.evalset.json',
      '--metrics',
      'llm_judge',
      '--judge-model',
      'eval-test-judge/strict',
    );
    expect(result.code).toBe(ExitCode.failed);
    expect(result.out).toContain('paris  llm_judge  0.25   0.70       FAIL');
    expect(result.out).toContain('rome   llm_judge  0.25   0.70       FAIL');
    expect(result.out).toContain('judge: Says more than asked.');
  });

  it.each([
    [['eval'], "'troupe eval' needs an agent file or directory and an eval set file"],
    [['eval', 'eval-agent'], "got 'eval-agent'"],
    [
      ['eval', 'eval-agent', 'eval-agent/weather.evalset.json', '--threshold', 'response_match'],
      '--threshold "response_match" is not metric=value',
    ],
    [
      ['eval', 'eval-agent', 'eval-agent/weather.evalset.json', '--threshold', 'response_match=2'],
      '--threshold response_match=2 needs a number from 0 to 1',
    ],
    [
      ['eval', 'eval-agent', 'eval-agent/weather.evalset.json', '--threshold', 'bleu=0.5'],
      "--threshold: Unknown metric 'bleu'.",
    ],
    [
      ['eval', 'eval-agent', 'eval-agent/weather.evalset.json', '--metrics', 'llm_judge'],
      'The llm_judge metric needs a model to judge with: add `--judge-model <model>`',
    ],
    [
      [
        'eval',
        'eval-agent',
        'eval-agent/weather.evalset.json',
        '--metrics',
        'response_match',
        '--threshold',
        'trajectory_f1=0.5',
      ],
      'There are thresholds for trajectory_f1',
    ],
    [
      ['eval', 'eval-agent', 'eval-agent/weather.evalset.json', '--judge-model', 'nowhere/judge'],
      `--judge-model "nowhere/judge" is not a model name troupe knows.`,
    ],
    [['eval', 'eval-agent', 'eval-agent/missing.json'], "Cannot read eval set file 'eval-agent/missing.json'"],
    [['eval', 'eval-agent', 'greeter.json'], 'greeter.json: the top level is not an eval set'],
    [['eval', 'eval-agent', 'eval-agent/weather.evalset.json', '--out', 'x.json'], '--out go with --from-session <id>'],
    [['eval', '--from-session', 's1', '--app', 'a'], '--from-session needs --out <file>'],
    [['eval', '--from-session', 's1', '--out', 'x.json'], '--from-session needs --app <name>'],
    [
      ['eval', '--from-session', 's1', '--app', 'a', '--out', 'x.json', '--model', 'offline'],
      '--model cannot go with it',
    ],
    [['eval', '--from-session', 's1', '--app', 'a', '--out', 'x.json', '--db', 'nowhere.db'], 'No session store at'],
    [
      ['eval', 'eval-agent', 'eval-agent/weather.evalset.json', '--bogus'],
      "Unknown option '--bogus' for 'troupe eval'",
    ],
  ])('exits 2 for %j', async (argv, message) => {
    const result = await troupe(fixtures, ...argv);
    expect(result.err).toContain(message);
    expect(result.code).toBe(ExitCode.usage);
  });

  it('prints its help', async () => {
    for (const argv of [
      ['eval', '--help'],
      ['help', 'eval'],
    ]) {
      const result = await troupe(fixtures, ...argv);
      expect(result.code).toBe(ExitCode.ok);
      expect(result.out).toContain('Usage: troupe eval <agent file or dir> <evalset.json> [options]');
      expect(result.out).toContain('.troupe/troupe.db');
    }
  });
});

describe('troupe eval --from-session', () => {
  it('saves a troupe run session from SQLite as an eval case that the same agent then passes', async () => {
    const cwd = join(scratch, 'round-trip');
    for (const message of ['What is the weather in Paris?', 'And in Rome?']) {
      const run = await troupe(cwd, 'run', agentDir, '--session', 'chat-1', '--input', message);
      expect(run.code).toBe(ExitCode.ok);
    }
    expect(existsSync(join(cwd, '.troupe/troupe.db'))).toBe(true);

    const saved = await troupe(
      cwd,
      'eval',
      '--from-session',
      'chat-1',
      '--app',
      'eval-agent',
      '--out',
      'evals/captured.evalset.json',
    );
    expect(saved.err).toBe('');
    expect(saved.code).toBe(ExitCode.ok);
    expect(saved.out).toBe(`Added case 'chat-1' (2 turns) in ${join('evals', 'captured.evalset.json')}.\n`);
    const file = JSON.parse(readFileSync(join(cwd, 'evals/captured.evalset.json'), 'utf8')) as {
      id: string;
      cases: { id: string; turns: { user: string; response: string; toolCalls: unknown[] }[] }[];
    };
    expect(file.id).toBe('captured');
    expect(file.cases[0]!.turns.map((t) => [t.user, t.response, t.toolCalls.length])).toEqual([
      ['What is the weather in Paris?', 'The desk says: sunny, 21 degrees in Paris.', 2],
      ['And in Rome?', 'The desk says: sunny, 21 degrees in Rome.', 2],
    ]);

    const evaluated = await troupe(cwd, 'eval', agentDir, 'evals/captured.evalset.json');
    expect(evaluated.code).toBe(ExitCode.ok);
    expect(evaluated.out).toContain('1 of 1 case passed.');

    // Saving again under another id adds a case; under the same id replaces it.
    const again = await troupe(
      cwd,
      'eval',
      '--from-session',
      'chat-1',
      '--app',
      'eval-agent',
      '--out',
      'evals/captured.evalset.json',
      '--eval-id',
      'second',
    );
    expect(again.out).toContain("Added case 'second'");
    const replaced = await troupe(
      cwd,
      'eval',
      '--from-session',
      'chat-1',
      '--app',
      'eval-agent',
      '--out',
      'evals/captured.evalset.json',
      '--eval-id',
      'second',
    );
    expect(replaced.out).toContain("Replaced case 'second'");
    const cases = (
      JSON.parse(readFileSync(join(cwd, 'evals/captured.evalset.json'), 'utf8')) as { cases: { id: string }[] }
    ).cases;
    expect(cases.map((c) => c.id)).toEqual(['chat-1', 'second']);
  });

  it('names the sessions it has when the one asked for is missing, and refuses to write into an ADK file', async () => {
    const cwd = join(scratch, 'missing');
    expect(
      (
        await troupe(
          cwd,
          'run',
          agentDir,
          '--db',
          'my.db',
          '--session',
          'only-one',
          '--input',
          'What is the weather in Oslo?',
        )
      ).code,
    ).toBe(ExitCode.ok);
    const missing = await troupe(
      cwd,
      'eval',
      '--from-session',
      'nope',
      '--app',
      'eval-agent',
      '--db',
      'my.db',
      '--out',
      'x.json',
    );
    expect(missing.code).toBe(ExitCode.usage);
    expect(missing.err).toContain("Session 'nope' is not in");
    expect(missing.err).toContain("Its sessions for app 'eval-agent' and user 'user': only-one.");
    const wrongApp = await troupe(
      cwd,
      'eval',
      '--from-session',
      'only-one',
      '--app',
      'weather',
      '--db',
      'my.db',
      '--out',
      'x.json',
    );
    expect(wrongApp.err).toContain("It has no sessions for app 'weather' and user 'user'; check --app and --user.");

    writeFileSync(join(cwd, 'adk.evalset.json'), JSON.stringify({ eval_set_id: 'x', eval_cases: [] }));
    const adk = await troupe(
      cwd,
      'eval',
      '--from-session',
      'only-one',
      '--app',
      'eval-agent',
      '--db',
      'my.db',
      '--out',
      'adk.evalset.json',
    );
    expect(adk.code).toBe(ExitCode.usage);
    expect(adk.err).toContain('--out adk.evalset.json is an ADK eval set; cases are saved in the Troupe format.');
  });
});
