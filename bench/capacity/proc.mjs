// CPU time of processes by pid, from /proc (Linux only): what bench/capacity.mjs divides by runs.
import { cpuSeconds } from '../proc-cpu.mjs';

export { cpuSeconds };

/**
 * Follows the CPU time of a changing set of processes (PostgreSQL backends come and go with the
 * pools' connections). `observe(pids)` is called at the window's start, every sample and its end:
 * a pid seen for the first time after the start counts from 0 (it was born in the window), and a
 * pid that exits between samples keeps its last reading (what it used after it is lost: at most
 * one sample interval's worth).
 */
export function cpuTracker() {
  const first = new Map();
  const last = new Map();
  let started = false;
  return {
    observe(pids) {
      for (const pid of pids) {
        const seconds = cpuSeconds(pid);
        if (seconds === undefined) continue;
        if (!first.has(pid)) first.set(pid, started ? 0 : seconds);
        last.set(pid, seconds);
      }
      started = true;
    },
    /** CPU seconds used in the window, summed over every process seen. */
    total() {
      let sum = 0;
      for (const [pid, end] of last) sum += end - first.get(pid);
      return sum;
    },
    processes: () => last.size,
  };
}
