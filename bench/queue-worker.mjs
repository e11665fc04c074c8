// One worker of bench/queue.mjs: a RunWorker over the bench's store and Redis, running the 3-step
// instant agent. Argument: a JSON object { redis, db | pg, prefix, concurrency, streamTtlMs }.
// Prints "ready" once it takes jobs; exits on SIGTERM after closing.
import process from 'node:process';
import { join } from 'node:path';
import { URL, fileURLToPath } from 'node:url';
import { threeStepAgent } from './queue-agent.mjs';
import { openWorkerStore } from './worker-store.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (pkg) => join(root, 'packages', pkg, 'dist', 'index.js');
const options = JSON.parse(process.argv[2]);
const core = await import(dist('core'));
const { RunWorker } = await import(dist('queue'));
const sessionService = await openWorkerStore(options);

const worker = new RunWorker({
  apps: { bench: threeStepAgent(core) },
  sessionService,
  redis: options.redis,
  prefix: options.prefix,
  concurrency: options.concurrency,
  streamTtlMs: options.streamTtlMs,
  sweepIntervalMs: 0,
});
await worker.start();
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void worker
    .close({ gracePeriodMs: 5_000 })
    .then(() => sessionService.close?.())
    .finally(() => process.exit(0));
});
