import { parseArgs } from 'node:util';
import { CliUsageError } from '../errors.js';
import type { CompactionOptions } from '@troupe/core';
import { parseArgsErrorMessage } from '../parse-args-error.js';
import { COMPACTION_FLAGS, parseCompactionFlags } from './compaction-flags.js';
import { checkNotEmpty } from './option-checks.js';

/** The options of `troupe run`, parsed and checked. */
export interface RunOptions {
  /** The agent file or directory. Empty when `help` is set. */
  target: string;
  /** `--model`: the default model string for LlmAgents that set none. */
  model: string | undefined;
  /** `--input` (or the message after the agent): run this one message and exit. Without it the command chats. */
  input: string | undefined;
  /** `--input-json`: run with this structured input (the JSON text, parsed when the agent is loaded) and exit. */
  inputJson: string | undefined;
  /** Which flag gave the one-shot message, for messages about it: `--input`, `--input-json` or `the message`. */
  inputSource: '--input' | '--input-json' | 'the message' | undefined;
  /** `--attach` (repeatable): files sent with the one-shot message, saved as the session's artifacts. */
  attachments: string[];
  /** `--json`: one JSON line per stored event on stdout. */
  json: boolean;
  /** `--session`: the session id to continue or create. */
  sessionId: string | undefined;
  /** `--user`: the user id. @default 'user' */
  userId: string;
  /** `--db`: the SQLite file sessions are kept in. @default '.troupe/troupe.db' under the working directory */
  db: string | undefined;
  /** `--memory`: keep sessions in memory only, gone when the command exits. */
  memory: boolean;
  /** `--compact-every` / `--compact-overlap`: compaction of long sessions. */
  compaction: CompactionOptions | undefined;
  /** `--help`: print the usage and do nothing else. */
  help: boolean;
}

const OPTIONS = {
  model: { type: 'string' },
  input: { type: 'string' },
  'input-json': { type: 'string' },
  attach: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  session: { type: 'string' },
  user: { type: 'string' },
  db: { type: 'string' },
  memory: { type: 'boolean' },
  ...COMPACTION_FLAGS,
  help: { type: 'boolean', short: 'h' },
} as const;

/** Parses the arguments after `troupe run`. Throws {@link CliUsageError} naming the bad value and the fix. */
export function parseRunOptions(args: readonly string[]): RunOptions {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliUsageError(
      `${parseArgsErrorMessage(error, 'troupe run', OPTIONS)} Run 'troupe run --help' for the options.`,
    );
  }
  const { values, positionals } = parsed;
  const help = values.help ?? false;
  if (help)
    return {
      target: '',
      model: undefined,
      input: undefined,
      inputJson: undefined,
      inputSource: undefined,
      attachments: [],
      json: false,
      sessionId: undefined,
      userId: 'user',
      db: undefined,
      memory: false,
      compaction: undefined,
      help,
    };
  if (positionals.length === 0) {
    throw new CliUsageError(
      `'troupe run' needs an agent file or directory, e.g. 'troupe run agents/weather' or 'troupe run agent.ts'.`,
    );
  }
  if (positionals.length > 2) {
    throw new CliUsageError(
      `'troupe run' takes an agent file or directory and at most one message; got ${positionals.map((p) => `'${p}'`).join(', ')}. Quote a message that has spaces: troupe run ${positionals[0]} "your message".`,
    );
  }
  const message = positionals[1];
  const given = [
    ...(values.input !== undefined ? ['--input'] : []),
    ...(values['input-json'] !== undefined ? ['--input-json'] : []),
    ...(message !== undefined ? [`the message '${message}'`] : []),
  ];
  if (given.length > 1)
    throw new CliUsageError(
      `'troupe run' got ${given.join(' and ')}: give the one message to run once (text with --input or after the agent, a JSON object with --input-json).`,
    );
  if (message !== undefined && message.trim() === '')
    throw new CliUsageError(`The message after the agent is empty; give a message or leave it out to chat.`);
  checkNotEmpty(values, ['model', 'input', 'input-json', 'session', 'user', 'db']);
  const attachments = values.attach ?? [];
  if (attachments.some((path) => path.trim() === ''))
    throw new CliUsageError(`--attach needs a file path, e.g. --attach sales.csv; got an empty one.`);
  if (attachments.length > 0 && (values['input-json'] !== undefined || (values.input ?? message) === undefined))
    throw new CliUsageError(
      `--attach sends files with a one-shot text message, and ${values['input-json'] !== undefined ? '--input-json is a structured input' : 'there is none'}. Give the message with --input, e.g. troupe run ${positionals[0]} --attach ${attachments[0]} --input "Summarise this file".`,
    );
  const memory = values.memory ?? false;
  if (memory && values.db !== undefined) {
    throw new CliUsageError(
      `--memory and --db ${JSON.stringify(values.db)} contradict each other: --memory keeps sessions in memory, --db names the SQLite file to keep them in. Give one of them.`,
    );
  }
  return {
    target: positionals[0]!,
    model: values.model,
    input: values.input ?? message,
    inputJson: values['input-json'],
    inputSource:
      values.input !== undefined
        ? '--input'
        : values['input-json'] !== undefined
          ? '--input-json'
          : message !== undefined
            ? 'the message'
            : undefined,
    attachments,
    json: values.json ?? false,
    sessionId: values.session,
    userId: values.user ?? 'user',
    db: values.db,
    memory,
    compaction: parseCompactionFlags(values),
    help,
  };
}
