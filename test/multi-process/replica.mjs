// One API replica: the HTTP server over a shared PostgreSQL store, with a slow three-step job.
// Arguments: <postgres url> <schema> <lease ttl ms> <step ms>. Prints "listening <url>" when up.
// It imports the built packages (npm run build), as a deployed replica would.
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { FunctionAgent, SequentialAgent } from '@troupe/core';
import { PostgresSessionService } from '@troupe/postgres';
import { createApp, serve } from '@troupe/server';

const [url, schema, ttl, stepMs] = process.argv.slice(2);
// Plain waits that ignore the abort signal: the steps stand for real work a process cannot stop.
const step = (name) =>
  new FunctionAgent({
    name,
    run: async () => {
      await sleep(Number(stepMs));
      return `${name} by ${process.pid}`;
    },
  });
const job = new SequentialAgent({ name: 'Job', subAgents: [step('s1'), step('s2'), step('s3')] });
const sessionService = new PostgresSessionService({ connectionString: url, schema });
const app = createApp({ apps: { jobs: job }, sessionService, leaseTtlMs: Number(ttl) });
const handle = await serve(app, { port: 0 });
process.stdout.write(`listening ${handle.url}\n`);
process.on('SIGTERM', () => {
  void handle.close({ gracePeriodMs: 0 }).finally(() => sessionService.close().finally(() => process.exit(0)));
});
