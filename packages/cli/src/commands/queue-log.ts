import type { RunInfo } from '@troupe/core/hosting';
import type { RunReport } from '@troupe/queue';

// The lines `troupe worker` and `troupe api --redis` write about background runs (issue #28: they
// said nothing of runs, takeovers and drains, nor of runs no worker took). Each starts as the API's
// own run line does (`run <app> session <id> user <user> ...`), so one grep follows a session
// through both, and ends with the run id, which the background-run routes take.

/** `run <app> session <id> user <user>`. */
function runOf(run: RunInfo): string {
  return `run ${run.appName} session ${run.sessionId} user ${run.userId}`;
}

/** The line `troupe worker` writes for what it did with a run. */
export function runReportLine(report: RunReport): string {
  const { run } = report;
  switch (report.kind) {
    case 'started':
      return report.takeover
        ? `${runOf(run)} taken over (run ${run.runId}, attempt ${run.attempts}): the worker that held it stopped`
        : `${runOf(run)} started (run ${run.runId}, attempt ${run.attempts})`;
    case 'ended': {
      const why = run.error && run.status !== 'completed' ? `: ${run.error.message}` : '';
      return `${runOf(run)} ${run.status} ${report.durationMs}ms (run ${run.runId})${why}`;
    }
    case 'drained':
      return `${runOf(run)} drained after ${report.durationMs}ms: back on the queue for another worker (run ${run.runId})`;
    case 'lost':
      return `${runOf(run)} lost after ${report.durationMs}ms: this worker stalled and another took the run over (run ${run.runId})`;
    case 'abandoned':
      return `${runOf(run)} abandoned after ${run.attempts} attempts: each time, its worker stopped before the run ended (run ${run.runId})`;
  }
}

/** What the API says when it starts and no worker is there: runs will wait. */
export function noWorkerLine(redis: string, where: string): string {
  return `Warning: no worker has been seen on Redis at ${redis}: runs wait in the queue until one starts ('troupe worker ${where} --redis <url>', with the same session store).`;
}

/** The line `troupe api --redis` writes for a run no worker has taken `waitedMs` after it was queued. */
export function untakenLine(
  run: RunInfo,
  seen: { waitedMs: number; workers: number | undefined },
  where: string,
): string {
  const start = `start one with 'troupe worker ${where} --redis <url>' and the same session store`;
  const head = `${runOf(run)} not taken by a worker after ${seen.waitedMs}ms (run ${run.runId}`;
  if (seen.workers === undefined) return `${head}): if no worker runs, ${start}`;
  if (seen.workers === 0) return `${head}; no worker seen): ${start}`;
  const plural = seen.workers === 1 ? '' : 's';
  return `${head}; ${seen.workers} worker${plural} seen: all busy, or the run waits for an earlier run of its session)`;
}
