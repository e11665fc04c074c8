// CPU time of processes by pid, from /proc (Linux only): what bench/capacity.mjs divides by runs.
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ: 100 on every Linux we run on). */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system, all threads) the process has used since it started, or undefined when
 * it is gone or unreadable. The command name in field 2 may hold spaces, so fields are counted
 * after its closing parenthesis.
 */
export function cpuSeconds(pid) {
  let stat;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3, so utime (14) and stime (15) are at indexes 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

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
