import { parseArgs } from 'node:util';
import { allowedHostProblem, allowedOriginProblem, isLoopback } from '@troupe/server';
import { CliUsageError } from '../errors.js';
import type { CompactionOptions } from '@troupe/core';
import { parseArgsErrorMessage } from '../parse-args-error.js';
import { COMPACTION_FLAGS, compactionUsage, parseCompactionFlags } from './compaction-flags.js';
import { checkRedisUrl } from './queue-support.js';
import { checkNotEmpty, checkOneSessionStore } from './option-checks.js';

/** `troupe api` serves the HTTP API; `troupe web` the API and the browser dev UI. */
export type ServeMode = 'api' | 'web';

/** The options of `troupe api` / `troupe web`, parsed and checked. */
export interface ServeCommandOptions {
  /** The agents directory, or one agent file (module or YAML/JSON definition) to serve as the only app. Empty when `help` is set. */
  agentsDir: string;
  /** `--host`: the address to bind. @default '127.0.0.1' */
  host: string;
  /** `--port`: 0 picks a free port. @default 8000 */
  port: number;
  /** `--token`: the bearer token every API request must carry; needed to bind a non-loopback host. */
  token: string | undefined;
  /** `--model`: the default model string for LlmAgents that set none. */
  model: string | undefined;
  /** `--db`: the SQLite file sessions are kept in. @default '.troupe/troupe.db' under the working directory */
  db: string | undefined;
  /** `--pg`: a PostgreSQL connection string; sessions are kept there instead of SQLite. */
  pg: string | undefined;
  /** `--memory`: keep sessions in memory only, gone when the server stops. */
  memory: boolean;
  /** `--allow-origin` (repeatable): web pages of other origins that may call the API (CORS), e.g. a Vite dev server. @default [] */
  allowOrigins: string[];
  /** `--redis`: a Redis URL; runs then execute on `troupe worker` processes, handed over through it. */
  redis: string | undefined;
  /** `--warn-untaken-after`: with `--redis`, a queued run no worker has taken this many ms later is logged; 0 never. @default 10000 */
  warnUntakenAfterMs: number;
  /** `--allowed-host` (repeatable): host names the server answers to besides its loopback names. @default [] */
  allowedHosts: string[];
  /** `--a2a`: also serve each app over A2A at `/a2a/{app}` (needs @troupe/a2a). @default false */
  a2a: boolean;
  /** `--openai`: also serve the apps as OpenAI-compatible models at `/v1` (chat completions). @default false */
  openai: boolean;
  /** `--mcp`: also serve the apps as an MCP server (Streamable HTTP) at `/mcp`. @default false */
  mcp: boolean;
  /** `--compact-every` / `--compact-overlap`: compaction of long sessions. */
  compaction: CompactionOptions | undefined;
  /** `--help`: print the usage and do nothing else. */
  help: boolean;
}

/** The port `adk api_server` and `adk web` listen on. */
export const DEFAULT_PORT = 8000;

/** The default `--warn-untaken-after`: long enough for a busy worker to get to a run, short enough to be noticed. */
export const DEFAULT_WARN_UNTAKEN_AFTER_MS = 10_000;

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
  model: { type: 'string' },
  db: { type: 'string' },
  pg: { type: 'string' },
  memory: { type: 'boolean' },
  redis: { type: 'string' },
  'warn-untaken-after': { type: 'string' },
  'allow-origin': { type: 'string', multiple: true },
  'allowed-host': { type: 'string', multiple: true },
  a2a: { type: 'boolean' },
  openai: { type: 'boolean' },
  mcp: { type: 'boolean' },
  ...COMPACTION_FLAGS,
  help: { type: 'boolean', short: 'h' },
} as const;

/** Parses the arguments after `troupe api` or `troupe web`. Throws {@link CliUsageError} naming the bad value and the fix. */
export function parseServeOptions(mode: ServeMode, args: readonly string[]): ServeCommandOptions {
  const command = `troupe ${mode}`;
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliUsageError(
      `${parseArgsErrorMessage(error, command, OPTIONS)} Run '${command} --help' for the options.`,
    );
  }
  const { values, positionals } = parsed;
  const defaults = {
    host: '127.0.0.1',
    port: DEFAULT_PORT,
    token: undefined,
    model: undefined,
    db: undefined,
    pg: undefined,
    memory: false,
    redis: undefined,
    warnUntakenAfterMs: DEFAULT_WARN_UNTAKEN_AFTER_MS,
    allowOrigins: [],
    allowedHosts: [],
    a2a: false,
    openai: false,
    mcp: false,
    compaction: undefined,
  };
  if (values.help) return { agentsDir: '', ...defaults, help: true };
  if (positionals.length !== 1) {
    const got = positionals.length === 0 ? 'none' : positionals.map((p) => `'${p}'`).join(', ');
    throw new CliUsageError(
      `'${command}' takes one agents directory (each app a folder with agent.ts, agent.js or agent.yaml) or one agent file; got ${got}. Example: '${command} examples'.`,
    );
  }
  checkNotEmpty(values, ['host', 'port', 'token', 'model', 'db', 'pg', 'redis']);
  checkOneSessionStore(values);
  if (values.redis !== undefined) {
    checkRedisUrl(values.redis);
    if (values.memory) {
      throw new CliUsageError(
        `${command} --redis cannot keep sessions in memory (--memory): the API and the workers are separate processes and must share one session store. Use --db <path> (SQLite, one machine) or --pg <url> (PostgreSQL).`,
      );
    }
  }
  const untaken = values['warn-untaken-after'];
  if (untaken !== undefined && values.redis === undefined)
    throw new CliUsageError(
      `--warn-untaken-after is about runs queued for workers: it needs --redis <url>. Add --redis, or leave it out.`,
    );
  if (untaken !== undefined && (!/^\d+$/.test(untaken) || !Number.isSafeInteger(Number(untaken))))
    throw new CliUsageError(
      `--warn-untaken-after ${JSON.stringify(untaken)} is not valid; give a whole number of milliseconds, e.g. --warn-untaken-after 10000 (0: never).`,
    );
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!/^\d+$/.test(values.port ?? '0') || !Number.isInteger(port) || port > 65535) {
    throw new CliUsageError(
      `--port ${JSON.stringify(values.port)} is not a port; use a whole number from 0 to 65535 (0 picks a free port).`,
    );
  }
  const token = values.token;
  if (token !== undefined && /\s/.test(token))
    throw new CliUsageError('--token cannot contain whitespace: it is sent as "Authorization: Bearer <token>".');
  const host = values.host ?? defaults.host;
  if (!isLoopback(host) && token === undefined) {
    throw new CliUsageError(
      `--host ${host} is reachable from other machines, and without a token anyone who reaches it could run the agents and read every session. Add --token <secret> (clients send 'Authorization: Bearer <secret>'), or bind 127.0.0.1.`,
    );
  }
  const allowOrigins = checkedList(
    'allow-origin',
    values['allow-origin'],
    allowedOriginProblem,
    'scheme, host and port, e.g. --allow-origin http://localhost:5173',
  );
  const allowedHosts = checkedList(
    'allowed-host',
    values['allowed-host'],
    allowedHostProblem,
    'a host name as browsers send it, e.g. --allowed-host dev.example.com (any port), dev.example.com:8443 or .example.com',
  );
  return {
    agentsDir: positionals[0]!,
    host,
    port,
    token,
    model: values.model,
    db: values.db,
    pg: values.pg,
    memory: values.memory ?? false,
    redis: values.redis,
    warnUntakenAfterMs: untaken === undefined ? DEFAULT_WARN_UNTAKEN_AFTER_MS : Number(untaken),
    allowOrigins,
    allowedHosts,
    a2a: values.a2a ?? false,
    openai: values.openai ?? false,
    mcp: values.mcp ?? false,
    compaction: parseCompactionFlags(values),
    help: false,
  };
}

/** The values of a repeatable flag, each checked by the server's own rule. */
function checkedList(
  flag: string,
  values: string[] | undefined,
  problemOf: (entry: string) => string | undefined,
  form: string,
): string[] {
  for (const value of values ?? []) {
    const problem = problemOf(value);
    if (problem !== undefined)
      throw new CliUsageError(`--${flag} ${JSON.stringify(value)} is refused, ${problem}. Give ${form}.`);
  }
  return [...(values ?? [])];
}

/** `troupe api --help` / `troupe web --help`. */
export function serveUsage(mode: ServeMode): string {
  const what =
    mode === 'web'
      ? "Serves the browser dev UI at / and the HTTP API (the routes of ADK's API server) for the apps in\n<agents dir>: chat, the agent tree, events live, state changes, approvals, and stored sessions."
      : "Serves the HTTP API (the routes of ADK's API server, with SSE streaming) for the apps in <agents dir>.";
  return `Usage: troupe ${mode} <agents dir | agent file> [options]

${what}
Each folder of <agents dir> with an agent.ts, agent.js, agent.yaml (or another agent.* entry, or
root_agent.yaml) is an app named after the folder, loaded on first use; nothing else in the
directory is imported. An agent file (a module exporting 'rootAgent', or a YAML/JSON definition)
is served as the only app, named after the file. Sessions are kept in SQLite at .troupe/troupe.db
under the current directory.

Options:
  --host <address>    Address to bind (default: 127.0.0.1); any other needs --token
  --port <n>          Port (default: ${DEFAULT_PORT}; 0 picks a free one)
  --token <secret>    Require 'Authorization: Bearer <secret>' on every API request
  --model <model>     Default model for agents that set none, e.g. openai/gpt-4o-mini
                      (without it: the offline demo model, which is not an LLM)
  --db <path>         SQLite file for sessions (default: .troupe/troupe.db)
  --pg <url>          Keep sessions in PostgreSQL instead (needs @troupe/postgres)
  --memory            Keep sessions in memory only (gone when the server stops)
  --redis <url>       Run on workers: runs go through this Redis to 'troupe worker' processes
                      sharing the session store (--db or --pg), e.g. redis://127.0.0.1:6379,
                      and the background-run routes (.../runs, /apps/{app}/schedules) are served
  --warn-untaken-after <ms>
                      With --redis: log a queued run that no worker has taken this long after
                      (default: ${DEFAULT_WARN_UNTAKEN_AFTER_MS}; 0: never)
  --allow-origin <url>
                      Let web pages of this origin call the API from a browser (CORS), e.g.
                      http://localhost:5173 for a Vite dev server; repeat for more
  --allowed-host <name>
                      Answer to this host name too (e.g. behind a proxy: dev.example.com,
                      dev.example.com:8443, .example.com); repeat for more. By default only
                      127.0.0.1, localhost and [::1] at the server's port are answered, so a
                      web page on another name cannot drive the server (DNS rebinding)
  --a2a               Also serve each app over A2A (JSON-RPC, 1.0 and 0.3) at /a2a/{app}, its
                      agent card at /a2a/{app}/.well-known/agent-card.json (needs @troupe/a2a)
  --openai            Also serve the apps as OpenAI-compatible models at /v1 (GET /v1/models,
                      POST /v1/chat/completions with model = app name), for OpenAI's SDKs and
                      chat front ends; the API key is --token
  --mcp               Also serve the apps as an MCP server (Streamable HTTP) at /mcp, each app a
                      tool, for MCP hosts; clients send --token as 'Authorization: Bearer <token>'
${compactionUsage(22)}  -h, --help          Show this help

Stop the server with Ctrl-C: runs in flight get 10 seconds to finish, then are cancelled.
`;
}
