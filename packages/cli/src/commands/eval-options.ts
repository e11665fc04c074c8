import { parseArgs } from 'node:util';
import { toMetricName } from '@troupe/eval';
import { CliUsageError } from '../errors.js';
import { parseArgsErrorMessage } from '../parse-args-error.js';

/** `troupe eval <agent> <evalset.json>`: evaluate an agent. */
export interface EvalRunOptions {
  mode: 'evaluate';
  /** The agent file or directory. */
  target: string;
  /** The eval set file. */
  evalSetPath: string;
  /** `--model`: the default model for LlmAgents that set none. */
  model: string | undefined;
  /** `--judge-model`: the model of the `llm_judge` metric (which it turns on). */
  judgeModel: string | undefined;
  /** `--metrics a,b`: the metrics to score. */
  metrics: string[] | undefined;
  /** `--threshold metric=value`, repeatable. */
  thresholds: Record<string, number>;
  /** `--json`: print the report as JSON. */
  json: boolean;
}

/** `troupe eval --from-session <id> ...`: save a stored session as an eval case. */
export interface EvalCaptureOptions {
  mode: 'capture';
  sessionId: string;
  appName: string;
  userId: string;
  /** `--db`: the SQLite file. @default '.troupe/troupe.db' under the working directory */
  db: string | undefined;
  /** `--out`: the eval set file the case is added to (created when missing). */
  out: string;
  /** `--eval-id`: the case's id. @default the session id */
  evalId: string | undefined;
}

/** The parsed command line of `troupe eval`. */
export type EvalOptions = EvalRunOptions | EvalCaptureOptions | { mode: 'help' };

const OPTIONS = {
  model: { type: 'string' },
  'judge-model': { type: 'string' },
  metrics: { type: 'string' },
  threshold: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  'from-session': { type: 'string' },
  db: { type: 'string' },
  app: { type: 'string' },
  user: { type: 'string' },
  out: { type: 'string' },
  'eval-id': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const CAPTURE_ONLY = ['db', 'app', 'user', 'out', 'eval-id'] as const;
const EVALUATE_ONLY = ['model', 'judge-model', 'metrics', 'threshold', 'json'] as const;

/** Parses the arguments after `troupe eval`. Throws {@link CliUsageError} naming the bad value and the fix. */
export function parseEvalOptions(args: readonly string[]): EvalOptions {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliUsageError(
      `${parseArgsErrorMessage(error, 'troupe eval', OPTIONS)} Run 'troupe eval --help' for the options.`,
    );
  }
  const { values, positionals } = parsed;
  if (values.help) return { mode: 'help' };
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'string' && value.trim() === '')
      throw new CliUsageError(`--${name} is empty; give it a value or leave it out.`);
  }
  const sessionId = values['from-session'];
  if (sessionId !== undefined) {
    const stray = EVALUATE_ONLY.filter((name) => values[name] !== undefined);
    if (stray.length > 0 || positionals.length > 0) {
      const extra = [...stray.map((name) => `--${name}`), ...positionals.map((p) => `'${p}'`)].join(', ');
      throw new CliUsageError(
        `--from-session saves a session as an eval case and evaluates nothing, so ${extra} cannot go with it. Save the case first, then run 'troupe eval <agent> <evalset.json>'.`,
      );
    }
    if (values.out === undefined)
      throw new CliUsageError(
        `--from-session needs --out <file>: the eval set file to add the case to, e.g. --out evals/weather.evalset.json.`,
      );
    if (values.app === undefined) {
      throw new CliUsageError(
        `--from-session needs --app <name>: the app the session belongs to (for 'troupe run agents/weather' it is 'weather', the folder name; for 'troupe run bot.ts', 'bot').`,
      );
    }
    return {
      mode: 'capture',
      sessionId,
      appName: values.app,
      userId: values.user ?? 'user',
      db: values.db,
      out: values.out,
      evalId: values['eval-id'],
    };
  }
  const strayCapture = CAPTURE_ONLY.filter((name) => values[name] !== undefined);
  if (strayCapture.length > 0) {
    throw new CliUsageError(
      `${strayCapture.map((name) => `--${name}`).join(', ')} go with --from-session <id> (saving a session as an eval case).`,
    );
  }
  if (positionals.length !== 2) {
    const got = positionals.length === 0 ? 'nothing' : positionals.map((p) => `'${p}'`).join(', ');
    throw new CliUsageError(
      `'troupe eval' needs an agent file or directory and an eval set file, e.g. 'troupe eval agents/weather evals/weather.evalset.json'; got ${got}.`,
    );
  }
  return {
    mode: 'evaluate',
    target: positionals[0]!,
    evalSetPath: positionals[1]!,
    model: values.model,
    judgeModel: values['judge-model'],
    metrics: values.metrics === undefined ? undefined : parseMetrics(values.metrics),
    thresholds: parseThresholds(values.threshold ?? []),
    json: values.json ?? false,
  };
}

function parseMetrics(list: string): string[] {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  for (const name of names) checkMetric(name, '--metrics');
  return names;
}

function parseThresholds(entries: readonly string[]): Record<string, number> {
  const thresholds: Record<string, number> = {};
  for (const entry of entries) {
    const match = /^([^=]+)=(.*)$/.exec(entry);
    if (!match)
      throw new CliUsageError(
        `--threshold ${JSON.stringify(entry)} is not metric=value; write e.g. --threshold response_match=0.6.`,
      );
    const name = match[1]!.trim();
    checkMetric(name, '--threshold');
    const value = Number(match[2]!.trim());
    if (match[2]!.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1) {
      throw new CliUsageError(
        `--threshold ${name}=${match[2]} needs a number from 0 to 1, e.g. --threshold ${name}=0.8.`,
      );
    }
    thresholds[name] = value;
  }
  return thresholds;
}

function checkMetric(name: string, flag: string): void {
  try {
    toMetricName(name);
  } catch (error) {
    throw new CliUsageError(`${flag}: ${(error as Error).message}`);
  }
}
