import { RunCancelledError } from '../errors.js';
import { linkedAbortController } from './abort.js';

/**
 * Runs `count` tasks with at most `limit` at once and resolves with their results in task order.
 * The first failure aborts the others (through the signal each task gets) and is rethrown once
 * all have stopped, so nothing is left running behind the caller. Tasks that produce events hand
 * them to a sink themselves (ParallelAgent); `runConcurrently` adapts generator tasks.
 */
export async function runTasks<T>(
  count: number,
  limit: number,
  parentSignal: AbortSignal,
  owner: string,
  start: (index: number, signal: AbortSignal) => T | Promise<T>,
): Promise<T[]> {
  const controller = linkedAbortController(parentSignal, { manyListeners: true });
  const results: T[] = new Array(count);
  let failure: { error: unknown } | undefined;
  let next = 0;
  const runTask = async (index: number): Promise<void> => {
    try {
      results[index] = await start(index, controller.signal);
    } catch (error) {
      if (!failure) {
        failure = { error };
        controller.abort(
          new RunCancelledError(`Cancelled because another branch of ${owner} failed.`, { cause: error }),
        );
      }
    }
  };
  const worker = async (): Promise<void> => {
    while (next < count && !failure && !controller.signal.aborted) await runTask(next++);
  };
  const workers: Promise<void>[] = [];
  for (let i = 0; i < Math.min(limit, count); i++) workers.push(worker());
  try {
    await Promise.all(workers);
  } finally {
    controller.dispose();
  }
  if (failure) throw failure.error;
  return results;
}
