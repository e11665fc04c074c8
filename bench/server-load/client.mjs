// The load generator of bench/server-load.mjs and bench/capacity.mjs, in its own process so the
// servers under test keep their CPU time to themselves (they still share the machine). N clients,
// each on keep-alive connections, repeat one request after another: create a session (POST
// /apps/{app}/users/{user}/sessions), then one run on it (POST /run, or POST /run_sse read to its
// end), for `warmup` + `seconds` seconds. Given several `urls` (API replicas), requests go to them in
// turn, as a load balancer without sticky sessions would send them. A request counts when it
// finishes inside the measured window (after the warm-up, before the end), like a load tool counting
// the responses of a time window. Every response is checked (requests.mjs) for the tool call, the
// tool's result and the answer; a failed check is an error.
// Usage: node bench/server-load/client.mjs '<json: { url | urls, app, route, clients, warmup, seconds }>'
// Prints `window-start` and `window-end` when the measured window opens and closes (a parent reading
// its own counters at those moments waits for them), then one JSON line: { requests, errors,
// errorSamples, reqPerSec, p50Ms, p99Ms, maxMs, perReplica, ... }.
import console from 'node:console';
import http from 'node:http';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { setTimeout } from 'node:timers';
import { quantile, round } from '../stats.mjs';
import { requester } from './requests.mjs';

const options = JSON.parse(process.argv[2]);
const { app, route = 'run', clients, warmup, seconds } = options;
const urls = options.urls ?? [options.url];
const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
const replicas = urls.map((url) => requester({ url, app, route, agent }));

const started = performance.now();
const measureFrom = started + warmup * 1000;
const stopAt = measureFrom + seconds * 1000;
setTimeout(() => process.stdout.write('window-start\n'), measureFrom - performance.now());
setTimeout(() => process.stdout.write('window-end\n'), stopAt - performance.now());
const latencies = [];
const perReplica = urls.map(() => 0);
let errors = 0;
let warmupRequests = 0;
let next = 0;
const errorSamples = new Map();

async function client(index) {
  while (performance.now() < stopAt) {
    const replica = next++ % replicas.length;
    const t0 = performance.now();
    try {
      const done = await replicas[replica](`u${index}`);
      if (done >= measureFrom && done <= stopAt) {
        latencies.push((done - t0) * 1000);
        perReplica[replica]++;
      } else if (done < measureFrom) warmupRequests++;
    } catch (error) {
      const failedAt = performance.now();
      if (failedAt >= measureFrom && failedAt <= stopAt) errors++;
      const message = String(error.message ?? error).slice(0, 200);
      errorSamples.set(message, (errorSamples.get(message) ?? 0) + 1);
    }
  }
}

await Promise.all(Array.from({ length: clients }, (_, i) => client(i)));
agent.destroy();
console.log(
  JSON.stringify({
    route,
    clients,
    seconds,
    warmup,
    warmupRequests,
    requests: latencies.length,
    perReplica,
    errors,
    errorSamples: [...errorSamples].map(([message, count]) => ({ message, count })),
    reqPerSec: round(latencies.length / seconds, 1),
    p50Ms: round(quantile(latencies, 0.5) / 1000, 2),
    p99Ms: round(quantile(latencies, 0.99) / 1000, 2),
    // A loop, not Math.max(...latencies): a long run has more samples than the stack has room for arguments.
    maxMs: round(latencies.reduce((max, x) => (x > max ? x : max), 0) / 1000, 2),
  }),
);
