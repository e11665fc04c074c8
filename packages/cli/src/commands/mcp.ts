import { relative, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { mcpServer, RESUME_TOOL } from '@troupe/mcp';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { chooseDefaultModel } from '../default-model.js';
import { CliUsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { enableTypeScript } from '../import-module.js';
import type { CliIo } from '../io.js';
import { servedApps } from '../served-apps.js';
import { typescriptNeeded } from '../typescript-needed.js';
import { mcpApps } from './mcp-apps.js';
import { MCP_USAGE, parseMcpOptions } from './mcp-options.js';
import { reserveStdout } from './mcp-stdout.js';
import { RunLogPlugin } from './request-log.js';
import { openServeStore } from './serve-store.js';

/**
 * `troupe mcp <agents dir | agent file> [--app name]`: serves the apps as an MCP server over stdio
 * until the host closes stdin (or Ctrl-C, SIGTERM). Stdout carries JSON-RPC only; everything the
 * command says goes to stderr. Returns the exit code.
 */
export async function mcpCommand(args: readonly string[], io: CliIo): Promise<number> {
  const options = parseMcpOptions(args);
  if (options.help) {
    io.stdout.write(MCP_USAGE);
    return ExitCode.ok;
  }
  const target = resolve(io.cwd, options.agentsDir);
  const served = await servedApps(target);
  if (!served)
    throw new CliUsageError(
      `'${options.agentsDir}' is not a directory or an agent file (looked for ${target}). Pass the folder that holds your apps, e.g. 'troupe mcp examples', or one agent file.`,
    );
  // From here on nothing but JSON-RPC reaches stdout, whatever the agents' code prints.
  const stdout = reserveStdout(io);
  try {
    return await serveStdio(io, stdout.channel, { ...options, target, served });
  } finally {
    stdout.restore();
  }
}

async function serveStdio(
  io: CliIo,
  channel: Writable,
  options: ReturnType<typeof parseMcpOptions> & {
    target: string;
    served: NonNullable<Awaited<ReturnType<typeof servedApps>>>;
  },
): Promise<number> {
  const { served } = options;
  const tsNeeded =
    served.kind === 'one' ? typescriptNeeded(served.file, 'file') : typescriptNeeded(options.target, 'directory');
  if (await tsNeeded) await enableTypeScript();
  const defaultModel = chooseDefaultModel(options.model);
  const store = await openServeStore(options, io.cwd);
  const log = (line: string) => io.stderr.write(`troupe mcp: ${line}\n`);
  let apps;
  try {
    apps = await mcpApps({
      served,
      only: options.app,
      cwd: io.cwd,
      store,
      defaultModel: defaultModel.model,
      plugins: [new RunLogPlugin(log)],
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  const mcp = mcpServer({ apps: apps.source });
  const where = relative(io.cwd, options.target) || '.';
  const names = apps.names.filter((name) => name !== RESUME_TOOL);
  log(
    `serving ${names.length > 0 ? `${names.join(', ')} from ${where}` : `no apps (${where} has no folder with an agent.ts, agent.js or agent.yaml)`} over stdio; sessions: ${store.description}, user 'mcp'`,
  );
  if (apps.names.includes(RESUME_TOOL))
    log(
      `the app '${RESUME_TOOL}' is not served: its name is the server's tool that answers paused runs. Rename its folder.`,
    );
  if (defaultModel.offline)
    log(
      'agents that name no model answer with the offline demo model, which is not an LLM. Choose a real one with --model, e.g. --model openai/gpt-4o-mini.',
    );

  const transport = new StdioServerTransport(io.stdin, channel);
  const stopped = stopSignals(io);
  // The host ends the server by closing its stdin (or the transport closes): then stop.
  io.stdin.once('end', stopped.stop);
  io.stdin.once('close', stopped.stop);
  transport.onclose = stopped.stop;
  await mcp.server.connect(transport);
  await stopped.promise;
  try {
    await mcp.close();
  } finally {
    await apps.close();
    await store.close();
  }
  log('stopped');
  return ExitCode.ok;
}

/** Resolves on `stop()`, Ctrl-C or SIGTERM, whichever comes first, and then listens no more. */
function stopSignals(io: CliIo): { promise: Promise<void>; stop: () => void } {
  let stop!: () => void;
  const promise = new Promise<void>((resolveStop) => {
    stop = () => {
      stopListening();
      process.off('SIGTERM', stop);
      resolveStop();
    };
  });
  const stopListening = io.onInterrupt(stop);
  process.once('SIGTERM', stop);
  return { promise, stop };
}
