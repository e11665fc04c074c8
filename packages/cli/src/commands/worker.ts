import { relative, resolve } from 'node:path';
import type { BaseAgent, BaseLlm } from '@troupe/core';
import { discoverApps } from '@troupe/server';
import { chooseDefaultModel } from '../default-model.js';
import { CliUsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { enableTypeScript, importModule } from '../import-module.js';
import type { CliIo } from '../io.js';
import { loadAgentModule } from '../load-agent.js';
import { redactUrl } from '../redact-url.js';
import { servedApps } from '../served-apps.js';
import { stopRequested } from '../stop-requested.js';
import { runReportLine } from './queue-log.js';
import { checkRunRecords, importQueue, probeRedis } from './queue-support.js';
import { openServeStore } from './serve-store.js';
import { parseWorkerOptions, WORKER_USAGE } from './worker-options.js';

/**
 * `troupe worker <agents dir | agent file> --redis <url> [--pg <url> | --db <path>] [--concurrency n]
 * [--lock-duration ms] [--grace-period ms] [--stream-ttl ms] [--model m]`: runs the background runs of the apps until
 * Ctrl-C or SIGTERM, then stops taking runs, lets those in progress finish within the grace period
 * and hands the rest back to the queue. Returns the exit code.
 */
export async function workerCommand(args: readonly string[], io: CliIo): Promise<number> {
  const options = parseWorkerOptions(args);
  if (options.help) {
    io.stdout.write(WORKER_USAGE);
    return ExitCode.ok;
  }
  const agentsDir = resolve(io.cwd, options.agentsDir);
  const defaultModel = chooseDefaultModel(options.model);
  await enableTypeScript();
  const apps = await loadApps(agentsDir, options.agentsDir, io.cwd, defaultModel.model);
  const names = Object.keys(apps);
  if (names.length === 0) {
    throw new CliUsageError(
      `'${options.agentsDir}' holds no apps (folders with an agent.ts, agent.js or agent.yaml). Give the directory 'troupe api' serves.`,
    );
  }
  const queue = await importQueue('troupe worker');
  const redisWarning = await probeRedis(options.redis);

  const store = await openServeStore({ pg: options.pg, db: options.db, memory: false }, io.cwd);
  let worker: InstanceType<typeof queue.RunWorker> | undefined;
  try {
    checkRunRecords(store.service, store.description);
    worker = new queue.RunWorker({
      apps,
      sessionService: store.service,
      artifactService: store.artifacts,
      memoryService: store.memories,
      redis: options.redis,
      defaultModel: defaultModel.model,
      ...(options.compaction ? { compaction: options.compaction } : {}),
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      ...(options.lockDurationMs === undefined ? {} : { lockDurationMs: options.lockDurationMs }),
      ...(options.streamTtlMs === undefined ? {} : { streamTtlMs: options.streamTtlMs }),
      onError: (error, context) =>
        io.stderr.write(
          `troupe worker: ${context.during}${context.runId ? ` (run ${context.runId})` : ''}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
        ),
      // One line per run started, taken over, ended or drained, as docs/cli.md says.
      onRun: (report) => io.stderr.write(`${runReportLine(report)}\n`),
    });
    await worker.start();
  } catch (error) {
    await worker?.close({ gracePeriodMs: 0 }).catch(() => undefined);
    await store.close();
    throw error;
  }

  const where = relative(io.cwd, agentsDir) || '.';
  io.stdout.write(
    `Troupe worker ready: apps ${names.join(', ')} from ${where}; runs from ${redactUrl(options.redis)}; sessions: ${store.description}; concurrency ${options.concurrency ?? 10}. Press Ctrl-C to stop.\n`,
  );
  if (redisWarning) io.stderr.write(`Warning: ${redisWarning}\n`);
  if (defaultModel.offline) {
    io.stderr.write(
      'Note: agents that name no model answer with the offline demo model, which is not an LLM. Choose a real one with --model, e.g. --model openai/gpt-4o-mini.\n',
    );
  }

  await stopRequested(io);
  io.stderr.write(
    `Stopping: runs in progress get up to ${options.gracePeriodMs} ms to finish, then go back on the queue for another worker...\n`,
  );
  try {
    await worker.close({ gracePeriodMs: options.gracePeriodMs });
  } finally {
    await store.close();
  }
  return ExitCode.ok;
}

/**
 * The apps of a directory, found as `troupe api` finds them and loaded now; or the one agent of a
 * file, or of a folder that is itself an app (see `servedApps`).
 */
async function loadApps(path: string, given: string, cwd: string, model: BaseLlm): Promise<Record<string, BaseAgent>> {
  const served = await servedApps(path);
  if (!served) {
    throw new CliUsageError(
      `'${given}' is not a directory or an agent file (looked for ${path}). Give the folder 'troupe api' serves, e.g. 'troupe worker examples --redis redis://127.0.0.1:6379'.`,
    );
  }
  if (served.kind === 'one') {
    const single = await loadAgentModule(served.file, { cwd, model });
    return { [served.appName ?? single.appName]: single.agent };
  }
  const apps: Record<string, BaseAgent> = {};
  // The same discovery as the API's, but every app is loaded up front: a worker must be able to run any of them.
  for (const app of await discoverApps(path, { importModule, loadAgentOptions: { model } })) {
    apps[app.name] = (await loadAgentModule(app.file, { cwd, model })).agent;
  }
  return apps;
}
