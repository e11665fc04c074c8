// The load generator of bench/server-load.mjs, in its own process so the server under test keeps its
// CPU time to itself (it still shares the machine). N clients, each on keep-alive connections,
// repeat one request after another: create a session (POST /apps/{app}/users/{user}/sessions), then
// one run on it (POST /run, or POST /run_sse read to its end), for `warmup` + `seconds` seconds.
// A request counts when it finishes inside the measured window (after the warm-up, before the end),
// like a load tool counting the responses of a time window. Every response is
// checked (requests.mjs) for the tool call, the tool's result and the answer; a failed check is an error.
// Usage: node bench/server-load/client.mjs '<json: { url, app, route, clients, warmup, seconds }>'
// Prints one JSON line: { requests, errors, errorSamples, reqPerSec, p50Ms, p99Ms, maxMs, ... }.
import console from 'node:console';
import http from 'node:http';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { quantile, round } from '../stats.mjs';
import { requester } from './requests.mjs';

const options = JSON.parse(process.argv[2]);
const { url, app, route, clients, warmup, seconds } = options;
const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
const oneRequest = requester({ url, app, route, agent });

const started = performance.now();
const measureFrom = started + warmup * 1000;
const stopAt = measureFrom + seconds * 1000;
const latencies = [];
let errors = 0;
let warmupRequests = 0;
const errorSamples = new Map();

async function client(index) {
  for (let n = 0; performance.now() < stopAt; n++) {
    const t0 = performance.now();
    try {
      const done = await oneRequest(`u${index}`);
      if (done >= measureFrom && done <= stopAt) latencies.push((done - t0) * 1000);
      else if (done < measureFrom) warmupRequests++;
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
    errors,
    errorSamples: [...errorSamples].map(([message, count]) => ({ message, count })),
    reqPerSec: round(latencies.length / seconds, 1),
    p50Ms: round(quantile(latencies, 0.5) / 1000, 2),
    p99Ms: round(quantile(latencies, 0.99) / 1000, 2),
    // A loop, not Math.max(...latencies): a long run has more samples than the stack has room for arguments.
    maxMs: round(latencies.reduce((max, x) => (x > max ? x : max), 0) / 1000, 2),
  }),
);
