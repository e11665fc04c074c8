import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import {
  type AuthOptions,
  createApp,
  type ErrorReport,
  serve,
  type ServerHandle,
  type TroupeApp,
} from '@troupe/server';
import { TroupeError } from '@troupe/core';
import type { BaseLlm } from '@troupe/core';
import { chooseDefaultModel } from '../default-model.js';
import { CliUsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { enableTypeScript, importModule } from '../import-module.js';
import { loadAgentModule } from '../load-agent.js';
import type { CliIo } from '../io.js';
import { stopRequested } from '../stop-requested.js';
import { consoleBuffer } from './console-buffer.js';
import { boundHeapGrowth } from './server-heap.js';
import { logRequests, RunLogPlugin } from './request-log.js';
import { type MountedA2a, mountA2a } from './serve-a2a.js';
import { typescriptNeeded } from '../typescript-needed.js';
import { parseServeOptions, type ServeMode, serveUsage } from './serve-options.js';
import { type BackgroundQueue, openBackgroundQueue } from './serve-queue.js';
import { openServeStore } from './serve-store.js';
import { servedApps } from '../served-apps.js';

/** How long a stopping server lets runs in flight finish before cancelling them. */
const GRACE_PERIOD_MS = 10_000;

/**
 * `troupe api <agents dir | agent file>` and `troupe web ...`: serves the apps of the directory
 * (or the one agent of the file) over HTTP (and, for `web`, the dev UI at `/`) until Ctrl-C or
 * SIGTERM, then stops gracefully and returns the exit code. Throws `CliUsageError` for bad arguments.
 */
export async function serveCommand(mode: ServeMode, args: readonly string[], io: CliIo): Promise<number> {
  const options = parseServeOptions(mode, args);
  if (options.help) {
    io.stdout.write(serveUsage(mode));
    return ExitCode.ok;
  }
  const agentsDir = resolve(io.cwd, options.agentsDir);
  const served = await servedApps(agentsDir);
  if (!served) {
    throw new CliUsageError(
      `'${options.agentsDir}' is not a directory or an agent file (looked for ${agentsDir}). Pass the folder that holds your apps, e.g. 'troupe ${mode} examples', or one agent file.`,
    );
  }
  const staticDir = mode === 'web' ? devUiDir() : undefined;
  const defaultModel = chooseDefaultModel(options.model);
  // TypeScript modules named by YAML definitions (tools, sub-agents) are imported by core's loader,
  // so tsx is registered for the whole process, as for the agent modules themselves. The dev UI
  // always has it (apps come and go while developing); an API server only when its apps may need it.
  const tsNeeded =
    served.kind === 'one' ? typescriptNeeded(served.file, 'file') : typescriptNeeded(agentsDir, 'directory');
  if (mode === 'web' || (await tsNeeded)) await enableTypeScript();
  // A file named on the command line (or the entry of a folder that is itself an app) is the only
  // app, loaded now; a directory's apps are found without running any code and loaded on first use.
  const single =
    served.kind === 'one' ? await loadSingle(served.file, served.appName, io.cwd, defaultModel.model) : undefined;

  const store = await openServeStore(options, io.cwd);
  // The server console: a line per request and per run, on stderr beside the failures.
  const serverConsole = consoleBuffer(io.stderr);
  const log = serverConsole.line;
  const loadFailures = new Set<string>();
  let handle: ServerHandle | undefined;
  let queue: BackgroundQueue | undefined;
  let a2a: MountedA2a | undefined;
  let names: string[];
  try {
    queue =
      options.redis === undefined
        ? undefined
        : await openBackgroundQueue(options.redis, store, {
            where: relative(io.cwd, agentsDir) || '.',
            warnUntakenAfterMs: options.warnUntakenAfterMs,
            log,
          });
    const auth: AuthOptions | undefined =
      options.token === undefined ? undefined : { tokens: { [options.token]: '*' } };
    const app = createApp({
      ...(single
        ? { apps: { [single.appName]: single.agent } }
        : { agentsDir, importModule, loadAgentOptions: { model: defaultModel.model } }),
      sessionService: store.service,
      artifactService: store.artifacts,
      memoryService: store.memories,
      ...(options.compaction ? { compaction: options.compaction } : {}),
      ...(queue ? { queue: queue.queue } : {}),
      defaultModel: defaultModel.model,
      ...(auth ? { auth } : {}),
      ...(staticDir ? { staticDir } : {}),
      ...(options.openai ? { openai: true } : {}),
      ...(options.mcp ? { mcp: true } : {}),
      allowedOrigins: options.allowOrigins,
      allowedHosts: options.allowedHosts,
      onError: (error, request, report) => {
        const line = logLine(error, request, report, loadFailures);
        if (line !== undefined) serverConsole.write(line);
      },
      plugins: [new RunLogPlugin(log)],
    });
    if (options.a2a) {
      const source = single ? { single } : { agentsDir, importModule, model: defaultModel.model };
      a2a = await mountA2a(app, {
        source,
        sessionService: store.service,
        artifactService: store.artifacts,
        memoryService: store.memories,
        defaultModel: defaultModel.model,
        auth,
        serverUrl: () => handle!.url,
      });
    }
    handle = await listen(app, options.host, options.port);
    logRequests(handle.server, log);
    names = await appNames(app, options.token);
  } catch (error) {
    await handle?.close({ gracePeriodMs: 0 });
    await queue?.close();
    await store.close();
    throw error;
  }

  const where = relative(io.cwd, agentsDir) || '.';
  io.stdout.write(
    `${mode === 'web' ? 'Troupe dev UI' : 'Troupe API'}: ${handle.url}/${mode === 'web' && options.token ? `#token=${options.token}` : ''}\n`,
  );
  io.stdout.write(
    single
      ? `App ${single.appName} from ${where}\n`
      : `Apps in ${where}: ${names.length > 0 ? names.join(', ') : `none (add a folder with an agent.ts, or run 'troupe ${mode} examples')`}\n`,
  );
  io.stdout.write(`Sessions: ${store.description}\n`);
  if (a2a) {
    const first = single?.appName ?? names[0] ?? '{app}';
    io.stdout.write(
      `A2A: ${handle.url}/a2a/{app} for each app, e.g. agent card ${handle.url}/a2a/${first}/.well-known/agent-card.json${queue ? ' (A2A tasks run in this process, not on workers)' : ''}\n`,
    );
  }
  if (options.openai) {
    const first = single?.appName ?? names[0] ?? '<app>';
    io.stdout.write(
      `OpenAI-compatible API: ${handle.url}/v1 (each app a model, e.g. model '${first}'; POST /v1/chat/completions)\n`,
    );
  }
  if (options.mcp)
    io.stdout.write(
      `MCP: ${handle.url}/mcp (Streamable HTTP, each app a tool${queue ? '; MCP calls run in this process, not on workers' : ''})\n`,
    );
  if (queue)
    io.stdout.write(
      `Runs: on workers, through Redis at ${queue.description} (start them with 'troupe worker ${where} --redis <url>' and the same session store)\n`,
    );
  if (queue?.warning) io.stderr.write(`Warning: ${queue.warning}\n`);
  if (queue?.noWorker) io.stderr.write(`${queue.noWorker}\n`);
  if (options.allowOrigins.length > 0)
    io.stdout.write(`Pages allowed to call the API (CORS): ${options.allowOrigins.join(', ')}\n`);
  if (options.allowedHosts.length > 0)
    io.stdout.write(`Host names answered besides the loopback ones: ${options.allowedHosts.join(', ')}\n`);
  if (defaultModel.offline) {
    io.stderr.write(
      `Note: agents that name no model answer with the offline demo model, which is not an LLM. Choose a real one with --model, e.g. --model openai/gpt-4o-mini.\n`,
    );
  }
  io.stdout.write('Press Ctrl-C to stop.\n');

  await stopRequested(io);
  serverConsole.flush();
  io.stderr.write('Stopping: runs in flight get up to 10 seconds to finish (Ctrl-C again to quit at once)...\n');
  // A second Ctrl-C does not wait for the runs.
  const stopWaiting = io.onInterrupt(() => {
    serverConsole.flush();
    io.stderr.write('Quit without waiting for the runs in flight.\n');
    io.exit?.(ExitCode.cancelled);
  });
  try {
    await Promise.all([handle.close({ gracePeriodMs: GRACE_PERIOD_MS }), a2a?.shutdown(GRACE_PERIOD_MS)]);
  } finally {
    stopWaiting();
    await queue?.close();
    await store.close();
  }
  // The lines of the runs that finished during the grace period come first.
  serverConsole.flush();
  io.stderr.write(`${mode === 'web' ? 'Troupe dev UI' : 'Troupe API'} stopped.\n`);
  return ExitCode.ok;
}

/**
 * One report of `onError` as the terminal shows it: a server-side failure (5xx) with its stack (the
 * client got only the request id), a client's doing (an upload it gave up) as one line. Client
 * errors (4xx) are not reported here: their request line shows the status. An app that fails to
 * load is one line naming the file, the line and the reason, once: each request of the dev UI
 * tries to load it again and fails the same way (undefined then: nothing to print).
 */
function logLine(error: unknown, request: Request, report: ErrorReport, loadFailures: Set<string>): string | undefined {
  const what = `${request.method} ${new URL(request.url).pathname} (request ${report.requestId})`;
  if (error instanceof TroupeError && error.code === 'AGENT_LOAD') {
    const message = error.message.replace(/\s*\n\s*/g, ' ');
    if (loadFailures.has(message)) return undefined;
    // Bounded: a file edited again and again fails with new messages.
    if (loadFailures.size >= 100) loadFailures.clear();
    loadFailures.add(message);
    return `troupe: ${what} failed: ${message} (the next request loads it again)\n`;
  }
  if (report.level === 'info') return `troupe: ${what}: ${error instanceof Error ? error.message : String(error)}\n`;
  return `troupe: ${what} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`;
}

/** The one app served: the file's agent, named after its folder when that folder was named. */
async function loadSingle(file: string, appName: string | undefined, cwd: string, model: BaseLlm) {
  const loaded = await loadAgentModule(file, { cwd, model });
  return appName === undefined ? loaded : { ...loaded, appName };
}

/** The built dev UI: `dist/ui` of the @troupe/server package. */
export function devUiDir(): string {
  const dir = join(packageRoot(createRequire(import.meta.url).resolve('@troupe/server')), 'dist', 'ui');
  if (!existsSync(join(dir, 'index.html'))) {
    throw new Error(
      `The dev UI is not built: ${join(dir, 'index.html')} is missing. Run 'npm run build' in the Troupe repository (or reinstall @troupe/server).`,
    );
  }
  return dir;
}

/**
 * The folder of the package.json above a resolved entry point: the entry may be `dist/index.js`,
 * or `src/index.ts` when resolved with the repository's `@troupe/source` condition.
 */
function packageRoot(entry: string): string {
  let dir = dirname(entry);
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return dirname(entry);
    dir = parent;
  }
  return dir;
}

async function listen(app: TroupeApp, host: string, port: number): Promise<ServerHandle> {
  boundHeapGrowth();
  try {
    // The CLI owns its process: the Node adapter's lightweight Request/Response may be its globals.
    return await serve(app, { host, port, gracePeriodMs: GRACE_PERIOD_MS, overrideGlobalObjects: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new CliUsageError(
        `Port ${port} on ${host} is already in use. Stop what listens there, or pick another port with --port (0 picks a free one).`,
      );
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new CliUsageError(`Cannot bind --host ${host}: it is not an address of this machine.`);
    throw error;
  }
}

/** The app names the server offers, as `GET /list-apps` answers; this also finds agents-dir problems now rather than on the first request. */
async function appNames(app: TroupeApp, token: string | undefined): Promise<string[]> {
  const response = await app.request(
    '/list-apps',
    token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } },
  );
  const body: unknown = await response.json();
  if (!response.ok) {
    const message = (body as { error?: { message?: string } }).error?.message ?? `status ${response.status}`;
    throw new Error(`Listing the apps failed: ${message}`);
  }
  return body as string[];
}
