import { parseArgs } from 'node:util';
import { CliUsageError } from '../errors.js';
import type { CompactionOptions } from '@troupe/core';
import { parseArgsErrorMessage } from '../parse-args-error.js';
import { COMPACTION_FLAGS, compactionUsage, parseCompactionFlags } from './compaction-flags.js';
import { checkRedisUrl } from './queue-support.js';
import { checkNotEmpty } from './option-checks.js';

/** The options of `troupe worker`, parsed and checked. */
export interface WorkerCommandOptions {
  /** The agents directory, or one agent file, as `troupe api` takes it. Empty when `help` is set. */
  agentsDir: string;
  /** `--redis`: the Redis the API's queue uses. Required. */
  redis: string;
  /** `--pg`: a PostgreSQL connection string, the store the API uses. */
  pg: string | undefined;
  /** `--db`: the SQLite file the API uses. @default '.troupe/troupe.db' under the working directory */
  db: string | undefined;
  /** `--concurrency`: runs at once. @default 10 */
  concurrency: number | undefined;
  /** `--lock-duration`: milliseconds a run is held without a sign of life before another worker takes it. @default 10000 */
  lockDurationMs: number | undefined;
  /** `--grace-period`: milliseconds runs in progress get to finish on SIGTERM/Ctrl-C before going back on the queue. @default 10000 */
  gracePeriodMs: number;
  /** `--stream-ttl`: milliseconds a run's live stream stays in Redis after the run ended or paused. @default 600000 */
  streamTtlMs: number | undefined;
  /** `--model`: the default model string for LlmAgents that set none. */
  model: string | undefined;
  /** `--compact-every` / `--compact-overlap`: compaction of long sessions (give the API the same). */
  compaction: CompactionOptions | undefined;
  /** `--help`: print the usage and do nothing else. */
  help: boolean;
}

/** The default `--grace-period`. */
export const DEFAULT_GRACE_PERIOD_MS = 10_000;

const OPTIONS = {
  redis: { type: 'string' },
  pg: { type: 'string' },
  db: { type: 'string' },
  memory: { type: 'boolean' },
  concurrency: { type: 'string' },
  'lock-duration': { type: 'string' },
  'grace-period': { type: 'string' },
  'stream-ttl': { type: 'string' },
  model: { type: 'string' },
  ...COMPACTION_FLAGS,
  help: { type: 'boolean', short: 'h' },
} as const;

/** Parses the arguments after `troupe worker`. Throws {@link CliUsageError} naming the bad value and the fix. */
export function parseWorkerOptions(args: readonly string[]): WorkerCommandOptions {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliUsageError(
      `${parseArgsErrorMessage(error, 'troupe worker', OPTIONS)} Run 'troupe worker --help' for the options.`,
    );
  }
  const { values, positionals } = parsed;
  const none = {
    redis: '',
    pg: undefined,
    db: undefined,
    concurrency: undefined,
    lockDurationMs: undefined,
    gracePeriodMs: DEFAULT_GRACE_PERIOD_MS,
    streamTtlMs: undefined,
    model: undefined,
    compaction: undefined,
  };
  if (values.help) return { agentsDir: '', ...none, help: true };
  if (positionals.length !== 1) {
    const got = positionals.length === 0 ? 'none' : positionals.map((p) => `'${p}'`).join(', ');
    throw new CliUsageError(
      `'troupe worker' takes one agents directory (the one 'troupe api' serves) or one agent file; got ${got}. Example: 'troupe worker agents --redis redis://127.0.0.1:6379'.`,
    );
  }
  checkNotEmpty(values, ['redis', 'pg', 'db', 'model']);
  if (values.redis === undefined) {
    throw new CliUsageError(
      "'troupe worker' needs --redis <url>: the Redis through which the API hands it runs, the same as 'troupe api --redis' was given, e.g. --redis redis://127.0.0.1:6379.",
    );
  }
  checkRedisUrl(values.redis);
  if (values.memory) {
    throw new CliUsageError(
      "'troupe worker' cannot keep sessions in memory (--memory): the API and the workers are separate processes and must share one session store. Give the API's store: --db <path> (SQLite, one machine; the default is .troupe/troupe.db) or --pg <url>.",
    );
  }
  if (values.db !== undefined && values.pg !== undefined)
    throw new CliUsageError('--db and --pg both choose where sessions live; give only one, the store the API uses.');
  return {
    agentsDir: positionals[0]!,
    redis: values.redis,
    pg: values.pg,
    db: values.db,
    concurrency: wholeNumber('concurrency', values.concurrency, 1, 'runs at once, e.g. --concurrency 10'),
    lockDurationMs: wholeNumber(
      'lock-duration',
      values['lock-duration'],
      1_000,
      'milliseconds, at least 1000, e.g. --lock-duration 60000',
    ),
    gracePeriodMs:
      wholeNumber('grace-period', values['grace-period'], 0, 'milliseconds, e.g. --grace-period 30000') ??
      DEFAULT_GRACE_PERIOD_MS,
    streamTtlMs: wholeNumber(
      'stream-ttl',
      values['stream-ttl'],
      1_000,
      'milliseconds, at least 1000, e.g. --stream-ttl 60000',
    ),
    model: values.model,
    compaction: parseCompactionFlags(values),
    help: false,
  };
}

function wholeNumber(flag: string, value: string | undefined, min: number, form: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < min)
    throw new CliUsageError(`--${flag} ${JSON.stringify(value)} is not valid; give a whole number of ${form}.`);
  return number;
}

/** `troupe worker --help`. */
export const WORKER_USAGE = `Usage: troupe worker <agents dir | agent file> --redis <url> [options]

Runs the apps' background runs, which 'troupe api --redis <url>' (or any createApp({ queue }))
hands over through Redis: takes runs off the queue, runs them, publishes their events live to the
API, and stores them in the session store the API shares. Start as many workers as you like, on
any machine that reaches Redis and the store. The apps are found as 'troupe api' finds them; give
the workers the same directory as the API.

Options:
  --redis <url>         Redis of the queue (required), e.g. redis://127.0.0.1:6379; it must run
                        with --maxmemory-policy noeviction (see docs/deploy.md)
  --pg <url>            Sessions in PostgreSQL, the API's store (needs @troupe/postgres)
  --db <path>           Sessions in this SQLite file, the API's (default: .troupe/troupe.db)
  --concurrency <n>     Runs at once (default: 10)
  --lock-duration <ms>  How long a run is held without a sign of life before another worker
                        takes it over (default: 10000). A tool that blocks the event loop longer
                        than this has its run taken over: raise it, or make the tool async
  --grace-period <ms>   On Ctrl-C or SIGTERM, how long runs in progress may finish before they
                        go back on the queue for another worker (default: ${DEFAULT_GRACE_PERIOD_MS})
  --stream-ttl <ms>     How long a run's live stream stays in Redis after the run ended or paused,
                        for clients that reconnect (default: 600000); later joins replay the
                        stored events. Redis holds about 5 kB per run for this long
  --model <model>       Default model for agents that set none, e.g. openai/gpt-4o-mini
                        (without it: the offline demo model, which is not an LLM)
${compactionUsage(24)}  -h, --help            Show this help

Example:
  troupe api agents --redis redis://127.0.0.1:6379 --pg postgres://troupe@db/troupe
  troupe worker agents --redis redis://127.0.0.1:6379 --pg postgres://troupe@db/troupe
`;
