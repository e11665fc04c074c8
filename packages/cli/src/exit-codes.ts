import type { RunStatus } from '@troupe/core';

/** The exit codes of the `troupe` command. */
export const ExitCode = {
  /** The command did what was asked; a one-shot run completed. */
  ok: 0,
  /** The run failed, or the agent module threw while loading. */
  failed: 1,
  /** Bad command line: unknown command or flag, missing file, a file that exports no agent. */
  usage: 2,
  /** The run hit a limit (`maxLlmCalls`, `maxTransfers`, `maxTokens`, timeout). */
  limit: 3,
  /** The run paused for a human answer (an interrupt). */
  interrupted: 4,
  /** A guardrail's tripwire blocked the run (status `'blocked'`). */
  blocked: 5,
  /** The run was cancelled (Ctrl-C), as shells report SIGINT. */
  cancelled: 130,
} as const;

/** The exit code of a one-shot run that ended with `status`. */
export function exitCodeFor(status: RunStatus): number {
  switch (status) {
    case 'completed':
      return ExitCode.ok;
    case 'failed':
      return ExitCode.failed;
    case 'limit':
      return ExitCode.limit;
    case 'interrupted':
      return ExitCode.interrupted;
    case 'cancelled':
      return ExitCode.cancelled;
    case 'blocked':
      return ExitCode.blocked;
  }
}
