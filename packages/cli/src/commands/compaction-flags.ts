import type { CompactionOptions } from '@troupe/core';
import { CliUsageError } from '../errors.js';

/** The `parseArgs` options of `--compact-every` and `--compact-overlap`, shared by run, api, web and worker. */
export const COMPACTION_FLAGS = {
  'compact-every': { type: 'string' },
  'compact-overlap': { type: 'string' },
} as const;

/** The usage lines of the compaction flags, indented to `column`. */
export function compactionUsage(column: number): string {
  const pad = ' '.repeat(column);
  const flag = (name: string): string => `  ${name}`.padEnd(column);
  return (
    `${flag('--compact-every <n>')}Every n turns of a session, summarise older events with the model\n` +
    `${pad}and show the model the summary instead (see docs/long-sessions.md)\n` +
    `${flag('--compact-overlap <k>')}Turns each summary covers again from the previous one (default: 0)\n`
  );
}

/**
 * `Runner({ compaction })` from `--compact-every` / `--compact-overlap`, or undefined without them.
 * Throws {@link CliUsageError} naming the flag, the value and the fix.
 */
export function parseCompactionFlags(values: {
  'compact-every'?: string | undefined;
  'compact-overlap'?: string | undefined;
}): CompactionOptions | undefined {
  const every = values['compact-every'];
  const overlap = values['compact-overlap'];
  if (every === undefined) {
    if (overlap !== undefined)
      throw new CliUsageError(
        `--compact-overlap ${JSON.stringify(overlap)} needs --compact-every <n>, which turns compaction on; add it, e.g. --compact-every 10 --compact-overlap ${overlap}.`,
      );
    return undefined;
  }
  const everyInvocations = whole('compact-every', every, 1, 'turns, at least 1, e.g. --compact-every 10');
  if (overlap === undefined) return { everyInvocations };
  return {
    everyInvocations,
    overlapInvocations: whole('compact-overlap', overlap, 0, 'turns, e.g. --compact-overlap 1'),
  };
}

function whole(flag: string, value: string, min: number, form: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < min)
    throw new CliUsageError(`--${flag} ${JSON.stringify(value)} is not valid; give a whole number of ${form}.`);
  return number;
}
