// One API replica with background runs: the HTTP server over a shared PostgreSQL store, handing
// runs to the workers through Redis (createApp's queue), as `troupe api --redis` runs one.
// Arguments: a JSON object { redis, pg, schema, prefix }. Prints "listening <url>" when up.
// It imports the built packages (npm run build), as a deployed replica would; the agents are the
// workers' own (queue-worker-apps.mjs), for the graph and the resume checks.
import process from 'node:process';
import { PostgresSessionService } from '@troupe/postgres';
import { RunQueue } from '@troupe/queue';
import { createApp, serve } from '@troupe/server';
import { apps } from './queue-worker-apps.mjs';

const options = JSON.parse(process.argv[2]);
const sessionService = new PostgresSessionService({ connectionString: options.pg, schema: options.schema });
const queue = new RunQueue({ redis: options.redis, sessionService, prefix: options.prefix });
const app = createApp({ apps: apps({ log: '/dev/null', stepMs: 0 }), sessionService, queue });
const handle = await serve(app, { port: 0 });
process.stdout.write(`listening ${handle.url}\n`);
process.on('SIGTERM', () => {
  void handle
    .close({ gracePeriodMs: 0 })
    .finally(() => queue.close())
    .finally(() => sessionService.close())
    .finally(() => process.exit(0));
});
