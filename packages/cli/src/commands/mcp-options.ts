import { parseArgs } from 'node:util';
import { CliUsageError } from '../errors.js';
import { parseArgsErrorMessage } from '../parse-args-error.js';
import { checkNotEmpty, checkOneSessionStore } from './option-checks.js';

/** The options of `troupe mcp`, parsed and checked. */
export interface McpCommandOptions {
  /** The agents directory, or one agent file. Empty when `help` is set. */
  agentsDir: string;
  /** `--app`: serve only this app of the directory. */
  app: string | undefined;
  /** `--model`: the default model string for LlmAgents that set none. */
  model: string | undefined;
  /** `--db`: the SQLite file sessions are kept in. @default '.troupe/troupe.db' under the working directory */
  db: string | undefined;
  /** `--pg`: a PostgreSQL connection string; sessions are kept there instead of SQLite. */
  pg: string | undefined;
  /** `--memory`: keep sessions in memory only, gone when the server stops. */
  memory: boolean;
  /** `--help`: print the usage and do nothing else. */
  help: boolean;
}

const OPTIONS = {
  app: { type: 'string' },
  model: { type: 'string' },
  db: { type: 'string' },
  pg: { type: 'string' },
  memory: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Parses the arguments after `troupe mcp`. Throws {@link CliUsageError} naming the bad value and the fix. */
export function parseMcpOptions(args: readonly string[]): McpCommandOptions {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliUsageError(
      `${parseArgsErrorMessage(error, 'troupe mcp', OPTIONS)} Run 'troupe mcp --help' for the options.`,
    );
  }
  const { values, positionals } = parsed;
  const base = { app: undefined, model: undefined, db: undefined, pg: undefined, memory: false };
  if (values.help) return { agentsDir: '', ...base, help: true };
  if (positionals.length !== 1) {
    const got = positionals.length === 0 ? 'none' : positionals.map((p) => `'${p}'`).join(', ');
    throw new CliUsageError(
      `'troupe mcp' takes one agents directory (each app a folder with agent.ts, agent.js or agent.yaml) or one agent file; got ${got}. Example: 'troupe mcp examples --app weather'.`,
    );
  }
  checkNotEmpty(values, ['app', 'model', 'db', 'pg']);
  checkOneSessionStore(values);
  return {
    agentsDir: positionals[0]!,
    app: values.app,
    model: values.model,
    db: values.db,
    pg: values.pg,
    memory: values.memory ?? false,
    help: false,
  };
}

/** `troupe mcp --help`. */
export const MCP_USAGE = `Usage: troupe mcp <agents dir | agent file> [options]

Serves the apps in <agents dir> as an MCP server over stdio, for MCP hosts (Claude Desktop, VS Code,
Cursor, ...) that start it as a command. Each app is a tool: its input is { message, sessionId? }
(or the root agent's inputSchema), its result the agent's final answer with _meta.sessionId, which
continues the session when passed back as sessionId. Approvals and requests for input are asked as
elicitations when the host supports them; otherwise the 'resume' tool answers them.
Stdout carries only MCP's JSON-RPC messages; logs go to stderr. Sessions are kept in SQLite at
.troupe/troupe.db under the current directory, under the user 'mcp'.

Options:
  --app <name>        Serve only this app of the directory
  --model <model>     Default model for agents that set none, e.g. openai/gpt-4o-mini
                      (without it: the offline demo model, which is not an LLM)
  --db <path>         SQLite file for sessions (default: .troupe/troupe.db)
  --pg <url>          Keep sessions in PostgreSQL instead (needs @troupe/postgres)
  --memory            Keep sessions in memory only (gone when the server stops)
  -h, --help          Show this help

An MCP host's configuration, e.g. Claude Desktop's claude_desktop_config.json (hosts start the
command in a folder of their own, so give absolute paths, the session database's too):
  { "mcpServers": { "troupe": { "command": "node", "args": [
      "/path/to/my-agents/node_modules/@troupe/cli/bin/troupe.js", "mcp", "/path/to/my-agents",
      "--db", "/path/to/my-agents/.troupe/troupe.db"] } } }

The server stops when the host closes its stdin, or on Ctrl-C or SIGTERM (runs in flight are
cancelled, each storing its cancellation).
`;
