// Small statistics and measurement helpers shared by the workers and the orchestrator.
import process from 'node:process';
import { performance } from 'node:perf_hooks';

/** The q-quantile (0..1) of numbers, nearest-rank. */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

/** The median (mean of the two middle values for an even count). */
export function median(values) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Rounds to `digits` decimals. */
export function round(value, digits = 2) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Collects garbage (twice: weak references and finalizers) when node runs with --expose-gc. */
export function gc() {
  const collect = globalThis.gc;
  if (typeof collect !== 'function') return false;
  collect();
  collect();
  return true;
}

/** heapUsed in bytes after a full GC. */
export function heapAfterGc() {
  gc();
  return process.memoryUsage().heapUsed;
}

/** CPU time this process has used (user + system, all its threads), in µs; precise to the µs on Linux. */
export function cpuMicros() {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** The uncounted warm-up for `runs` counted runs: 10%, at least 5. */
export function warmupRuns(runs) {
  return Math.max(5, Math.ceil(runs * 0.1));
}

/**
 * Times `runs` sequential calls of `runOnce` (each awaited) after `warmup` uncounted ones.
 * `beforeCounted` runs between the two (e.g. to reset call counters).
 * Returns the total wall time in seconds, the per-run latencies in microseconds, and the CPU time
 * the process used during the counted runs (µs, all threads: GC helpers included).
 */
export async function timeRuns(runOnce, { runs, warmup, beforeCounted }) {
  for (let i = 0; i < warmup; i++) await runOnce(i, true);
  beforeCounted?.();
  gc();
  const latencies = new Array(runs);
  const cpuStart = cpuMicros();
  const start = performance.now();
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await runOnce(i, false);
    latencies[i] = (performance.now() - t) * 1000;
  }
  const seconds = (performance.now() - start) / 1000;
  return { seconds, latencies, cpuMicros: cpuMicros() - cpuStart };
}
