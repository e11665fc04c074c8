// One background worker over a shared PostgreSQL store and Redis, as `troupe worker` runs one.
// Arguments: a JSON object { redis, pg, schema, prefix, log, lockDurationMs, stepMs, graceMs, sweepIntervalMs }.
// Prints "ready <pid>" once it takes jobs. The apps are in queue-worker-apps.mjs.
// It imports the built packages (npm run build), as a deployed worker would.
import process from 'node:process';
import { PostgresSessionService } from '@troupe/postgres';
import { RunWorker } from '@troupe/queue';
import { apps } from './queue-worker-apps.mjs';

const options = JSON.parse(process.argv[2]);
// As short as the lock: a worker frozen mid-write must not hold the session's row past its lease.
const sessionService = new PostgresSessionService({
  connectionString: options.pg,
  schema: options.schema,
  idleInTransactionTimeoutMs: options.lockDurationMs,
});
const worker = new RunWorker({
  apps: apps(options),
  sessionService,
  redis: options.redis,
  prefix: options.prefix,
  lockDurationMs: options.lockDurationMs,
  sweepIntervalMs: options.sweepIntervalMs ?? 0,
  onError: () => undefined,
});
await worker.start();
process.stdout.write(`ready ${process.pid}\n`);
process.on('SIGTERM', () => {
  void worker
    .close({ gracePeriodMs: options.graceMs ?? 0 })
    .finally(() => sessionService.close())
    .finally(() => process.exit(0));
});
