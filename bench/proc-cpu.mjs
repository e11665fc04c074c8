// CPU time of processes by pid, from /proc (Linux only), for the benchmarks that spread one run
// over several processes (the bench, its workers, redis-server, PostgreSQL backends).
import { readFileSync } from 'node:fs';

/** utime and stime are in clock ticks: USER_HZ, 100 on every Linux this runs on. */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system, all threads) used by `pid` since it started; undefined once it is gone. */
export function cpuSeconds(pid) {
  let stat;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces: count from its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * CPU seconds a set of processes uses in a window: `start(pids)`, then `end(pids)`; a pid first seen
 * at the end was born in the window and counts from 0.
 */
export function cpuWindow() {
  const first = new Map();
  return {
    start(pids) {
      for (const pid of pids) first.set(pid, cpuSeconds(pid) ?? 0);
    },
    end(pids) {
      let sum = 0;
      for (const pid of pids) sum += (cpuSeconds(pid) ?? 0) - (first.get(pid) ?? 0);
      return sum;
    },
  };
}
