// One worker of bench/chaos.mjs: a RunWorker over the bench's store and Redis, running a
// SequentialAgent of `steps` steps, each an async wait of `stepMs` and then a side effect: a line
// "<step> <runId> <pid>" appended to `stepLog` (one line per execution, so the bench counts steps
// that ran twice). Every onRun report goes to `runLog` as a JSON line with this pid and the time.
// Argument: a JSON object { redis, db | pg + schema, prefix, concurrency, steps, stepMs,
// stepLog, runLog, lockDurationMs?, stalledIntervalMs? }. Prints "ready" once it takes jobs; exits on SIGTERM.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { URL, fileURLToPath } from 'node:url';
import { openWorkerStore } from './worker-store.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (pkg) => join(root, 'packages', pkg, 'dist', 'index.js');
const options = JSON.parse(process.argv[2]);
const core = await import(dist('core'));
const { RunWorker } = await import(dist('queue'));
const sessionService = await openWorkerStore(options);

const step = (name) =>
  new core.FunctionAgent({
    name,
    // A plain wait that ignores the abort signal: real work a process cannot stop.
    run: async (_input, ctx) => {
      await sleep(options.stepMs);
      appendFileSync(options.stepLog, `${name} ${ctx.invocationId} ${process.pid}\n`);
      return `${name} done`;
    },
  });
const agent = new core.SequentialAgent({
  name: 'Chaos',
  subAgents: Array.from({ length: options.steps }, (_, i) => step(`step${i + 1}`)),
});

const worker = new RunWorker({
  apps: { chaos: agent },
  sessionService,
  redis: options.redis,
  prefix: options.prefix,
  concurrency: options.concurrency,
  sweepIntervalMs: 0,
  ...(options.lockDurationMs ? { lockDurationMs: options.lockDurationMs } : {}),
  ...(options.stalledIntervalMs ? { stalledIntervalMs: options.stalledIntervalMs } : {}),
  onError: () => undefined,
  onRun: (report) =>
    appendFileSync(
      options.runLog,
      `${JSON.stringify({ at: Date.now(), pid: process.pid, kind: report.kind, runId: report.run.runId, takeover: report.kind === 'started' ? report.takeover : undefined })}\n`,
    ),
});
await worker.start();
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void worker
    .close({ gracePeriodMs: 2_000 })
    .then(() => sessionService.close?.())
    .finally(() => process.exit(0));
});
