import { readFile } from 'node:fs/promises';
import { apiCommand } from './commands/api.js';
import { createCommand, CREATE_USAGE } from './commands/create.js';
import { EVAL_USAGE, evalCommand } from './commands/eval.js';
import { mcpCommand } from './commands/mcp.js';
import { MCP_USAGE } from './commands/mcp-options.js';
import { runCommand } from './commands/run.js';
import { serveUsage } from './commands/serve-options.js';
import { webCommand } from './commands/web.js';
import { workerCommand } from './commands/worker.js';
import { WORKER_USAGE } from './commands/worker-options.js';
import { AgentLoadError, CliUsageError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import type { CliIo } from './io.js';
import { MAIN_USAGE, RUN_USAGE } from './usage.js';

/**
 * Runs the `troupe` command with `argv` (without `node` and the script) and returns the exit code.
 * Everything it prints goes through `io`; errors are reported on `io.stderr`, never thrown.
 *
 * @example
 * process.exitCode = await runCli(process.argv.slice(2), processIo());
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    return reportError(error, io);
  }
}

async function dispatch(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
      io.stderr.write(MAIN_USAGE);
      return ExitCode.usage;
    case 'run':
      return runCommand(rest, io);
    case 'api':
      return apiCommand(rest, io);
    case 'web':
      return webCommand(rest, io);
    case 'mcp':
      return mcpCommand(rest, io);
    case 'worker':
      return workerCommand(rest, io);
    case 'eval':
      return evalCommand(rest, io);
    case 'create':
      return createCommand(rest, io);
    case 'help':
    case '--help':
    case '-h':
      io.stdout.write(helpOf(rest[0]));
      return ExitCode.ok;
    case '--version':
    case '-v':
      io.stdout.write(`${await version()}\n`);
      return ExitCode.ok;
    default:
      if (command.startsWith('-'))
        throw new CliUsageError(
          `Unknown option '${command}'. Put the command first, e.g. 'troupe run ${command} ...', or run 'troupe --help'.`,
        );
      throw new CliUsageError(
        `Unknown command '${command}'. The commands are: run, api, web, mcp, worker, eval, create. Run 'troupe --help' for usage.`,
      );
  }
}

/** `troupe help [command]`. */
function helpOf(command: string | undefined): string {
  switch (command) {
    case 'run':
      return RUN_USAGE;
    case 'eval':
      return EVAL_USAGE;
    case 'create':
      return CREATE_USAGE;
    case 'api':
    case 'web':
      return serveUsage(command);
    case 'worker':
      return WORKER_USAGE;
    case 'mcp':
      return MCP_USAGE;
    case undefined:
    default:
      return MAIN_USAGE;
  }
}

function reportError(error: unknown, io: CliIo): number {
  if (error instanceof CliUsageError) {
    io.stderr.write(`troupe: ${error.message}\n`);
    return ExitCode.usage;
  }
  if (error instanceof AgentLoadError) {
    io.stderr.write(`troupe: ${error.message}\n`);
    if (error.failure !== 'import-failed') return ExitCode.usage;
    // The agent module's own error: its stack points at the user's code.
    if (error.cause instanceof Error && error.cause.stack) io.stderr.write(`${error.cause.stack}\n`);
    return ExitCode.failed;
  }
  io.stderr.write(`troupe: ${error instanceof Error ? error.message : String(error)}\n`);
  return ExitCode.failed;
}

async function version(): Promise<string> {
  const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
  };
  return String(manifest.version);
}
