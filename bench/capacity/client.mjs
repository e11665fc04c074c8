// The load client of bench/capacity.mjs: like server-load/client.mjs (N keep-alive clients, each
// request a new session then one POST /run, checked), but spread over several API replicas, one
// request after another round-robin (as a load balancer without sticky sessions would), and it
// tells its parent when the measured window opens and closes (lines `window-start` and
// `window-end` on stdout), so the parent reads its counters at the same moments.
// Usage: node bench/capacity/client.mjs '<json: { urls, app, clients, warmup, seconds }>'
// Prints the two markers, then one JSON line: { requests, errors, errorSamples, reqPerSec, p50Ms, p99Ms, maxMs, ... }.
import console from 'node:console';
import http from 'node:http';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { setTimeout } from 'node:timers';
import { quantile, round } from '../stats.mjs';
import { requester } from '../server-load/requests.mjs';

const { urls, app, clients, warmup, seconds } = JSON.parse(process.argv[2]);
const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
const replicas = urls.map((url) => requester({ url, app, route: 'run', agent }));

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
    maxMs: round(latencies.reduce((max, x) => (x > max ? x : max), 0) / 1000, 2),
  }),
);
